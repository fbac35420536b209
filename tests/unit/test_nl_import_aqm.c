/* test_nl_import_aqm.c - `tcsim import` of codel, fq_codel, netem,
 * pfifo_head_drop and noqueue qdiscs and of matchall and fw filters (kernel/nl_aqm.c,
 * nl_mall_fw.c, nl_scen_aqm_cls.c), fed with netlink messages built here
 * as the kernel's dump functions build them (codel_dump, fq_codel_dump,
 * netem_dump, fifo_dump, mall_dump, fw_dump): the exact tc lines written, what is
 * listed, and the round trip: the lines, run through tcsim's own tc, give
 * the `tc qdisc show` / `tc filter show` text the kernel's dump would (the
 * dumped values printed by iproute2's rules, tcsim's tc_sprint_time), and
 * the same as the commands that made the configuration. This machine's
 * kernel (6.18) lacks codel, fq_codel, netem, matchall and fw, so these messages
 * are the only check of them; pfifo_head_drop and noqueue are also
 * imported from the kernel by tests/kernel/import_e2e.sh. */
#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <math.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_rate.h"
/* sched_rate.h brings the kernel's pkt_sched.h, whose handle macros
 * tcsim's cls.h defines again: tcsim's win from here on */
#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "codel.h"
#include "nl_import.h"
#include "nl_int.h"
#include "sim.h"
#include "tc.h"
#include "unit.h"

#define IFX 7

/* ---- messages as the kernel dumps them ---- */

static struct nl_msg *tcmsg_new(int type, uint32_t handle, uint32_t parent, uint32_t info,
				const char *kind)
{
	struct tcmsg t;
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_MULTI);

	CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
	memset(&t, 0, sizeof(t));
	t.tcm_family = AF_UNSPEC;
	t.tcm_ifindex = IFX;
	t.tcm_handle = handle;
	t.tcm_parent = parent;
	t.tcm_info = info;
	CU_ASSERT_EQUAL_FATAL(nlmsg_append(msg, &t, sizeof(t), NLMSG_ALIGNTO), 0);
	CU_ASSERT_EQUAL_FATAL(nla_put_string(msg, TCA_KIND, kind), 0);
	return msg;
}

static void feed(struct nl_import_model *m, struct nl_msg *msg)
{
	char err[512] = "";
	int r = nl_import_parse(m, nlmsg_hdr(msg), err, sizeof(err));

	if (r)
		printf("\n  parse: %d (%s)\n", r, err);
	CU_ASSERT_EQUAL(r, 0);
	nlmsg_free(msg);
}

static void parse_fails(struct nl_msg *msg, const char *what)
{
	struct nl_import_model m;
	char err[512] = "";
	int r;

	nl_import_model_init(&m, "eth0", IFX);
	r = nl_import_parse(&m, nlmsg_hdr(msg), err, sizeof(err));
	if (r >= 0 || !strstr(err, what))
		printf("\n  parse: %d \"%s\", expected an error with \"%s\"\n", r, err, what);
	CU_ASSERT(r < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	nlmsg_free(msg);
	nl_import_model_free(&m);
}

static void qdisc_prio(struct nl_import_model *m, uint32_t handle, int bands)
{
	static const uint8_t map[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
	struct nl_msg *msg = tcmsg_new(RTM_NEWQDISC, handle, TC_H_ROOT, 1, "prio");
	uint8_t opt[20] = {0};

	memcpy(opt, &bands, 4);
	memcpy(opt + 4, map, 16);
	nla_put(msg, TCA_OPTIONS, sizeof(opt), opt);
	feed(m, msg);
}

/* codel_dump: TARGET, LIMIT, INTERVAL, ECN, then CE_THRESHOLD when set */
struct codel_vals {
	uint32_t target, limit, interval, ecn, ce; /* ce ~0: not dumped */
};

static struct nl_msg *codel_msg(uint32_t handle, uint32_t parent, const struct codel_vals *v)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWQDISC, handle, parent, 1, "codel");
	struct nlattr *o = nla_nest_start(msg, TCA_OPTIONS);

	nla_put_u32(msg, 1, v->target);
	nla_put_u32(msg, 2, v->limit);
	nla_put_u32(msg, 3, v->interval);
	nla_put_u32(msg, 4, v->ecn);
	if (v->ce != ~0u)
		nla_put_u32(msg, 5, v->ce);
	nla_nest_end(msg, o);
	return msg;
}

/* fq_codel_dump: TARGET, LIMIT, INTERVAL, ECN, QUANTUM, DROP_BATCH_SIZE,
 * MEMORY_LIMIT, FLOWS, then CE_THRESHOLD, _SELECTOR, _MASK when set */
struct fqc_vals {
	uint32_t target, limit, interval, ecn, quantum, drop_batch, memory, flows, ce;
	uint8_t selector, mask;
};

static struct nl_msg *fqc_msg(uint32_t handle, uint32_t parent, const struct fqc_vals *v)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWQDISC, handle, parent, 1, "fq_codel");
	struct nlattr *o = nla_nest_start(msg, TCA_OPTIONS);

	nla_put_u32(msg, 1, v->target);
	nla_put_u32(msg, 2, v->limit);
	nla_put_u32(msg, 3, v->interval);
	nla_put_u32(msg, 4, v->ecn);
	nla_put_u32(msg, 6, v->quantum);
	nla_put_u32(msg, 8, v->drop_batch);
	nla_put_u32(msg, 9, v->memory);
	nla_put_u32(msg, 5, v->flows);
	if (v->ce != ~0u) {
		nla_put_u32(msg, 7, v->ce);
		nla_put_u8(msg, 10, v->selector);
		nla_put_u8(msg, 11, v->mask);
	}
	nla_nest_end(msg, o);
	return msg;
}

static uint32_t info(uint32_t pref, uint16_t proto)
{
	return (pref << 16) | htons(proto);
}

/* The tcf_proto's own line: handle 0, no options. */
static void filter_head(struct nl_import_model *m, const char *kind, uint32_t parent,
			uint32_t pref, uint16_t proto)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWTFILTER, 0, parent, info(pref, proto), kind);

	nla_put_u32(msg, TCA_CHAIN, 0);
	feed(m, msg);
}

