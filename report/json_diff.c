/* json_diff.c - path flattening (json_flatten, the key rules) and the
 * golden diff of tcsim's JSON results behind `tcsim check` (json_diff). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_diff.h"
#include "json_priv.h"

/* ---- flattening ------------------------------------------------------- */

const struct json_key_rule json_default_keys[] = {
    {NULL, {"pref", "handle"}}, {NULL, {"name"}}, {NULL, {"classid"}},
    {NULL, {"handle"}},		{NULL, {NULL}},
};

static const char *const latency_stats[] = {"min", "mean", "p50", "p90", "p99", "max"};

/* What the walk tells its (internal) visitor besides the public four. */
struct walk {
	const struct json_key_rule *keys;
	int (*fn)(struct walk *w, const char *path, int depth, const struct json *v, int latency);
	json_visit_fn user;
	void *arg;
	struct buf path;
};

static int is_ident(const char *s, size_t n)
{
	if (!n || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* Text inside "[...]": '\', '[', ']', '#' and '/' are escaped with '\',
 * control characters as \uXXXX, so distinct paths stay distinct. */
static int add_bracketed(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char u[8];

		if (c < 0x20) {
			snprintf(u, sizeof(u), "\\u%04x", c);
			if (buf_add(b, u, 6))
				return -1;
		} else if ((strchr("\\[]#/", c) && buf_addc(b, '\\')) || buf_addc(b, (char)c)) {
			return -1;
		}
	}
	return 0;
}

static int add_scalar(struct buf *b, const struct json *v)
{
	if (v->type == JSON_STRING)
		return add_bracketed(b, v->u.str.s, v->u.str.len);
	return buf_add(b, v->u.num.text, strlen(v->u.num.text));
}

/* The "[...]" segment of element e of an array held by member name. */
static int element_segment(const struct json_key_rule *keys, const char *name, const struct json *e,
			   size_t idx, struct buf *seg)
{
	char num[32];

	if (buf_addc(seg, '['))
		return -1;
	for (const struct json_key_rule *r = keys; e->type == JSON_OBJECT && r->members[0]; r++) {
		int ok = 1;

		if (r->array && (!name || strcmp(r->array, name)))
			continue;
		for (size_t k = 0; ok && k < 3 && r->members[k]; k++) {
			const struct json *m = json_get(e, r->members[k]);

			ok = m && (m->type == JSON_STRING || m->type == JSON_NUMBER);
		}
		if (!ok)
			continue;
		for (size_t k = 0; k < 3 && r->members[k]; k++)
			if ((k && buf_addc(seg, '/')) ||
			    add_scalar(seg, json_get(e, r->members[k])))
				return -1;
		return buf_addc(seg, ']');
	}
	snprintf(num, sizeof(num), "%zu]", idx);
	return buf_add(seg, num, strlen(num));
}

struct seg {
	char *s;
	size_t idx;
};

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int seg_idx_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int walk(struct walk *w, const struct json *v, const char *name, int depth, int in_delay);

static int walk_child(struct walk *w, const char *seg, size_t n, const struct json *v,
		      const char *name, int depth, int in_delay)
{
	size_t keep = w->path.len;
	int rc;

	if (buf_add(&w->path, seg, n))
		return -1;
	rc = walk(w, v, name, depth, in_delay);
	w->path.len = keep;
	w->path.s[keep] = '\0';
	return rc;
}

static int walk_array(struct walk *w, const struct json *v, const char *name, int depth,
		      int in_delay)
{
	size_t n = v->u.arr.n, i;
	struct seg *segs = calloc(n ? n : 1, sizeof(*segs));
	int rc = -1;

	if (!segs)
		return -1;
	for (i = 0; i < n; i++) {
		struct buf b = {0};

		segs[i].idx = i;
		if (element_segment(w->keys, name, v->u.arr.v[i], i, &b)) {
			free(b.s);
			goto out;
		}
		segs[i].s = b.s;
	}
	/* Repeated segments become [X#2], [X#3]... in document order. */
	qsort(segs, n, sizeof(*segs), seg_cmp);
	for (i = 1; i < n; i++) {
		size_t first = i - 1;

		while (i < n && !strcmp(segs[i].s, segs[first].s)) {
			size_t len = strlen(segs[i].s);
			char *s = malloc(len + 24);

			if (!s)
				goto out;
			snprintf(s, len + 24, "%.*s#%zu]", (int)(len - 1), segs[i].s,
				 i - first + 1);
			free(segs[i].s);
			segs[i].s = s;
			i++;
		}
	}
	/* back to document order */
	qsort(segs, n, sizeof(*segs), seg_idx_cmp);
	for (i = 0; i < n; i++) {
		rc = walk_child(w, segs[i].s, strlen(segs[i].s), v->u.arr.v[i], NULL, depth + 1,
				in_delay);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(segs[i].s);
	free(segs);
	return rc;
}

static int walk(struct walk *w, const struct json *v, const char *name, int depth, int in_delay)
{
	int latency = 0, rc;

	if (in_delay && name && v->type != JSON_ARRAY && v->type != JSON_OBJECT)
		for (size_t i = 0; i < sizeof(latency_stats) / sizeof(latency_stats[0]); i++)
			if (!strcmp(name, latency_stats[i]))
				latency = 1;
	rc = w->fn(w, w->path.s, depth, v, latency);
	if (rc)
		return rc;
	if (v->type == JSON_ARRAY)
		return walk_array(w, v, name, depth, in_delay);
	if (v->type != JSON_OBJECT)
		return 0;
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const struct json_member *m = &v->u.obj.m[i];
		struct buf seg = {0};
		int delay = in_delay || (!strcmp(m->key, "delay_ns") && m->v->type == JSON_OBJECT);

		if (is_ident(m->key, m->klen))
			rc = (depth && buf_addc(&seg, '.')) || buf_add(&seg, m->key, m->klen);
		else
			rc = buf_addc(&seg, '[') || add_bracketed(&seg, m->key, m->klen) ||
			     buf_addc(&seg, ']');
		if (!rc)
			rc = walk_child(w, seg.s, seg.len, m->v, m->key, depth + 1, delay);
		else
			rc = -1;
		free(seg.s);
		if (rc)
			return rc;
	}
	return 0;
}

static int walk_root(struct walk *w, const struct json *root)
{
	int rc;

	if (!w->keys)
		w->keys = json_default_keys;
	if (buf_grow(&w->path, 0))
		return -1;
	w->path.s[0] = '\0';
	rc = walk(w, root, NULL, 0, 0);
	free(w->path.s);
	return rc;
}

static int user_visit(struct walk *w, const char *path, int depth, const struct json *v, int lat)
{
	return w->user(w->arg, path, depth, v);
}

int json_flatten(const struct json *root, const struct json_key_rule *keys, json_visit_fn fn,
		 void *arg)
{
	struct walk w = {.keys = keys, .fn = user_visit, .user = fn, .arg = arg};

	return walk_root(&w, root);
}

/* ---- diff ------------------------------------------------------------- */

struct node {
	char *path;
	const struct json *v;
	int depth;
	unsigned latency : 1, matched : 1, retyped : 1;
};

struct side {
	struct node *n;
	size_t len, cap;
	const char *const *ignore;
};

static int ignored(const char *const *ignore, const char *path)
{
	for (; ignore && *ignore; ignore++) {
		size_t n = strlen(*ignore), pl = strlen(path);

		/* "*.name": the member name at any depth */
		if ((*ignore)[0] == '*') {
			if (pl >= n - 1 && !strcmp(path + pl - (n - 1), *ignore + 1))
				return 1;
			continue;
		}

		if (!strncmp(path, *ignore, n) &&
		    (!path[n] || path[n] == '.' || path[n] == '[' || !n))
			return 1;
	}
	return 0;
}

static int collect(struct walk *w, const char *path, int depth, const struct json *v, int lat)
{
	struct side *s = w->arg;
	struct node *n;

	if (ignored(s->ignore, path))
		return 0;
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		n = realloc(s->n, cap * sizeof(*n));
		if (!n)
			return -1;
		s->n = n;
		s->cap = cap;
	}
	n = &s->n[s->len];
	*n = (struct node){.v = v, .depth = depth, .latency = (unsigned)lat};
	n->path = strdup(path);
	if (!n->path)
		return -1;
	s->len++;
	return 0;
}

