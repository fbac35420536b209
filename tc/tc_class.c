/* tc_class.c - tc class show, as iproute2's tc/tc_class.c parses it; add, change, replace and
 * delete are refused: prio's and sfq's classes have no parameters to set. */
#include <errno.h>
#include <string.h>

#include "tc_int.h"

static int class_list(struct tc_cmd *c, int argc, char **argv)
{
	struct tc_show_opts o = {.stats = c->stats, .details = c->details};
	const char *dev = NULL;
	struct dev *d;
	int ret;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "dev")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (dev)
				return tc_duparg(c, "dev", argv[i]);
			dev = argv[i];
		} else if (!strcmp(w, "root")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Error: duplicate \"parent\" ID");
			o.has_parent = 1;
			o.parent = TC_H_ROOT;
		} else if (!strcmp(w, "parent")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Error: duplicate \"parent\" ID");
			if (++i >= argc)
				return tc_incomplete(c);
			if (tc_get_classid(&o.parent, argv[i]))
				return tc_invarg(c, "invalid parent ID", argv[i]);
			o.has_parent = 1;
		} else if (!strcmp(w, "classid")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (tc_get_classid(&o.handle, argv[i]))
				return tc_invarg(c, "invalid class ID", argv[i]);
			o.has_handle = 1;
		} else if (tc_matches(w, "help")) {
			return tc_fail(
			    c, -EINVAL,
			    "Usage: tc class show [ dev STRING ] [ root | parent CLASSID ]");
		} else {
			return tc_fail(c, -EINVAL, "What is \"%s\"? Try \"tc class help\".", w);
		}
	}
	if (!dev)
		return 0; /* the kernel dumps classes of one device only */
	ret = tc_get_dev(c, dev, 0, &d);
	if (ret)
		return ret;
	tc_show_class_opts(d, c->out, &o);
	return 0;
}

int tc_do_class(struct tc_cmd *c, int argc, char **argv)
{
	const char *w;

	if (argc < 1)
		return class_list(c, 0, NULL);
	w = argv[0];
	if (tc_matches(w, "add") || tc_matches(w, "change") || tc_matches(w, "replace") ||
	    tc_matches(w, "delete"))
		return tc_fail(
		    c, -EOPNOTSUPP,
		    "tcsim: \"tc class %s\" is not modelled (prio and sfq classes have no "
		    "parameters)",
		    w);
	if (tc_matches(w, "list") || tc_matches(w, "show") || tc_matches(w, "lst"))
		return class_list(c, argc - 1, argv + 1);
	if (tc_matches(w, "help"))
		return tc_fail(c, -EINVAL,
			       "Usage: tc class show [ dev STRING ] [ root | parent CLASSID ]");
	return tc_fail(c, -EINVAL, "Command \"%s\" is unknown, try \"tc class help\".", w);
}