#define NO_CLASSID 0
#define MALL_ACT 0x100 /* with an action */

/* mall_dump: CLASSID when set, FLAGS when any, PCNT (with its PAD), ACT */
static struct nl_msg *mall_msg(uint32_t parent, uint32_t pref, uint16_t proto, uint32_t handle,
			       uint32_t classid, uint32_t flags)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWTFILTER, handle, parent, info(pref, proto), "matchall");
	struct nlattr *o;
	uint64_t pcnt = 12;

	nla_put_u32(msg, TCA_CHAIN, 0);
	o = nla_nest_start(msg, TCA_OPTIONS);
	if (classid)
		nla_put_u32(msg, 1, classid);
	if (flags & 0xff)
		nla_put_u32(msg, 3, flags & 0xff);
	nla_put(msg, 5, 0, NULL);
	nla_put(msg, 4, sizeof(pcnt), &pcnt);
	if (flags & MALL_ACT) {
		struct nlattr *act = nla_nest_start(msg, 2);

		nla_put_u32(msg, 1, 0);
		nla_nest_end(msg, act);
	}
	nla_nest_end(msg, o);
	return msg;
}

/* fw_dump: nothing without classid and actions; else CLASSID, INDEV,
 * MASK when not 0xffffffff, ACT */
static struct nl_msg *fw_msg(uint32_t parent, uint32_t pref, uint16_t proto, uint32_t handle,
			     uint32_t classid, uint32_t mask, const char *indev)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWTFILTER, handle, parent, info(pref, proto), "fw");
	struct nlattr *o;

	nla_put_u32(msg, TCA_CHAIN, 0);
	if (!classid && !indev)
		return msg;
	o = nla_nest_start(msg, TCA_OPTIONS);
	if (classid)
		nla_put_u32(msg, 1, classid);
	if (indev)
		nla_put_string(msg, 3, indev);
	if (mask != 0xffffffffu)
		nla_put_u32(msg, 5, mask);
	nla_nest_end(msg, o);
	return msg;
}

static void model_new(struct nl_import_model *m, const char *dev)
{
	nl_import_model_init(m, dev, IFX);
	m->has_link = 1;
	m->mtu = 1500;
	m->txqueuelen = 1000;
}

/* ---- the writer's output, run ---- */

