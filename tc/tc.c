/* tc.c - iproute2's tc applied to the simulation: tc's front end and tc
 * scripts; the objects are in tc_qdisc.c, tc_class.c and tc_filter.c.
 *
 * This file has what iproute2's tc/tc.c has (the global options, the
 * object dispatch), tc scripts (word splitting, the shell tails `|| true`
 * and redirections to /dev/null, "file:line" for every message), and what
 * every object needs (the messages, devices: tc_int.h). Each object file
 * has the command words of its iproute2 namesake (keyword prefix matching,
 * handles, classids and messages) and the kernel's handling of the
 * requests they send (net/sched/sch_api.c tc_modify_qdisc and
 * tc_get_qdisc, cls_api.c tc_new_tfilter and tc_del_tfilter); tc_show.c
 * prints the show commands.
 *
 * Every error is one line, "where: message": tc's own words when tc would
 * refuse the command line (Error: argument "xyz:" is wrong: invalid qdisc
 * ID), and "RTNETLINK answers: <errno text> (<what the kernel's extack
 * says>: <the word at fault>)" when the kernel would refuse the request.
 *
 * tcsim's additions and limits, in tc's style:
 *  - bpf also takes `expr "tcpdump expression"` and `asm-file F.ops`
 *    (cls_bpf.c parses the kind's words); relative file names in a script
 *    start at the script's folder (struct tcf_request.basedir).
 *  - `dev D` that does not exist yet is created with the simulation's
 *    defaults by the commands that change something; show commands answer
 *    Cannot find device "D" as tc does.
 *  - `tc qdisc show ... invisible` lists the default children (current
 *    kernels only), as tc 6.x does.
 *  - Not modelled, refused with a message: ingress/clsact, estimators,
 *    size tables, shared blocks, chains other than 0, tc -batch and
 *    the other global options but -s, -d, -j and -p, `tc class add|change|
 *    replace|del` on prio and sfq (their classes have no parameters;
 *    htb's have: tc_class.c), moving an existing qdisc to another parent
 *    (3.13 would share it; current kernels refuse).
 *  - `tc qdisc del` and `tc filter del` do not parse the kind's options
 *    (tc would; the kernel never looks at them).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "infile.h"
#include "tc.h"
#include "tc_int.h"
#include "utf8.h"

/* ---- messages ---- */

static int vfail(struct tc_cmd *c, int code, const char *fmt, va_list ap)
{
	int n;

	if (!c->err || !c->errlen)
		return code;
	n = snprintf(c->err, c->errlen, "%s: ", c->where);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	return code;
}

/* A refusal in tc's own words. */
int tc_fail(struct tc_cmd *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vfail(c, code, fmt, ap);
	va_end(ap);
	return code;
}

static const char *errno_text(int e)
{
	switch (e) {
	case EEXIST: return "File exists";
	case ENOENT: return "No such file or directory";
	case EINVAL: return "Invalid argument";
	case EOPNOTSUPP: return "Operation not supported";
	case ENODEV: return "No such device";
	case ELOOP: return "Too many levels of symbolic links";
	case ENOSPC: return "No space left on device";
	case ENOMEM: return "Cannot allocate memory";
	default: return strerror(e);
	}
}

/* A refusal by the kernel: errno, the extack message of current kernels,
 * and the words it concerns. */
int tc_kfail(struct tc_cmd *c, int code, const char *extack, const char *fmt, ...)
{
	char what[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
	}
	return tc_fail(c, code, "RTNETLINK answers: %s (%s%s%s)", errno_text(-code), extack,
		       what[0] ? ": " : "", what);
}