static void side_free(struct side *s)
{
	for (size_t i = 0; i < s->len; i++)
		free(s->n[i].path);
	free(s->n);
}

static int idx_cmp(const void *a, const void *b, void *arg)
{
	const struct node *n = arg;

	return strcmp(n[*(const size_t *)a].path, n[*(const size_t *)b].path);
}

struct lookup {
	const struct node *n;
	size_t *idx, len;
};

static long find(const struct lookup *l, const char *path)
{
	size_t lo = 0, hi = l->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, l->n[l->idx[mid]].path);

		if (!c)
			return (long)l->idx[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The index after i's descendants (document order keeps them together). */
static size_t skip_subtree(const struct side *s, size_t i)
{
	size_t j = i + 1;

	while (j < s->len && s->n[j].depth > s->n[i].depth)
		j++;
	return j;
}

static int is_container(const struct json *v)
{
	return v->type == JSON_ARRAY || v->type == JSON_OBJECT;
}

/* Compact JSON, at most about 60 characters. */
static void show(char *buf, size_t n, const struct json *v)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	if (!f) {
		snprintf(buf, n, "%s", json_type_name(json_type(v)));
		return;
	}
	json_write(f, v);
	fclose(f);
	if (len > 60 && n > 64 && is_container(v))
		snprintf(buf, n, "%.56s ...%c", mem, v->type == JSON_ARRAY ? ']' : '}');
	else if (len > 60 && n > 64)
		snprintf(buf, n, "%.56s ...", mem);
	else
		snprintf(buf, n, "%s", mem ? mem : "");
	free(mem);
}