static char *write_ok(const struct nl_import_model *m, int want_omitted, char **omitted)
{
	struct nl_import_opts o = {.kernel = "6.18.0-test"};
	char err[512] = "", *text = NULL, *om = NULL;
	int r = nl_import_write(m, &o, &text, &om, err, sizeof(err));

	if (r < 0)
		printf("\n  write: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(r >= 0, 1);
	if (r != want_omitted)
		printf("\n  %d omissions, expected %d:\n%s", r, want_omitted, om);
	CU_ASSERT_EQUAL(r, want_omitted);
	if (getenv("NLI_SHOW"))
		fputs(text, stdout);
	*omitted = om;
	return text;
}

static int same(const char *got, const char *want)
{
	if (strcmp(got, want)) {
		const char *g = got, *w = want;

		while (*g && *g == *w)
			g++, w++;
		printf("\n---- got ----\n%s---- expected ----\n%s---- first difference at byte %zu: "
		       "got \"%.40s\", expected \"%.40s\"\n",
		       got, want, (size_t)(g - got), g, w);
		return 0;
	}
	return 1;
}

static char *tc_part(const char *text)
{
	const char *a = strstr(text, ":tc[[\n"), *b;
	char *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	a += 6;
	b = strstr(a, "]]\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	s = strndup(a, (size_t)(b - a));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

/* tc qdisc show + tc filter show [parent P] of dev after running script
 * in a fresh simulation (malloc'd); NULL when the script fails. */
static char *shown(const char *script, const char *dev, const char *more)
{
	struct sim s;
	struct sim_config cfg;
	char err[1024] = "", *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct dev *d;
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	sim_config_default(&cfg);
	CU_ASSERT_EQUAL_FATAL(sim_init(&s, &cfg), 0);
	r = tc_run_script(&s, script, "import.tc", NULL, out, err, sizeof(err));
	if (r)
		printf("\n  tc: %s\n", err);
	d = sim_dev_find(&s, dev);
	if (!r && d) {
		tc_show_qdisc(d, out, 0);
		tc_show_filter(d, out);
		if (more)
			r = tc_run_script(&s, more, "show.tc", NULL, out, err, sizeof(err));
	}
	fclose(out);
	sim_free(&s);
	if (r || !d) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- times ---- */

/* Every value a kernel dumps (codel_time_to_us of some tick count) is
 * written as a word tc reads back to those ticks; a value no tick count
 * dumps is said so. */
static void test_codel_times(void)
{
	static const struct {
		uint32_t us;
		const char *word;
		int exact;
	} cases[] = {
	    {4999, "5ms", 1},	  /* the default target: 4882 ticks; 4999us would be 4881 */
	    {99999, "100ms", 1},  /* the default interval */
	    {5000, "5001us", 1},  /* 4883 ticks: typed 5001us..5001us, not 5ms */
	    {999, "1ms", 1},	  /* 1ms is 976 ticks, dumped as 999 */
	    {1000, "1001us", 1},  /* 977 ticks */
	    {0, "0us", 1},	  /* ce_threshold 0 */
	    {42, "42us", 0},	  /* 41 ticks dump as 41, 42 as 43: none as 42 */
	    {999999, "1s", 1},	  /* 976562 ticks */
	    {4294967294u, "4294967295us", 1}, /* the largest tick count that fits */
	};
	char w[32];
	uint32_t back;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = nl_codel_time_word(w, sizeof(w), cases[i].us);

		if (strcmp(w, cases[i].word) || r != cases[i].exact)
			printf("\n  %uus: \"%s\" (%d), expected \"%s\" (%d)\n", cases[i].us, w, r,
			       cases[i].word, cases[i].exact);
		CU_ASSERT_STRING_EQUAL(w, cases[i].word);
		CU_ASSERT_EQUAL(r, cases[i].exact);
	}
	/* the property, over the first million tick counts and some large ones */
	for (uint64_t t = 0; t < 4194303999u; t = t < 1000000 ? t + 1 : t * 3 + 7) {
		uint32_t us = codel_time_to_us((codel_time_t)t);

		CU_ASSERT_EQUAL_FATAL(nl_codel_time_word(w, sizeof(w), us), 1);
		CU_ASSERT_EQUAL_FATAL(tc_get_time(&back, w), 0);
		if (codel_us_to_time(back) != t)
			printf("\n  %llu ticks, dumped %uus: \"%s\" gives %u ticks\n",
			       (unsigned long long)t, us, w, codel_us_to_time(back));
		CU_ASSERT_EQUAL_FATAL(codel_us_to_time(back), t);
	}
}

/* ---- qdiscs ---- */

/* iproute2's codel_print_opt / fq_codel_print_opt of dumped values */
static void codel_show(char *buf, size_t n, const char *where, const struct codel_vals *v)
{
	char t[TC_SPRINT_BSIZE], i[TC_SPRINT_BSIZE], c[TC_SPRINT_BSIZE] = "";
	char ce[80] = "";

	if (v->ce != ~0u)
		snprintf(ce, sizeof(ce), "ce_threshold %s ", tc_sprint_time(v->ce, c));
	snprintf(buf, n, "qdisc codel %s limit %up target %s %sinterval %s %s\n", where, v->limit,
		 tc_sprint_time(v->target, t), ce, tc_sprint_time(v->interval, i),
		 v->ecn ? "ecn " : "");
}

static void fqc_show(char *buf, size_t n, const char *where, const struct fqc_vals *v)
{
	char t[TC_SPRINT_BSIZE], i[TC_SPRINT_BSIZE], c[TC_SPRINT_BSIZE], mem[TC_SPRINT_BSIZE];
	char ce[80] = "";

	if (v->ce != ~0u)
		snprintf(ce, sizeof(ce), "ce_threshold %s ", tc_sprint_time(v->ce, c));
	if (v->ce != ~0u && (v->selector || v->mask)) /* print_hhu "%#x" */
		snprintf(ce + strlen(ce), sizeof(ce) - strlen(ce), "ce_threshold_selector %#x/%#x ",
			 v->selector, v->mask);
	snprintf(buf, n,
		 "qdisc fq_codel %s limit %up flows %u quantum %u target %s %sinterval %s "
		 "memory_limit %s %sdrop_batch %u \n",
		 where, v->limit, v->flows, v->quantum, tc_sprint_time(v->target, t), ce,
		 tc_sprint_time(v->interval, i), tc_sprint_size(v->memory, mem),
		 v->ecn ? "ecn " : "", v->drop_batch);
}

static const char aqm_expected_tc[] =
    "eth0:tc[[\n"
    "  qdisc add dev eth0 root handle 1: prio bands 5 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
    "  qdisc add dev eth0 parent 1:1 handle 10: codel limit 1000 target 5ms interval 100ms "
    "noecn\n"
    "  qdisc add dev eth0 parent 1:2 handle 20: codel limit 77 target 5001us interval 1s "
    "ce_threshold 1ms ecn\n"
    "  qdisc add dev eth0 parent 1:3 handle 30: fq_codel limit 10240 flows 1024 quantum 1514 "
    "target 5ms interval 100ms memory_limit 32mb drop_batch 64 ecn\n"
    "  qdisc add dev eth0 parent 1:4 handle 40: pfifo_head_drop limit 9\n"
    "  qdisc add dev eth0 parent 1:5 handle 50: fq_codel limit 300 flows 16 quantum 300 "
    "target 20ms interval 200ms memory_limit 1000000 drop_batch 8 ce_threshold 2500us "
    "ce_threshold_selector 0xb8/0xfc noecn\n";

/* What a user typed for that tree. */
static const char aqm_original[] =
    "qdisc add dev eth0 root handle 1: prio bands 5\n"
    "qdisc add dev eth0 parent 1:1 handle 10: codel\n"
    "qdisc add dev eth0 parent 1:2 handle 20: codel limit 77 target 5001us interval 1s "
    "ce_threshold 1ms ecn\n"
    "qdisc add dev eth0 parent 1:3 handle 30: fq_codel\n"
    "qdisc add dev eth0 parent 1:4 handle 40: pfifo_head_drop limit 9\n"
    "qdisc add dev eth0 parent 1:5 handle 50: fq_codel limit 300 flows 16 quantum 300 "
    "target 20ms interval 200ms memory_limit 1000000 drop_batch 8 ce_threshold 2.5ms "
    "ce_threshold_selector 184/0xfc noecn\n";

/* A prio root with codel (the kernel's defaults and others), fq_codel (the
 * defaults; and every option set), pfifo_head_drop, in the dump's hash
 * order: every line real, nothing listed; tcsim's tc then shows what the
 * kernel's dump would, and what the original commands give. */
static void test_aqm_tree(void)
{
	struct codel_vals c10 = {.target = 4999, .limit = 1000, .interval = 99999, .ce = ~0u};
	/* target 5001us: 4883 ticks, dumped 5000; interval 1s: 976562, 999999;
	 * ce_threshold 1ms: 976 ticks, 999 */
	struct codel_vals c20 = {.target = 5000, .limit = 77, .interval = 999999, .ecn = 1, .ce = 999};
	struct fqc_vals f30 = {.target = 4999, .limit = 10240, .interval = 99999, .ecn = 1,
			       .quantum = 1514, .drop_batch = 64, .memory = 32u << 20,
			       .flows = 1024, .ce = ~0u};
	/* 20ms: 19531 ticks, 19999; 200ms: 195312, 199999; 2.5ms: 2441, 2499 */
	struct fqc_vals f11 = {.target = 19999, .limit = 300, .interval = 199999, .quantum = 300,
			       .drop_batch = 8, .memory = 1000000, .flows = 16, .ce = 2499,
			       .selector = 0xb8, .mask = 0xfc};
	struct nl_import_model m;
	struct nl_msg *msg;
	char *text, *om, *script, *got, *want, line[512], *tc;
	uint32_t limit = 9;

	model_new(&m, "eth0");
	feed(&m, fqc_msg(0x500000, 0x10005, &f11));
	feed(&m, codel_msg(0x200000, 0x10002, &c20));
	qdisc_prio(&m, 0x10000, 5);
	feed(&m, fqc_msg(0x300000, 0x10003, &f30));
	msg = tcmsg_new(RTM_NEWQDISC, 0x400000, 0x10004, 1, "pfifo_head_drop");
	nla_put(msg, TCA_OPTIONS, 4, &limit);
	feed(&m, msg);
	feed(&m, codel_msg(0x100000, 0x10001, &c10));
	text = write_ok(&m, 0, &om);
	CU_ASSERT_STRING_EQUAL(om, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "-- Everything the kernel reported is reproduced.\n"));
	tc = strstr(text, "eth0:tc[[\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
	tc = strndup(tc, sizeof(aqm_expected_tc) - 1);
	CU_ASSERT(same(tc, aqm_expected_tc));
	free(tc);

	/* the round trip: tcsim's show of the lines is iproute2's print of the
	 * dump, qdisc by qdisc */
	script = tc_part(text);
	got = shown(script, "eth0", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	codel_show(line, sizeof(line), "10: parent 1:1", &c10);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, line));
	codel_show(line, sizeof(line), "20: parent 1:2", &c20);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, line));
	fqc_show(line, sizeof(line), "30: parent 1:3", &f30);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, line));
	fqc_show(line, sizeof(line), "50: parent 1:5", &f11);
	if (!strstr(got, line))
		printf("\n  no \"%s\" in\n%s", line, got);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, line));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "qdisc pfifo_head_drop 40: parent 1:4 limit 9p\n"));
	/* literally, for the defaults (iproute2 prints 4999us as 5ms) */
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "qdisc codel 10: parent 1:1 limit 1000p target 5ms "
					   "interval 100ms \n"));
	/* and as the original commands */
	want = shown(aqm_original, "eth0", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT(same(got, want));
	free(got);
	free(want);
	free(script);
	free(text);
	free(om);
	nl_import_model_free(&m);
}