/* A message from a layer below, which may already start with "where: ". */
int tc_pass_on(struct tc_cmd *c, int code, const char *msg)
{
	size_t n = strlen(c->where);

	if (!strncmp(msg, c->where, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return tc_fail(c, code, "%s", msg + n + 2);
	return tc_fail(c, code, "%s", msg);
}

int tc_incomplete(struct tc_cmd *c)
{
	return tc_fail(c, -EINVAL, "Command line is not complete. Try option \"help\"");
}

int tc_duparg(struct tc_cmd *c, const char *key, const char *arg)
{
	return tc_fail(c, -EINVAL, "Error: duplicate \"%s\": \"%s\" is the second value.", key,
		       arg);
}

int tc_invarg(struct tc_cmd *c, const char *msg, const char *arg)
{
	return tc_fail(c, -EINVAL, "Error: argument \"%s\" is wrong: %s", arg, msg);
}

int tc_not_modelled(struct tc_cmd *c, const char *what)
{
	return tc_fail(c, -EOPNOTSUPP, "tcsim: \"%s\" is not modelled", what);
}

int tc_in_list(const char *const *l, const char *w)
{
	for (; *l; l++)
		if (!strcmp(*l, w))
			return 1;
	return 0;
}

int tc_kind_not_modelled(struct tc_cmd *c, const char *what, const char *kind)
{
	char kinds[256];

	if (!strcmp(what, "qdisc"))
		qdisc_kind_names(kinds, sizeof(kinds));
	else
		tcf_kind_names(kinds, sizeof(kinds));
	return tc_fail(c, -EOPNOTSUPP, "%s \"%s\" is not modelled by tcsim (modelled: %s)", what,
		       kind, kinds);
}

/* ---- words ---- */

static int is_tc(const char *w)
{
	const char *slash = strrchr(w, '/');

	return !strcmp(slash ? slash + 1 : w, "tc");
}

char *tc_classid_str(char *buf, size_t n, uint32_t h)
{
	tc_print_classid(buf, n, h);
	return buf;
}

/* ---- devices ---- */

/* What Linux's dev_valid_name refuses ("." and "..", '/', ':', blanks),
 * and what reports and JSON could not carry as text: control bytes and
 * bytes that are not UTF-8. NULL for a good name. */
static const char *dev_name_fault(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t n;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "\".\" and \"..\" are reserved";
	for (; *p; p += n) {
		if (*p == '/' || *p == ':' || *p == ' ' || (*p >= '\t' && *p <= '\r'))
			return "no '/', ':' or blanks in it";
		if (*p < 0x20 || *p == 0x7f)
			return "no control characters in it";
		if (!(n = utf8_len((const char *)p, strlen((const char *)p))))
			return "not UTF-8";
	}
	return NULL;
}

int tc_get_dev(struct tc_cmd *c, const char *name, int create, struct dev **d)
{
	const char *fault;
	char msg[256];
	int ret;

	if (!name)
		return tc_kfail(c, -ENODEV, "no device given", "dev NAME is missing");
	*d = sim_dev_find(c->s, name);
	if (*d)
		return 0;
	if (!create)
		return tc_fail(c, -ENODEV, "Cannot find device \"%s\"", name);
	if ((fault = dev_name_fault(name)))
		return tc_fail(c, -EINVAL, "\"%s\" is not a valid device name (%s)", name, fault);
	ret = sim_dev_add(c->s, name, d, msg, sizeof(msg));
	return ret ? tc_pass_on(c, ret, msg) : 0;
}

/* ---- tc ---- */

static const char tc_usage[] = "Usage: tc [ OPTIONS ] OBJECT { COMMAND | help }";

/* tc.c's global options: -s, -d, -j (-json) and -p (-pretty) are what
 * tcsim prints with; -force is accepted (a no-op without -batch); the
 * others tc knows are refused by name (in tc's order: a prefix takes the
 * first it matches). */
static int global_option(struct tc_cmd *c, const char *w)
{
	static const char *const unmodelled[] = {
	    "-raw",	  "-pretty", "-graph", "-Version", "-help",    "-force",
	    "-batch",	  "-netns",  "-names", "-nm",	   "-cf",      "-conf",
	    "-timestamp", "-tshort", "-iec",   "-json",	   "-oneline", "-brief",
	};
	const char *o = w[1] == '-' ? w + 1 : w;

	if (tc_matches(o, "-stats") || tc_matches(o, "-statistics")) {
		c->stats++;
		return 0;
	}
	if (tc_matches(o, "-details")) {
		c->details++;
		return 0;
	}
	for (size_t i = 0; i < sizeof(unmodelled) / sizeof(unmodelled[0]); i++)
		if (tc_matches(o, unmodelled[i])) {
			if (!strcmp(unmodelled[i], "-pretty")) {
				c->pretty++;
				return 0;
			}
			if (!strcmp(unmodelled[i], "-json")) {
				c->json = 1;
				return 0;
			}
			/* tc -force only matters with -batch (go on after a failing
			 * line: tcsim's --force); on one command it changes nothing */
			if (!strcmp(unmodelled[i], "-force"))
				return 0;
			return tc_fail(c, -EOPNOTSUPP, "tcsim: tc option \"%s\" is not modelled",
				       w);
		}
	return tc_fail(c, -EINVAL, "Option \"%s\" is unknown, try \"tc -help\".", w);
}

int tc_exec(struct sim *s, int argc, char **argv, const char *where, const char *basedir, FILE *out,
	    char *err, size_t errlen)
{
	struct tc_cmd c = {
	    .s = s,
	    .where = where && *where ? where : "tc",
	    .basedir = basedir,
	    .out = out ? out : stdout,
	    .err = err,
	    .errlen = errlen,
	};
	const char *obj;
	int i = 0, ret;

	if (err && errlen)
		err[0] = 0;
	if (argc > 0 && is_tc(argv[0]))
		i++;
	for (; i < argc && argv[i][0] == '-'; i++) {
		ret = global_option(&c, argv[i]);
		if (ret)
			return ret;
	}
	if (i >= argc)
		return tc_fail(&c, -EINVAL, "%s", tc_usage);
	obj = argv[i++];
	if (tc_matches(obj, "qdisc"))
		return tc_do_qdisc(&c, argc - i, argv + i);
	if (tc_matches(obj, "class"))
		return tc_do_class(&c, argc - i, argv + i);
	if (tc_matches(obj, "filter"))
		return tc_do_filter(&c, argc - i, argv + i);
	if (tc_matches(obj, "chain") || tc_matches(obj, "actions") || tc_matches(obj, "monitor") ||
	    tc_matches(obj, "exec"))
		return tc_fail(&c, -EOPNOTSUPP, "tcsim: \"tc %s\" is not modelled", obj);
	if (tc_matches(obj, "help"))
		return tc_fail(&c, -EINVAL, "%s", tc_usage);
	return tc_fail(&c, -EINVAL, "Object \"%s\" is unknown, try \"tc help\".", obj);
}

/* ---- scripts ---- */

struct words {
	char **v;
	int n, cap;
	char *w; /* the word being read */
	size_t len, wcap;
	int open; /* a word has started (even an empty '' one) */
};

static int word_putc(struct words *ws, char ch)
{
	if (ws->len + 1 >= ws->wcap) {
		size_t cap = ws->wcap ? ws->wcap * 2 : 64;
		char *w = realloc(ws->w, cap);

		if (!w)
			return -ENOMEM;
		ws->w = w;
		ws->wcap = cap;
	}
	ws->w[ws->len++] = ch;
	ws->open = 1;
	return 0;
}

static int word_end(struct words *ws)
{
	char *w;

	if (!ws->open)
		return 0;
	if (ws->n + 1 >= ws->cap) {
		int cap = ws->cap ? ws->cap * 2 : 16;
		char **v = realloc(ws->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ws->v = v;
		ws->cap = cap;
	}
	w = malloc(ws->len + 1);
	if (!w)
		return -ENOMEM;
	if (ws->len) /* an empty word ('') has no buffer yet */
		memcpy(w, ws->w, ws->len);
	w[ws->len] = 0;
	ws->v[ws->n++] = w;
	ws->v[ws->n] = NULL;
	ws->len = 0;
	ws->open = 0;
	return 0;
}

static void words_clear(struct words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->v[i]);
	ws->n = 0;
	ws->len = 0;
	ws->open = 0;
}

static void words_free(struct words *ws)
{
	words_clear(ws);
	free(ws->v);
	free(ws->w);
}

/* '$' that a shell would expand. */
static int is_expansion(const char *p)
{
	char n = p[1];

	return (n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9') ||
	       (n && strchr("_{(@*#?$!-", n));
}

static int script_fail(char *err, size_t errlen, int code, const char *name, int line,
		       const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return code;
	n = snprintf(err, errlen, "%s:%d: ", name, line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- shell variables (tcsim run --var) ---- */

int tc_is_assignment(const char *w, size_t len)
{
	size_t i;

	if (!len || !(isalpha((unsigned char)w[0]) || w[0] == '_'))
		return 0;
	for (i = 1; i < len && (isalnum((unsigned char)w[i]) || w[i] == '_'); i++)
		;
	return i < len && w[i] == '=';
}

/* The script's own NAME=VALUE lines, "NAME=VALUE" each, later ones last. */
struct script_vars {
	char **v;
	int n, cap;
};

static void script_vars_free(struct script_vars *sv)
{
	for (int i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
}

static int script_vars_add(struct script_vars *sv, const char *assignment)
{
	char *a;

	if (sv->n == sv->cap) {
		int cap = sv->cap ? sv->cap * 2 : 8;
		char **v = realloc(sv->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	if (!(a = strdup(assignment)))
		return -ENOMEM;
	sv->v[sv->n++] = a;
	return 0;
}

static const char *var_in(const char *const *v, int n, const char *name, size_t nl)
{
	for (int i = n - 1; i >= 0; i--) /* the last assignment wins */
		if (!strncmp(v[i], name, nl) && v[i][nl] == '=')
			return v[i] + nl + 1;
	return NULL;
}

/* --var, then the script's lines, then the environment; NULL: unset. */
static const char *var_lookup(const struct tc_script_opts *so, const struct script_vars *sv,
			      const char *name, size_t nl)
{
	const char *v = var_in(so->vars, so->nvars, name, nl);
	char buf[256];

	if (!v)
		v = var_in((const char *const *)sv->v, sv->n, name, nl);
	if (!v && so->environ && nl < sizeof(buf)) {
		memcpy(buf, name, nl);
		buf[nl] = 0;
		v = getenv(buf);
	}
	return v;
}

/* $NAME, ${NAME}, ${NAME:-WORD} or ${NAME-WORD} at p (WORD plain text). */
struct var_ref {
	const char *name, *def;
	size_t nl, dl, len; /* len: the characters of the text it takes */
	int def_if_unset;   /* ${NAME-WORD} */
	int def_if_empty;   /* ${NAME:-WORD} */
};

static int var_ref_at(const char *p, struct var_ref *r)
{
	const char *q = p + 1 + (p[1] == '{');

	memset(r, 0, sizeof(*r));
	if (!(isalpha((unsigned char)*q) || *q == '_'))
		return -1; /* $1, $@, $(...), ${#X}: a shell's, not ours */
	r->name = q;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	r->nl = (size_t)(q - r->name);
	if (p[1] != '{') {
		r->len = (size_t)(q - p);
		return 0;
	}
	if (q[0] == ':' && q[1] == '-')
		r->def_if_empty = 1, q += 2;
	else if (q[0] == '-')
		q++;
	else if (q[0] != '}')
		return -1; /* ${X:=Y}, ${X#Y}, ...: not expanded here */
	r->def_if_unset = q[-1] == '-';
	r->def = q;
	while (*q && !strchr("}$`'\"\\\n", *q))
		q++;
	if (*q != '}')
		return -1;
	r->dl = (size_t)(q - r->def);
	r->len = (size_t)(q + 1 - p);
	return 0;
}

/* The word of the text starting at p, for messages. */
static void token_at(const char *p, char *buf, size_t n)
{
	size_t i = 0;

	while (p[i] && !strchr(" \t\r\n", p[i]) && i + 1 < n && i < 40)
		i++;
	memcpy(buf, p, i);
	buf[i] = 0;
}

/* Expands the '$' or '`' at p into ws: within double quotes as one piece,
 * else split into words at blanks as a shell splits it, except in the
 * NAME=VALUE words that begin a line. *used: the characters it took. */
static int expand_var(struct words *ws, const char *p, int quoted, const struct tc_script_opts *so,
		      const struct script_vars *sv, const char *name, int line, size_t *used,
		      char *err, size_t errlen)
{
	struct var_ref r;
	const char *v, *end;
	char tok[48];
	int assign = tc_is_assignment(ws->w ? ws->w : "", ws->len);

	token_at(p, tok, sizeof(tok));
	if (*p == '`' || var_ref_at(p, &r))
		return script_fail(err, errlen, -EINVAL, name, line,
				   "\"%s\": tcsim runs no shell: only $NAME, ${NAME}, ${NAME:-WORD} "
				   "and ${NAME-WORD} are expanded, no command substitution "
				   "(bpf asm-file F.ops assembles a program)",
				   tok);
	if (!so)
		return script_fail(err, errlen, -EINVAL, name, line,
				   "\"%s\": a shell variable, which only a tc file run with --var "
				   "NAME=VALUE expands; write the value here",
				   tok);
	v = var_lookup(so, sv, r.name, r.nl);
	if ((!v && (r.def_if_unset || r.def_if_empty)) || (v && !*v && r.def_if_empty)) {
		v = r.def;
		end = r.def + r.dl;
	} else if (!v) {
		return script_fail(err, errlen, -EINVAL, name, line,
				   "$%.*s is not set: give --var %.*s=VALUE (or set it in the "
				   "script%s)",
				   (int)r.nl, r.name, (int)r.nl, r.name,
				   so->environ ? " or the environment" : "");
	} else {
		end = v + strlen(v);
	}
	for (int i = 0; i < ws->n; i++)
		assign &= tc_is_assignment(ws->v[i], strlen(ws->v[i]));
	for (; v < end; v++) {
		int ret = !quoted && !assign && strchr(" \t\n", *v) ? word_end(ws)
								     : word_putc(ws, *v);

		if (ret)
			return ret;
	}
	*used = r.len;
	return 0;
}

/* What a router script puts after a tc command for its shell: `|| true`
 * (or `|| :`) and redirections to /dev/null, as in the first line of
 * wondershaper, `tc qdisc del dev eth0 root 2>/dev/null || true`. They
 * are taken as the shell takes them: `|| true` or a silenced stderr means
 * a failure of this command does not stop the script (the author expects
 * one: a script without `set -e` goes on); a silenced stdout hides what a
 * show prints. Anything else a shell would do (pipes, &&, ;, a redirection
 * to a file) is refused, naming the word. Sets *argc to the command's own
 * words. */
struct shell_tail {
	int or_true;   /* || true */
	int quiet_err; /* 2>/dev/null, &>/dev/null */
	int quiet_out; /* >/dev/null, &>/dev/null */
};

static int is_devnull_redirect(const char *w, const char *next, int *fd, int *words)
{
	const char *t = w;

	*fd = 1;
	if (*t == '&') {
		*fd = 3; /* both */
		t++;
	} else if (*t == '1' || *t == '2') {
		*fd = *t - '0';
		t++;
	}
	if (*t != '>')
		return 0;
	t++;
	if (*t == '>')
		t++; /* >> /dev/null is as silent */
	if (!strcmp(t, "&1") && *fd == 2) {
		*words = 1;
		return 2; /* 2>&1: stderr follows stdout */
	}
	if (*t) {
		*words = 1;
		return !strcmp(t, "/dev/null") ? 1 : -1;
	}
	*words = 2;
	return next && !strcmp(next, "/dev/null") ? 1 : -1;
}

static int shell_tail(char **v, int *argc, struct shell_tail *st, const char *name, int line,
		      char *err, size_t errlen)
{
	int n = *argc;

	memset(st, 0, sizeof(*st));
	if (n >= 2 && !strcmp(v[n - 2], "||") &&
	    (!strcmp(v[n - 1], "true") || !strcmp(v[n - 1], ":"))) {
		st->or_true = 1;
		n -= 2;
	}
	/* the redirections: the last words before || true, each whole, applied
	 * in order as a shell applies them (2>&1 copies where stdout goes now) */
	for (int i = 1; i < n; i++) {
		int fd, words;

		if (!is_devnull_redirect(v[i], i + 1 < n ? v[i + 1] : NULL, &fd, &words))
			continue;
		for (int k = i; k < n; k += words) {
			int r = is_devnull_redirect(v[k], k + 1 < n ? v[k + 1] : NULL, &fd, &words);

			if (r < 0)
				return script_fail(
				    err, errlen, -EINVAL, name, line,
				    "\"%s\": tcsim runs no shell: a redirection to anything "
				    "but /dev/null is not modelled",
				    v[k]);
			if (!r) /* a command word after a redirection */
				return script_fail(
				    err, errlen, -EINVAL, name, line,
				    "\"%s\": a redirection belongs after the tc command's words",
				    v[i]);
			if (r == 2) {
				st->quiet_err = st->quiet_out;
			} else {
				st->quiet_out |= fd & 1;
				st->quiet_err |= (fd & 2) != 0;
			}
		}
		n = i;
		break;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], "||") || !strcmp(v[i], "&&") || !strcmp(v[i], "|") ||
		    !strcmp(v[i], ";") || !strcmp(v[i], "&"))
			return script_fail(
			    err, errlen, -EINVAL, name, line,
			    "\"%s\": tcsim runs no shell: only \"|| true\" and redirections "
			    "to /dev/null may follow a tc command",
			    v[i]);
	*argc = n;
	return 0;
}

int tc_run_script(struct sim *s, const char *text, const char *name, const char *basedir, FILE *out,
		  char *err, size_t errlen)
{
	return tc_run_script_at(s, text, name, 1, basedir, out, err, errlen);
}

static int run_script(struct sim *s, const char *text, const char *name, int first_line,
		      const char *basedir, struct tc_script_opts *so, FILE *out, char *err,
		      size_t errlen)
{
	struct script_vars sv = {0};
	struct words ws = {0};
	const char *p = text;
	int line = first_line, start = first_line, ret = 0;

	if (!name || !*name)
		name = "tc";
	if (err && errlen)
		err[0] = 0;
	for (;;) {
		char ch = *p;

		if (ch == '\0' || ch == '\n') {
			if ((ret = word_end(&ws)))
				break;
			int assigns = 0;

			while (assigns < ws.n && tc_is_assignment(ws.v[assigns], strlen(ws.v[assigns])))
				assigns++;
			if (assigns && (!so || assigns < ws.n)) {
				ret = script_fail(err, errlen, -EINVAL, name, start,
						  so ? "\"%s\": tcsim runs no shell: an assignment goes on "
						       "a line of its own"
						     : "\"%s\": a shell variable, which only a tc "
						       "file run with --var NAME=VALUE takes",
						  ws.v[0]);
				break;
			}
			for (int i = 0; i < assigns && !ret; i++)
				ret = script_vars_add(&sv, ws.v[i]);
			if (ret)
				break;
			if (assigns)
				words_clear(&ws);
			if (ws.n) {
				char where[512];
				struct shell_tail st;
				int argc = ws.n;
				char *cut;
				FILE *null = NULL;

				snprintf(where, sizeof(where), "%s:%d", name, start);
				if ((ret = shell_tail(ws.v, &argc, &st, name, start, err, errlen)))
					break;
				if (st.quiet_out && !(null = fopen("/dev/null", "w"))) {
					ret = script_fail(err, errlen, -errno, name, start,
							  "/dev/null: %s", strerror(errno));
					break;
				}
				cut = ws.v[argc]; /* the shell's words are not the command's */
				ws.v[argc] = NULL;
				ret = argc ? tc_exec(s, argc, ws.v, where, basedir,
						     null ? null : out, err, errlen)
					   : 0;
				ws.v[argc] = cut;
				if (null)
					fclose(null);
				words_clear(&ws);
				if (ret && (st.or_true || st.quiet_err)) {
					/* the script goes on, as the shell would; the message is
					 * shown unless the line silenced it */
					if (!st.quiet_err && err && errlen) {
						errmsg_oneline(err, errlen);
						fprintf(stderr, "tcsim: %s (ignored: || true)\n",
							err);
					}
					ret = 0;
					if (err && errlen)
						err[0] = 0;
				}
				if (ret && ret != -ENOMEM && so && so->force) {
					/* tc -force -batch: say it and go on; the caller
					 * ends with an error once the run is done */
					if (err && errlen) {
						errmsg_oneline(err, errlen);
						fprintf(stderr, "tcsim: %s (--force: going on)\n", err);
						err[0] = 0;
					}
					so->failed++;
					ret = 0;
				}
				if (ret)
					break;
			}
			if (!ch)
				break;
			line++;
			p++;
			continue;
		}
		if (!ws.n && !ws.open)
			start = line;
		if (strchr(" \t\r\f\v", ch)) {
			if ((ret = word_end(&ws)))
				break;
			p++;
		} else if (ch == '#' && !ws.open) {
			while (*p && *p != '\n')
				p++;
		} else if (ch == '\\') {
			if (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')) {
				line++;
				p += p[1] == '\r' ? 3 : 2;
			} else if (!p[1]) {
				p++;
			} else {
				if ((ret = word_putc(&ws, p[1])))
					break;
				p += 2;
			}
		} else if (ch == '\'') {
			int from = line;

			ws.open = 1;
			for (p++; *p && *p != '\''; p++) {
				if (*p == '\n')
					line++;
				if ((ret = word_putc(&ws, *p)))
					break;
			}
			if (ret)
				break;
			if (!*p) {
				ret = script_fail(err, errlen, -EINVAL, name, from,
						  "unterminated ' quote");
				break;
			}
			p++;
		} else if (ch == '"') {
			int from = line;

			ws.open = 1;
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
					if (p[1] == '\n')
						line++;
					else if ((ret = word_putc(&ws, p[1])))
						break;
					p++;
					continue;
				}
				if (*p == '`' || (*p == '$' && is_expansion(p))) {
					size_t used;

					ret = expand_var(&ws, p, 1, so, &sv, name, line, &used, err,
							 errlen);
					if (ret)
						break;
					p += used - 1; /* and the loop's p++ */
					continue;
				}
				if (*p == '\n')
					line++;
				if ((ret = word_putc(&ws, *p)))
					break;
			}
			if (ret)
				break;
			if (!*p) {
				ret = script_fail(err, errlen, -EINVAL, name, from,
						  "unterminated \" quote");
				break;
			}
			p++;
		} else if (ch == '`' || (ch == '$' && is_expansion(p))) {
			size_t used;

			if ((ret = expand_var(&ws, p, 0, so, &sv, name, line, &used, err, errlen)))
				break;
			p += used;
		} else {
			if ((ret = word_putc(&ws, ch)))
				break;
			p++;
		}
	}
	if (ret == -ENOMEM && err && errlen && !err[0])
		script_fail(err, errlen, ret, name, line, "out of memory");
	/* a quoted word may span lines; its message must not */
	if (ret)
		errmsg_oneline(err, errlen);
	words_free(&ws);
	script_vars_free(&sv);
	return ret;
}

int tc_run_script_at(struct sim *s, const char *text, const char *name, int first_line,
		     const char *basedir, FILE *out, char *err, size_t errlen)
{
	return run_script(s, text, name, first_line, basedir, NULL, out, err, errlen);
}

int tc_run_script_opts(struct sim *s, const char *text, const char *name, const char *basedir,
		       struct tc_script_opts *so, FILE *out, char *err, size_t errlen)
{
	return run_script(s, text, name, 1, basedir, so, out, err, errlen);
}

int tc_run_file(struct sim *s, const char *path, FILE *out, char *err, size_t errlen)
{
	return tc_run_file_opts(s, path, NULL, out, err, errlen);
}

int tc_run_file_opts(struct sim *s, const char *path, struct tc_script_opts *so, FILE *out,
		     char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL, *dir = NULL, *slash, *nul;
	size_t len = 0, cap = 0;
	const char *why;
	int ret = infile_open(&f, path, &why);

	if (ret) {
		snprintf(err, errlen, "%s: cannot open: %s", path, why);
		return ret;
	}
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? cap * 2 : 8192;
			t = realloc(text, cap);
			if (!t) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			text = t;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	text[len] = 0;
	/* the script would end at the NUL, silently */
	if ((nul = memchr(text, 0, len))) {
		int line = 1;

		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		ret = script_fail(err, errlen, -EINVAL, path, line,
				  "a NUL byte: a tc script is text (a binary file?)");
		goto out;
	}
	dir = strdup(path);
	if (!dir) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	ret = run_script(s, text, path, 1, slash ? dir : NULL, so, out, err, errlen);
out:
	fclose(f);
	free(text);
	free(dir);
	return ret;
}