struct report {
	FILE *out;
	size_t max, count;
};

static void report(struct report *r, const char *path, const char *fmt, ...)
{
	va_list ap;

	r->count++;
	if (!r->out || (r->max && r->count > r->max))
		return;
	fprintf(r->out, "%s: ", *path ? path : "(root)");
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->out);
}

static int integer_text(const struct json *v)
{
	return !strpbrk(v->u.num.text, ".eE");
}

static void pct(char *buf, size_t n, double p)
{
	if (fabs(p) >= 0.1 || p == 0)
		snprintf(buf, n, "%+.1f%%", p);
	else
		snprintf(buf, n, "%+.2g%%", p);
}

static void diff_numbers(struct report *r, const struct node *e, const struct node *a,
			 const struct json_diff_opts *o)
{
	const struct json *x = e->v, *y = a->v;
	char delta[64], tol[64] = "";
	double dx = x->u.num.d, dy = y->u.num.d, d;
	int64_t di;

	if (x->u.num.is_int && y->u.num.is_int) {
		if (x->u.num.i == y->u.num.i)
			return;
		if (!__builtin_sub_overflow(y->u.num.i, x->u.num.i, &di))
			snprintf(delta, sizeof(delta), "%+" PRId64, di);
		else
			snprintf(delta, sizeof(delta), "%+g", dy - dx);
	} else if (integer_text(x) && integer_text(y) && !x->u.num.is_int && !y->u.num.is_int) {
		/* beyond int64: the canonical texts decide */
		if (!strcmp(x->u.num.text, y->u.num.text))
			return;
		delta[0] = '\0'; /* too close for a double to tell */
		if (dy != dx)
			snprintf(delta, sizeof(delta), "%+g", dy - dx);
	} else {
		if (dx == dy)
			return;
		snprintf(delta, sizeof(delta), "%+g", dy - dx);
	}
	if (e->latency && a->latency) {
		d = fabs(dy - dx);
		if ((o->abs_tol > 0 && d <= o->abs_tol) ||
		    (o->rel_tol > 0 && d <= o->rel_tol * fabs(dx)))
			return;
		if (dx != 0)
			pct(delta, sizeof(delta), (dy - dx) / fabs(dx) * 100);
		if (o->rel_tol > 0 && o->abs_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g%% or %g ns", o->rel_tol * 100,
				 o->abs_tol);
		else if (o->rel_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g%%", o->rel_tol * 100);
		else if (o->abs_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g ns", o->abs_tol);
	}
	if (delta[0] && tol[0])
		report(r, e->path, "expected %s, got %s (%s, %s)", x->u.num.text, y->u.num.text,
		       delta, tol);
	else if (delta[0] || tol[0])
		report(r, e->path, "expected %s, got %s (%s)", x->u.num.text, y->u.num.text,
		       delta[0] ? delta : tol);
	else
		report(r, e->path, "expected %s, got %s", x->u.num.text, y->u.num.text);
}

static void diff_values(struct report *r, const struct node *e, const struct node *a,
			const struct json_diff_opts *o)
{
	const struct json *x = e->v, *y = a->v;
	char sx[80], sy[80];

	switch (x->type) {
	case JSON_NUMBER: diff_numbers(r, e, a, o); return;
	case JSON_STRING:
		if (x->u.str.len == y->u.str.len && !memcmp(x->u.str.s, y->u.str.s, x->u.str.len))
			return;
		break;
	case JSON_BOOL:
		if (x->u.b == y->u.b)
			return;
		break;
	default: return; /* null, or containers: their contents are compared */
	}
	show(sx, sizeof(sx), x);
	show(sy, sizeof(sy), y);
	report(r, e->path, "expected %s, got %s", sx, sy);
}

int json_diff(const struct json *expected, const struct json *actual,
	      const struct json_diff_opts *opts, FILE *out)
{
	static const struct json_diff_opts exact;
	const struct json_diff_opts *o = opts ? opts : &exact;
	struct side es = {.ignore = o->ignore}, as = {.ignore = o->ignore};
	struct walk w = {.keys = o->keys, .fn = collect};
	struct report r = {.out = out, .max = o->max_lines};
	struct lookup l = {0};
	char sx[80], sy[80];
	size_t i;
	int rc = -1;

	w.arg = &es;
	if (walk_root(&w, expected))
		goto out;
	w = (struct walk){.keys = o->keys, .fn = collect, .arg = &as};
	if (walk_root(&w, actual))
		goto out;
	l.n = as.n;
	l.len = as.len;
	l.idx = malloc((as.len ? as.len : 1) * sizeof(*l.idx));
	if (!l.idx)
		goto out;
	for (i = 0; i < as.len; i++)
		l.idx[i] = i;
	qsort_r(l.idx, as.len, sizeof(*l.idx), idx_cmp, as.n);

	for (i = 0; i < es.len;) {
		struct node *e = &es.n[i];
		long j = find(&l, e->path);
		struct node *a = j >= 0 ? &as.n[j] : NULL;

		if (!a) {
			show(sx, sizeof(sx), e->v);
			report(&r, e->path, "only in expected (%s)", sx);
			i = skip_subtree(&es, i);
			continue;
		}
		a->matched = 1;
		if (e->v->type != a->v->type) {
			show(sx, sizeof(sx), e->v);
			show(sy, sizeof(sy), a->v);
			report(&r, e->path, "expected %s, got %s (%s, now %s)", sx, sy,
			       json_type_name(e->v->type), json_type_name(a->v->type));
			a->retyped = 1;
			i = skip_subtree(&es, i);
			continue;
		}
		if (!is_container(e->v))
			diff_values(&r, e, a, o);
		i++;
	}
	for (i = 0; i < as.len;) {
		struct node *a = &as.n[i];

		if (!a->matched) {
			show(sy, sizeof(sy), a->v);
			report(&r, a->path, "only in actual (%s)", sy);
		}
		i = !a->matched || a->retyped ? skip_subtree(&as, i) : i + 1;
	}
	if (out && r.max && r.count > r.max)
		fprintf(out, "... and %zu more\n", r.count - r.max);
	rc = r.count > (size_t)INT32_MAX ? INT32_MAX : (int)r.count;
out:
	free(l.idx);
	side_free(&es);
	side_free(&as);
	return rc;
}