/* What the words cannot rebuild: a zero limit, target or interval (tc
 * sends none), a value no tick count dumps, a ce_threshold selector of
 * 0xff (tc's "not given"; one of 0x1/0x3 is written), noqueue
 * under a class (the kernel refuses that now; older ones did not). */
static void test_aqm_notes(void)
{
	struct codel_vals c10 = {.target = 0, .limit = 0, .interval = 42, .ce = ~0u};
	struct fqc_vals f20 = {.target = 4999, .limit = 10240, .interval = 99999, .ecn = 1,
			       .quantum = 1514, .drop_batch = 64, .memory = 32u << 20,
			       .flows = 1024, .ce = 999, .selector = 0xff, .mask = 0xfc};
	struct fqc_vals f40 = f20;
	struct nl_import_model m;
	char *text, *om;

	model_new(&m, "eth0");
	qdisc_prio(&m, 0x10000, 4);
	feed(&m, codel_msg(0x100000, 0x10001, &c10));
	feed(&m, fqc_msg(0x200000, 0x10002, &f20));
	feed(&m, tcmsg_new(RTM_NEWQDISC, 0x300000, 0x10003, 1, "noqueue"));
	f40.selector = 1;
	f40.mask = 3;
	feed(&m, fqc_msg(0x400000, 0x10004, &f40));
	text = write_ok(&m, 5, &om);
	CU_ASSERT(same(om, "not reproduced: qdisc codel 10: parent 1:1: limit 0 (tc sends no zero "
			   "limit, so the kernel keeps its default; not written)\n"
			   "not reproduced: qdisc codel 10: parent 1:1: target 0 (tc sends no zero "
			   "target, so the kernel keeps its default; not written)\n"
			   "not reproduced: qdisc codel 10: parent 1:1: interval 42us is no value "
			   "the kernel dumps (ticks of 1024 ns); written 42us\n"
			   "not reproduced: qdisc fq_codel 20: parent 1:2: ce_threshold_selector "
			   "0xff/0xfc (tc takes a value of 0xff as not given and sends nothing; not "
			   "written)\n"
			   "not modelled: qdisc noqueue 30: parent 1:3: noqueue under a class (tcsim "
			   "refuses it there, as Linux 6.18 does)\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "  qdisc add dev eth0 parent 1:1 handle 10: codel interval 42us noecn\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "drop_batch 64 ce_threshold 1ms ecn\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "drop_batch 64 ce_threshold 1ms ce_threshold_selector 0x1/0x3 "
					    "ecn\n"));
	free(text);
	free(om);
	nl_import_model_free(&m);
}

static void test_aqm_malformed(void)
{
	struct codel_vals c = {.target = 4999, .limit = 1000, .interval = 99999, .ce = ~0u};
	struct nl_msg *msg;
	struct nlattr *o;

	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "codel");
	parse_fails(msg, "qdisc codel 1: root: no TCA_OPTIONS");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "codel");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nla_put_u32(msg, 1, 4999);
	nla_nest_end(msg, o);
	parse_fails(msg, "no TCA_CODEL_LIMIT (the kernel always sends it)");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "codel");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nla_put_u16(msg, 1, 4999);
	nla_nest_end(msg, o);
	parse_fails(msg, "TCA_CODEL attribute 1 of 2 bytes, not 4");
	msg = codel_msg(0x10000, TC_H_ROOT, &c);
	{ /* attribute 6 appended inside TCA_OPTIONS, its last attribute */
		struct nlattr *extra = nla_reserve(msg, 6, 4);

		memset(nla_data(extra), 0, 4);
		o = nlmsg_find_attr(nlmsg_hdr(msg), sizeof(struct tcmsg), TCA_OPTIONS);
		o->nla_len = (uint16_t)((char *)nlmsg_tail(nlmsg_hdr(msg)) - (char *)o);
	}
	parse_fails(msg, "unknown attribute 6 in the codel options (TCA_CODEL_*)");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "fq_codel");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nla_put_u32(msg, 1, 4999);
	nla_put_u32(msg, 2, 10240);
	nla_put_u32(msg, 3, 99999);
	nla_put_u32(msg, 4, 1);
	nla_put_u32(msg, 6, 1514);
	nla_nest_end(msg, o);
	parse_fails(msg, "no TCA_FQ_CODEL_FLOWS");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "pfifo_head_drop");
	parse_fails(msg, "not a struct tc_fifo_qopt");
	msg = tcmsg_new(RTM_NEWTFILTER, 1, 0x10000, info(1, 0x0800), "matchall");
	parse_fails(msg, "no TCA_OPTIONS");
	msg = tcmsg_new(RTM_NEWTFILTER, 1, 0x10000, info(1, 0x0800), "matchall");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nla_put_u16(msg, 1, 2);
	nla_nest_end(msg, o);
	parse_fails(msg, "TCA_MATCHALL_CLASSID of 2 bytes");
	msg = tcmsg_new(RTM_NEWTFILTER, 1, 0x10000, info(1, 0x0800), "fw");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nla_put_u32(msg, 9, 2);
	nla_nest_end(msg, o);
	parse_fails(msg, "unknown attribute 9 in the fw options (TCA_FW_*)");
}

