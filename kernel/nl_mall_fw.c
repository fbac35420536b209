/* nl_mall_fw.c - `tcsim import`'s reading of matchall and fw filters:
 * one element's TCA_OPTIONS into the model (libnl-route 3.7 has no
 * matchall and no fw classifier module: the attributes are read here).
 *
 * matchall (mall_dump): TCA_MATCHALL_CLASSID when a classid is set,
 * TCA_MATCHALL_FLAGS when a flag is (skip_hw, skip_sw, and the kernel's own
 * in_hw / not_in_hw state, which a rebuild sets again by itself),
 * TCA_MATCHALL_PCNT (its hit counter, with TCA_MATCHALL_PAD), then the
 * actions. skip_sw (the filter runs in hardware only) and actions are not
 * rebuildable by tcsim: listed in f->why.
 *
 * fw (fw_dump): nothing at all when the filter has neither a classid nor
 * actions (no TCA_OPTIONS: the caller keeps has_options 0); else
 * TCA_FW_CLASSID, TCA_FW_INDEV (a device name), TCA_FW_MASK when the
 * tcf_proto's mask is not 0xffffffff, and the actions (TCA_FW_ACT) or the
 * old police (TCA_FW_POLICE). indev (tcsim's packets have no input
 * device), actions and police are listed in f->why.
 *
 * Attribute numbers are the kernel's ABI (pkt_cls.h), spelled out as in
 * nl_dump.c; an attribute this file does not know, or one too short for
 * its type, is an error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/netlink.h>

#include "nl_import.h"
#include "nl_int.h"

/* TCA_MATCHALL_* */
enum { M_CLASSID = 1, M_ACT, M_FLAGS, M_PCNT, M_PAD, M_MAX = M_PAD };

/* TCA_FW_* */
enum { W_CLASSID = 1, W_POLICE, W_INDEV, W_ACT, W_MASK, W_MAX = W_MASK };

static int nested(struct nlattr *opts, struct nlattr **tb, int max, const char *kind,
		  const char *family, const char *wh, char *err, size_t errlen)
{
	struct nlattr *a;
	int rem;

	if (!nl_attrs_whole(nla_data(opts), nla_len(opts)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, opts, rem) {
		int type = nla_type(a);

		if (type < 1 || type > max)
			return nl_failf(err, errlen, -EPROTO,
					"%s: unknown attribute %d in the %s options (%s_*): a newer "
					"kernel? tcsim cannot tell what it means",
					wh, type, kind, family);
		tb[type] = a;
	}
	return 0;
}

static int u32_attr(struct nlattr *a, uint32_t *v, const char *name, const char *wh, char *err,
		    size_t errlen)
{
	if (!a)
		return 0;
	if (nla_len(a) < 4)
		return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes", wh, name, nla_len(a));
	*v = nla_get_u32(a);
	return 0;
}

int nl_matchall_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		      size_t errlen)
{
	struct nlattr *tb[M_MAX + 1] = {0};
	int ret;

	if ((ret = nested(opts, tb, M_MAX, "matchall", "TCA_MATCHALL", wh, err, errlen)) ||
	    (ret = u32_attr(tb[M_CLASSID], &f->classid, "TCA_MATCHALL_CLASSID", wh, err,
			    errlen)) ||
	    (ret = u32_attr(tb[M_FLAGS], &f->gen_flags, "TCA_MATCHALL_FLAGS", wh, err, errlen)))
		return ret;
	if (f->gen_flags & CLS_FLAGS_SKIP_SW)
		nl_why_add(f, "skip_sw (the filter runs in hardware only)");
	if (f->gen_flags & ~(CLS_FLAGS_SKIP_HW | CLS_FLAGS_SKIP_SW | CLS_FLAGS_IN_HW |
			     CLS_FLAGS_NOT_IN_HW | CLS_FLAGS_VERBOSE)) {
		char text[64];

		snprintf(text, sizeof(text), "TCA_MATCHALL_FLAGS 0x%x", f->gen_flags);
		nl_why_add(f, text);
	}
	if (tb[M_ACT])
		nl_why_add(f, "actions (tcsim models no tc actions)");
	return 0;
}

int nl_fw_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		size_t errlen)
{
	struct nlattr *tb[W_MAX + 1] = {0};
	int ret;

	f->mask = 0xffffffffu;
	if ((ret = nested(opts, tb, W_MAX, "fw", "TCA_FW", wh, err, errlen)) ||
	    (ret = u32_attr(tb[W_CLASSID], &f->classid, "TCA_FW_CLASSID", wh, err, errlen)) ||
	    (ret = u32_attr(tb[W_MASK], &f->mask, "TCA_FW_MASK", wh, err, errlen)))
		return ret;
	f->has_mask = tb[W_MASK] != NULL;
	if (tb[W_INDEV]) {
		const char *s = nla_data(tb[W_INDEV]);
		int len = nla_len(tb[W_INDEV]);
		char name[NLI_DEVLEN] = "", text[96];

		/* the name goes into comments and stderr: printable only */
		for (int i = 0; i < len && i + 1 < (int)sizeof(name) && s[i]; i++)
			name[i] = s[i] > ' ' && s[i] <= '~' && s[i] != '"' ? s[i] : '?';
		snprintf(text, sizeof(text), "indev \"%s\" (tcsim's packets have no input device)",
			 name);
		nl_why_add(f, text);
	}
	if (tb[W_ACT])
		nl_why_add(f, "actions (tcsim models no tc actions)");
	if (tb[W_POLICE])
		nl_why_add(f, "police (tcsim models no policing)");
	return 0;
}