/* ---- netem ---- */

/* netem_dump: TCA_OPTIONS holds the struct tc_netem_qopt and, after it,
 * LATENCY64, JITTER64, CORR, REORDER, CORRUPT, [RATE64], RATE, [ECN],
 * [LOSS {GI|GE}], [SLOT], [PRNG_SEED] (6.3+). Times in the qopt are 64-ns
 * ticks, probabilities the u32 scale. */
struct netem_vals {
	uint32_t latency, limit, loss, gap, duplicate, jitter; /* the qopt */
	int64_t latency64, jitter64; /* 0: latency * 64 (what the kernel sends) */
	int no64;		     /* a kernel before 4.15: no LATENCY64/JITTER64 */
	uint32_t delay_corr, loss_corr, dup_corr, reorder, reorder_corr, corrupt, corrupt_corr;
	uint64_t rate; /* bytes/s; >= 2^32: RATE64 and ~0 in RATE */
	int32_t packet_overhead, cell_overhead;
	uint32_t cell_size, ecn;
	int model;	 /* 1 GI, 2 GE */
	uint32_t m[5]; /* gi: p13 p31 p32 p14 p23; ge: p r h k1 */
	int slot;
	int64_t slot_min, slot_max, slot_dd, slot_dj;
	int32_t slot_packets, slot_bytes;
	uint64_t seed;
	int has_seed;
};

static struct nl_msg *netem_msg(uint32_t handle, uint32_t parent, const struct netem_vals *v)
{
	struct nl_msg *msg = tcmsg_new(RTM_NEWQDISC, handle, parent, 1, "netem");
	struct nlattr *o = nla_nest_start(msg, TCA_OPTIONS);
	uint32_t qopt[6] = {v->latency, v->limit, v->loss, v->gap, v->duplicate, v->jitter};
	uint32_t cor[3] = {v->delay_corr, v->loss_corr, v->dup_corr};
	uint32_t ro[2] = {v->reorder, v->reorder_corr}, cr[2] = {v->corrupt, v->corrupt_corr};
	uint32_t rate[4] = {v->rate >= (1ull << 32) ? ~0u : (uint32_t)v->rate,
			    (uint32_t)v->packet_overhead, v->cell_size, (uint32_t)v->cell_overhead};
	int64_t lat = v->latency64 ? v->latency64 : (int64_t)v->latency * 64;
	int64_t jit = v->jitter64 ? v->jitter64 : (int64_t)v->jitter * 64;

	CU_ASSERT_EQUAL_FATAL(nlmsg_append(msg, qopt, sizeof(qopt), NLMSG_ALIGNTO), 0);
	if (!v->no64) {
		nla_put(msg, 10, 8, &lat);
		nla_put(msg, 11, 8, &jit);
	}
	nla_put(msg, 1, sizeof(cor), cor);
	nla_put(msg, 3, sizeof(ro), ro);
	nla_put(msg, 4, sizeof(cr), cr);
	if (v->rate >= (1ull << 32))
		nla_put_u64(msg, 8, v->rate);
	nla_put(msg, 6, sizeof(rate), rate);
	if (v->ecn)
		nla_put_u32(msg, 7, v->ecn);
	if (v->model) {
		struct nlattr *l = nla_nest_start(msg, 5);

		nla_put(msg, v->model, v->model == 1 ? 20 : 16, v->m);
		nla_nest_end(msg, l);
	}
	if (v->slot) {
		char s[40];
		int32_t pb[2] = {v->slot_packets, v->slot_bytes};

		memcpy(s, &v->slot_min, 8);
		memcpy(s + 8, &v->slot_max, 8);
		memcpy(s + 16, pb, 8);
		memcpy(s + 24, &v->slot_dd, 8);
		memcpy(s + 32, &v->slot_dj, 8);
		nla_put(msg, 12, sizeof(s), s);
	}
	if (v->has_seed)
		nla_put_u64(msg, 14, v->seed);
	nla_nest_end(msg, o);
	return msg;
}

/* tc 6.1's numbers: ticks of whole microseconds, percents on the u32 scale */
static uint32_t us_ticks(uint32_t us)
{
	return tc_core_time2tick(us);
}

static uint32_t pc(double percent)
{
	return (uint32_t)rint(percent / 100. * UINT32_MAX);
}

static const char netem_expected_tc[] =
    "eth0:tc[[\n"
    "  qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
    "  qdisc add dev eth0 parent 1:1 handle 10: netem limit 500 delay 5001us 1ms 25% loss "
    "random 2% 10% reorder 5% 50% gap 3 corrupt 0.1% rate 1mbit 20 48 -5 ecn\n"
    "  # not reproduced: qdisc netem 10: parent 1:1: the delay distribution (the kernel never "
    "dumps its table, so uniform, normal, pareto, paretonormal or a custom one cannot be told "
    "apart): written uniform; add `distribution NAME` if it had one\n"
    "  qdisc add dev eth0 parent 1:2 handle 20: netem limit 1000 delay 100ms loss gemodel 1% "
    "10% 70% 0.1% slot 1ms 5ms packets 10 bytes 3000\n"
    "  qdisc add dev eth0 parent 1:3 handle 30: netem limit 1000 delay 2ms loss state 1% 30% "
    "5% 20% 2% rate 5gbit\n"
    "  qdisc add dev eth0 parent 30:1 handle 40: pfifo limit 7\n"
    "]]\n";

static const char netem_original[] =
    "qdisc add dev eth0 root handle 1: prio\n"
    "qdisc add dev eth0 parent 1:1 handle 10: netem delay 5001us 1ms 25% loss random 2% 10% "
    "reorder 5% 50% gap 3 corrupt 0.1% rate 1mbit 20 48 -5 ecn limit 500\n"
    "qdisc add dev eth0 parent 1:2 handle 20: netem delay 100ms loss gemodel 1% 10% 70% 0.1% "
    "slot 1ms 5ms packets 10 bytes 3000\n"
    "qdisc add dev eth0 parent 1:3 handle 30: netem delay 2ms loss state 1% 30% 5% 20% 2% "
    "rate 5gbit\n"
    "qdisc add dev eth0 parent 30:1 handle 40: pfifo limit 7\n";

/* Three netems under a prio, each as the kernel dumps what netem_original
 * made (5001us: 78140 ticks, which libnl's getter would make 5000us), one
 * with a pfifo grafted: the lines are the words a user types, and run
 * through tcsim they show what the original commands show. */
static void test_netem_tree(void)
{
	struct netem_vals n10 = {.latency = us_ticks(5001), .jitter = us_ticks(1000), .limit = 500,
				 .loss = pc(2), .gap = 3, .delay_corr = pc(25), .loss_corr = pc(10),
				 .reorder = pc(5), .reorder_corr = pc(50), .corrupt = pc(0.1),
				 .rate = 125000, .packet_overhead = 20, .cell_size = 48,
				 .cell_overhead = -5, .ecn = 1};
	struct netem_vals n20 = {.latency = us_ticks(100000), .limit = 1000, .model = 2,
				 .m = {pc(1), pc(10), UINT32_MAX - pc(70), pc(0.1)}, .slot = 1,
				 .slot_min = 1000000, .slot_max = 5000000, .slot_packets = 10,
				 .slot_bytes = 3000};
	struct netem_vals n30 = {.latency = us_ticks(2000), .limit = 1000, .model = 1,
				 .m = {pc(1), pc(30), pc(5), pc(2), pc(20)}, .rate = 625000000};
	struct nl_import_model m;
	struct nl_msg *msg;
	char *text, *om, *script, *got, *want, *tc;
	uint32_t limit = 7;

	CU_ASSERT_EQUAL(n10.latency, 78140);
	model_new(&m, "eth0");
	qdisc_prio(&m, 0x10000, 3);
	feed(&m, netem_msg(0x300000, 0x10003, &n30));
	feed(&m, netem_msg(0x100000, 0x10001, &n10));
	msg = tcmsg_new(RTM_NEWQDISC, 0x400000, 0x300001, 1, "pfifo");
	nla_put(msg, TCA_OPTIONS, 4, &limit);
	feed(&m, msg);
	feed(&m, netem_msg(0x200000, 0x10002, &n20));
	text = write_ok(&m, 1, &om);
	tc = strstr(text, "eth0:tc[[\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
	tc = strndup(tc, sizeof(netem_expected_tc) - 1);
	CU_ASSERT(same(tc, netem_expected_tc));
	free(tc);
	script = tc_part(text);
	got = shown(script, "eth0", NULL);
	want = shown(netem_original, "eth0", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT(same(got, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "qdisc netem 10: parent 1:1 limit 500 delay 5ms  1ms 25% "
					   "loss 2% 10% reorder 5% 50% corrupt 0.1% rate 1Mbit "
					   "packetoverhead 20 cellsize 48 celloverhead -5 ecn  gap 3"));
	free(got);
	free(want);
	free(script);
	free(text);
	free(om);
	nl_import_model_free(&m);
}

/* What the words cannot say, and what no dump says: a delay in ns that
 * is no whole tick (iproute2 6.9+), the jitter's table, a slot table, ecn
 * without a loss model, reorder at gap 0, a random loss beside a model;
 * the prng seed (6.3+) is a comment. A duplicate correlation alone rides
 * on the delay's CORR (tc 6.1 does not send it with duplicate), and a
 * kernel before 4.15 (no LATENCY64) is read from the qopt. */
static void test_netem_notes(void)
{
	struct netem_vals n10 = {.latency = 78140, .latency64 = 5001000, .jitter = 15625,
				 .limit = 1000, .reorder = pc(5), .ecn = 1, .slot = 1,
				 .slot_dd = 2000000, .slot_dj = 500000, .has_seed = 1,
				 .seed = 0x1234abcd};
	struct netem_vals n20 = {.limit = 1000, .duplicate = pc(10), .dup_corr = pc(25),
				 .loss = pc(3), .model = 2, .m = {pc(1), pc(10), 0, pc(100)},
				 .no64 = 1};
	struct nl_import_model m;
	char *text, *om;

	model_new(&m, "eth0");
	qdisc_prio(&m, 0x10000, 3);
	feed(&m, netem_msg(0x100000, 0x10001, &n10));
	feed(&m, netem_msg(0x200000, 0x10002, &n20));
	text = write_ok(&m, 6, &om);
	CU_ASSERT(same(om, "not reproduced: qdisc netem 10: parent 1:1: delay 5001000 ns is no delay "
			   "tc 6.1 sets (whole microseconds in 64-ns ticks); written 5001us\n"
			   "not reproduced: qdisc netem 10: parent 1:1: the delay distribution (the "
			   "kernel never dumps its table, so uniform, normal, pareto, paretonormal or "
			   "a custom one cannot be told apart): written uniform; add `distribution "
			   "NAME` if it had one\n"
			   "not reproduced: qdisc netem 10: parent 1:1: reorder 214748365/2^32 with "
			   "gap 0 (tc refuses reorder without a delay and sets gap 1 with it; the "
			   "kernel never reorders at gap 0): not written\n"
			   "not reproduced: qdisc netem 10: parent 1:1: the slot distribution (the "
			   "kernel never dumps its table): written `normal`, set yours\n"
			   "not reproduced: qdisc netem 10: parent 1:1: ecn without a loss model (tc "
			   "refuses it; it marks nothing then): not written\n"
			   "not reproduced: qdisc netem 20: parent 1:2: a random loss of 128849019/2^32 "
			   "beside the Gilbert-Elliott loss model (tc says one or the other; the "
			   "kernel uses the model): not written\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "handle 10: netem limit 1000 delay 5001us 1ms slot "
					    "distribution normal 2ms 500us\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  # netem 10: the kernel's prng seed 0x1234abcd; tcsim "
					    "draws from the simulation's --seed instead"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "handle 20: netem limit 1000 delay 0us 0us 0% loss "
					    "gemodel 1% 10% 100% 100% duplicate 10% 25%\n"));
	free(text);
	free(om);
	nl_import_model_free(&m);
}

static void test_netem_malformed(void)
{
	struct netem_vals v = {.limit = 1000};
	struct nl_msg *msg;
	struct nlattr *o;
	uint32_t q[6] = {0, 1000, 0, 0, 0, 0}, c[2] = {0, 0};

	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "netem");
	nla_put(msg, TCA_OPTIONS, 20, q);
	parse_fails(msg, "qdisc netem 1: root: TCA_OPTIONS of 20 bytes, not a struct tc_netem_qopt");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "netem");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nlmsg_append(msg, q, sizeof(q), NLMSG_ALIGNTO);
	nla_put(msg, 1, 8, c);
	nla_nest_end(msg, o);
	parse_fails(msg, "TCA_NETEM_CORR of 8 bytes, not 12");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "netem");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nlmsg_append(msg, q, sizeof(q), NLMSG_ALIGNTO);
	nla_put_u32(msg, 15, 1);
	nla_nest_end(msg, o);
	parse_fails(msg, "unknown attribute 15 in the netem options (TCA_NETEM_*)");
	msg = tcmsg_new(RTM_NEWQDISC, 0x10000, TC_H_ROOT, 1, "netem");
	o = nla_nest_start(msg, TCA_OPTIONS);
	nlmsg_append(msg, q, sizeof(q), NLMSG_ALIGNTO);
	nla_put(msg, 2, 4, c);
	nla_nest_end(msg, o);
	parse_fails(msg, "TCA_NETEM_DELAY_DIST in a dump");
	v.model = 3;
	parse_fails(netem_msg(0x10000, TC_H_ROOT, &v), "unknown loss model 3 in TCA_NETEM_LOSS");
}

/* ---- filters ---- */

static const char cls_expected_tc[] =
    "eth0:tc[[\n"
    "  qdisc add dev eth0 root handle 1: prio bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
    "  qdisc add dev eth0 parent 1:4 handle 40: fq_codel limit 10240 flows 1024 quantum 1514 "
    "target 5ms interval 100ms memory_limit 32mb drop_batch 64 ecn\n"
    "  filter add dev eth0 parent 1: pref 1 protocol ip handle 0x3 matchall skip_hw classid "
    "1:2\n"
    "  filter add dev eth0 parent 1: pref 2 protocol all handle 0x5/0xff fw classid 1:3\n"
    "  filter add dev eth0 parent 1: pref 2 protocol all handle 0x4/0xff fw classid 1:2\n"
    "  # not modelled: filter parent 1: protocol ip pref 3 fw chain 0 handle 0x7: indev "
    "\"eth9\" (tcsim's packets have no input device)\n"
    "  filter add dev eth0 parent 1: pref 3 protocol ip handle 0x4 fw classid 1:1\n"
    "  filter add dev eth0 parent 1: pref 3 protocol ip handle 0x105 fw classid none\n"
    "  filter add dev eth0 parent 1: pref 4 protocol all handle 0x1 matchall classid none\n"
    "  # not modelled: filter parent 1: protocol all pref 5 matchall chain 0 handle 0x1: "
    "actions (tcsim models no tc actions)\n"
    "  # not modelled: filter parent 1: protocol all pref 6 matchall chain 0 handle 0x2: "
    "skip_sw (the filter runs in hardware only)\n"
    "  filter add dev eth0 parent 40: pref 1 protocol ip handle 0x1 matchall classid 40:5\n"
    "]]\n";

static const char cls_original[] =
    "qdisc add dev eth0 root handle 1: prio bands 4\n"
    "qdisc add dev eth0 parent 1:4 handle 40: fq_codel\n"
    "filter add dev eth0 parent 1: pref 1 protocol ip handle 3 matchall skip_hw classid 1:2\n"
    "filter add dev eth0 parent 1: pref 2 protocol all handle 5/0xff fw classid 1:3\n"
    "filter add dev eth0 parent 1: pref 2 protocol all handle 4/0xff fw flowid 1:2\n"
    "filter add dev eth0 parent 1: pref 3 protocol ip handle 4 fw classid 1:1\n"
    "filter add dev eth0 parent 1: pref 3 protocol ip handle 0x105 fw classid none\n"
    "filter add dev eth0 parent 1: pref 4 protocol all matchall classid none\n"
    "filter add dev eth0 parent 40: pref 1 protocol ip matchall classid 40:5\n";

/* matchall and fw filters on a prio root and on fq_codel (which picks the
 * flow): masks, an element without a classid, one bucket holding two
 * elements, and what is listed (indev, actions, skip_sw). */
static void test_filters(void)
{
	struct fqc_vals f40 = {.target = 4999, .limit = 10240, .interval = 99999, .ecn = 1,
			       .quantum = 1514, .drop_batch = 64, .memory = 32u << 20,
			       .flows = 1024, .ce = ~0u};
	struct nl_import_model m;
	char *text, *om, *script, *got, *want, *tc;

	model_new(&m, "eth0");
	qdisc_prio(&m, 0x10000, 4);
	feed(&m, fqc_msg(0x400000, 0x10004, &f40));
	filter_head(&m, "matchall", 0x10000, 1, 0x0800);
	feed(&m, mall_msg(0x10000, 1, 0x0800, 3, 0x10002, CLS_FLAGS_SKIP_HW | CLS_FLAGS_NOT_IN_HW));
	/* fw_walk: bucket by bucket (4, 5), each newest first */
	filter_head(&m, "fw", 0x10000, 2, 0x0003);
	feed(&m, fw_msg(0x10000, 2, 0x0003, 4, 0x10002, 0xff, NULL));
	feed(&m, fw_msg(0x10000, 2, 0x0003, 5, 0x10003, 0xff, NULL));
	/* bucket 4: 0x105 (newer, no classid: no options), then 4; bucket 7 */
	filter_head(&m, "fw", 0x10000, 3, 0x0800);
	feed(&m, fw_msg(0x10000, 3, 0x0800, 0x105, 0, 0xffffffffu, NULL));
	feed(&m, fw_msg(0x10000, 3, 0x0800, 4, 0x10001, 0xffffffffu, NULL));
	feed(&m, fw_msg(0x10000, 3, 0x0800, 7, 0x10001, 0xffffffffu, "eth9"));
	filter_head(&m, "matchall", 0x10000, 4, 0x0003);
	feed(&m, mall_msg(0x10000, 4, 0x0003, 1, NO_CLASSID, CLS_FLAGS_NOT_IN_HW));
	filter_head(&m, "matchall", 0x10000, 5, 0x0003);
	feed(&m, mall_msg(0x10000, 5, 0x0003, 1, 0x10001, CLS_FLAGS_NOT_IN_HW | MALL_ACT));
	filter_head(&m, "matchall", 0x10000, 6, 0x0003);
	feed(&m, mall_msg(0x10000, 6, 0x0003, 2, 0x10001, CLS_FLAGS_SKIP_SW | CLS_FLAGS_IN_HW));
	filter_head(&m, "matchall", 0x400000, 1, 0x0800);
	feed(&m, mall_msg(0x400000, 1, 0x0800, 1, 0x400005, CLS_FLAGS_NOT_IN_HW));
	text = write_ok(&m, 3, &om);
	CU_ASSERT(same(om, "not modelled: filter parent 1: protocol ip pref 3 fw chain 0 handle "
			   "0x7: indev \"eth9\" (tcsim's packets have no input device)\n"
			   "not modelled: filter parent 1: protocol all pref 5 matchall chain 0 "
			   "handle 0x1: actions (tcsim models no tc actions)\n"
			   "not modelled: filter parent 1: protocol all pref 6 matchall chain 0 "
			   "handle 0x2: skip_sw (the filter runs in hardware only)\n"));
	tc = strstr(text, "eth0:tc[[\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
	CU_ASSERT(same(tc = strndup(tc, sizeof(cls_expected_tc) - 1), cls_expected_tc));
	free(tc);
	/* the round trip: the kernel's listing of what was rebuilt (iproute2's
	 * print of mall_dump and fw_dump), and the original commands' */
	script = tc_part(text);
	got = shown(script, "eth0", "filter show dev eth0 parent 40:\n");
	want = shown(cls_original, "eth0", "filter show dev eth0 parent 40:\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT(same(got, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    got, "filter parent 1: protocol ip pref 1 matchall chain 0 \n"
		 "filter parent 1: protocol ip pref 1 matchall chain 0 handle 0x3 flowid 1:2 \n"
		 "  skip_hw\n  not_in_hw\n"
		 "filter parent 1: protocol all pref 2 fw chain 0 \n"
		 "filter parent 1: protocol all pref 2 fw chain 0 handle 0x4/0xff classid 1:2 \n"
		 "filter parent 1: protocol all pref 2 fw chain 0 handle 0x5/0xff classid 1:3 \n"
		 "filter parent 1: protocol ip pref 3 fw chain 0 \n"
		 "filter parent 1: protocol ip pref 3 fw chain 0 \n"
		 "filter parent 1: protocol ip pref 3 fw chain 0 handle 0x4 classid 1:1 \n"
		 "filter parent 1: protocol all pref 4 matchall chain 0 \n"
		 "filter parent 1: protocol all pref 4 matchall chain 0 handle 0x1 \n"
		 "  not_in_hw\n"));
	free(got);
	free(want);
	free(script);
	free(text);
	free(om);
	nl_import_model_free(&m);
}

/* An fw tcf_proto without elements: the old method, written without
 * options; the kernel's dump stops there, which is listed. An fw whose
 * elements have no classid: no mask in the dump, listed. */
static void test_fw_old_method(void)
{
	struct nl_import_model m;
	char *text, *om, *script, *got;

	model_new(&m, "eth0");
	qdisc_prio(&m, 0x10000, 3);
	filter_head(&m, "fw", 0x10000, 1, 0x0800);
	filter_head(&m, "fw", 0x10000, 9, 0x0003);
	feed(&m, fw_msg(0x10000, 9, 0x0003, 6, 0, 0xff, NULL));
	text = write_ok(&m, 2, &om);
	CU_ASSERT(same(om, "not reproduced: filter parent 1: protocol ip pref 1 fw chain 0: an fw "
			   "filter without elements (the old method: the mark is the classid) ends "
			   "the kernel's filter dump of 1: (fw_walk stops there): filters after it, "
			   "if any, are missing\n"
			   "not reproduced: filter parent 1: protocol all pref 9 fw chain 0: no "
			   "element has a classid, so the kernel dumped no mask; written with the "
			   "default 0xffffffff\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  filter add dev eth0 parent 1: pref 1 protocol ip fw\n"
					    "  # not reproduced: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "default 0xffffffff\n"
					    "  filter add dev eth0 parent 1: pref 9 protocol all "
					    "handle 0x6 fw classid none\n"));
	script = tc_part(text);
	got = shown(script, "eth0", NULL);
	CU_ASSERT_PTR_NOT_NULL(got);
	if (got)
		CU_ASSERT(same(got, "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 "
				    "1 1 1 1 1 1 1\n"
				    "filter parent 1: protocol ip pref 1 fw chain 0 \n"));
	free(got);
	free(script);
	free(text);
	free(om);
	nl_import_model_free(&m);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("nl_import_aqm", NULL, NULL);
	CU_add_test(s, "codel times: words that give the kernel's ticks", test_codel_times);
	CU_add_test(s, "codel, fq_codel, pfifo_head_drop under prio", test_aqm_tree);
	CU_add_test(s, "codel/fq_codel/noqueue: what is listed", test_aqm_notes);
	CU_add_test(s, "codel/fq_codel/matchall/fw: malformed", test_aqm_malformed);
	CU_add_test(s, "netem: three under prio, the words and their show", test_netem_tree);
	CU_add_test(s, "netem: what is listed", test_netem_notes);
	CU_add_test(s, "netem: malformed", test_netem_malformed);
	CU_add_test(s, "matchall and fw filters", test_filters);
	CU_add_test(s, "fw: the old method, no mask", test_fw_old_method);
	return unit_run();
}
