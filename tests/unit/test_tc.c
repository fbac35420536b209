/* test_tc.c - the tc front end: script syntax, the seed commit's example,
 * the kernel's rules for qdisc and filter requests, show output byte for
 * byte (fixtures in tests/data/tc, the filter listing and the fifo lines
 * taken from iproute2 6.1 on a real kernel), and every refusal with its
 * one-line message, leaving the device as it was. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"
#include "tc_unit.h"
#include "unit.h"

#define DATA "tests/data/tc"

/* ---- helpers ---- */


/* A script that must succeed; its output. */
static char *ok(struct sim *s, const char *script)
{
	char err[1024] = "";
	int r;
	char *o = tcu_run(s, script, DATA, &r, err, sizeof(err));

	if (r)
		printf("\n  unexpected error: %s\n", err);
	CU_ASSERT_EQUAL(r, 0);
	return o;
}

static int out_is(struct sim *s, const char *script, const char *expect)
{
	char *o = ok(s, script);
	int same = !strcmp(o, expect);

	if (!same)
		printf("\n  %s\n  got:\n%s  expected:\n%s", script, o, expect);
	free(o);
	return same;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int out_is_file(struct sim *s, const char *script, const char *fixture)
{
	char *expect = slurp(fixture);
	int same;

	CU_ASSERT_PTR_NOT_NULL_FATAL(expect);
	same = out_is(s, script, expect);
	free(expect);
	return same;
}

/* Everything tc can show about a device, statistics included. */
static char *state(struct sim *s, const char *dev)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "tc -s qdisc show dev %s invisible\ntc -s class show dev %s\n"
		 "tc filter show dev %s\ntc filter show dev %s parent 10:\n",
		 dev, dev, dev, dev);
	return ok(s, script);
}

static const char seed_setup[] =
    "tc qdisc add dev em1 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n"
    "tc qdisc add dev em1 parent 1:1 handle 10: sfq perturb 16\n"
    "tc qdisc add dev em1 parent 1:2 handle 20: pfifo limit 5\n"
    "tc qdisc add dev em1 parent 1:3 sfq perturb 16\n"
    "tc filter add dev em1 parent 1: bpf run bytecode-file ssh.bpf flowid 1:1\n"
    "tc filter add dev em1 parent 1: pref 10 protocol ip bpf bytecode '1,6 0 0 0' flowid 1:2\n"
    "tc filter add dev em1 parent 10: bpf bytecode '1,6 0 0 4294967295' flowid 10:3\n";

/* ---- script syntax ---- */

static void test_script_syntax(void)
{
	struct sim s;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, "# a comment line\n"
		   "\n"
		   "   tc qdisc add dev eth0 \\\n"
		   "      root handle 1: prio   # a comment after a command\n"
		   "qdisc add dev eth0 parent 1:1 handle 10: \"sfq\" 'perturb' \"1\"'0'\n"
		   "/sbin/tc filter add dev eth0 parent 1: bpf bytecode \"1,6 0 0 4294967295\" "
		   "flowid 1:1\r\n"
		   "\ttc filter add dev eth0 parent 1: bpf bytecode '1,6 0 0 0' \\\r\n"
		   "  classid 1:2 # bytecode '2,'\n"
		   "tc filter add dev eth0 parent 1: bpf bc 1,6\\ 0\\ 0\\ 0 flow\\id 1:3\n"
		   "tc qdisc show dev eth0\n"
		   "tc filter show dev eth0");
	CU_ASSERT_STRING_EQUAL(
	    o, "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
	       "qdisc sfq 10: parent 1:1 limit 127p quantum 1514b depth 127 divisor 1024 perturb "
	       "10sec \n"
	       "filter parent 1: protocol all pref 49150 bpf chain 0 \n"
	       "filter parent 1: protocol all pref 49150 bpf chain 0 handle 0x1 flowid 1:3 "
	       "not_in_hw bytecode '1,6 0 0 0'\n"
	       "filter parent 1: protocol all pref 49151 bpf chain 0 \n"
	       "filter parent 1: protocol all pref 49151 bpf chain 0 handle 0x1 flowid 1:2 "
	       "not_in_hw bytecode '1,6 0 0 0'\n"
	       "filter parent 1: protocol all pref 49152 bpf chain 0 \n"
	       "filter parent 1: protocol all pref 49152 bpf chain 0 handle 0x1 flowid 1:1 "
	       "not_in_hw bytecode '1,6 0 0 4294967295'\n");
	free(o);
	sim_free(&s);
}

/* An empty quoted word is a word; '#' inside a word is not a comment. */
static void test_script_words(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = tcu_run(&s, "tc qdisc add dev eth0 root '' prio", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       "t.tc:1: Unknown qdisc \"\", hence option \"prio\" is unparsable");
	free(o);
	o = tcu_run(&s, "tc qdisc add dev eth0 root pfifo limit 5#6", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "5#6"));
	free(o);
	sim_free(&s);
}

/* Errors name the line a command starts on, and the script stops there. */
static void test_script_error_lines(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = tcu_run(&s, "# line 1\n"
		"tc qdisc add dev em1 root handle 1: prio\n"
		"tc qdisc add dev em1 \\\n"
		"   parent 1:1 handle xyz: sfq\n"
		"tc qdisc add dev em1 parent 1:2 handle 20: sfq\n", DATA,
		&r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.tc:3: Error: argument \"xyz:\" is wrong: invalid qdisc ID");
	free(o);
	CU_ASSERT(out_is(
	    &s, "tc qdisc show dev em1",
	    "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"));
	o = tcu_run(&s, "tc qdisc show dev em1\n\n  tc frob\n", DATA, &r, err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "t.tc:3: Object \"frob\" is unknown, try \"tc help\".");
	free(o);
	sim_free(&s);
}

static void test_script_quote_errors(void)
{
	static const struct {
		const char *script, *err;
	} cases[] = {
	    {"tc qdisc show\ntc filter add dev em1 parent 1: bpf bytecode '1,6 0 0 0\n",
	     "t.tc:2: unterminated ' quote"},
	    {"tc filter add dev em1 parent 1: bpf bytecode \"1,6 0 0 0\n\n",
	     "t.tc:1: unterminated \" quote"},
	    {"tc filter add dev em1 parent 1: bpf bytecode \"`bpfc -f tc -i misc.ops`\" flowid 1:3",
	     "t.tc:1: \"`bpfc\": tcsim runs no shell: only $NAME, ${NAME}, ${NAME:-WORD} and "
	     "${NAME-WORD} are expanded, no command substitution (bpf asm-file F.ops assembles a "
	     "program)"},
	    {"\ntc qdisc add dev $DEV root prio",
	     "t.tc:2: \"$DEV\": a shell variable, which only a tc file run with --var NAME=VALUE "
	     "expands; write the value here"},
	};
	char err[512];
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim s;
		char *o;

		tcu_sim_new(&s, BPF_KERNEL_CURRENT);
		o = tcu_run(&s, cases[i].script, DATA, &r, err, sizeof(err));
		CU_ASSERT_EQUAL(r, -EINVAL);
		if (strcmp(err, cases[i].err))
			printf("\n  case %zu: got: %s\n  expected: %s\n", i, err, cases[i].err);
		CU_ASSERT_STRING_EQUAL(err, cases[i].err);
		free(o);
		CU_ASSERT_EQUAL(s.ndevs, 0); /* nothing ran */
		sim_free(&s);
	}
	/* '$' that a shell keeps, and any '$' in single quotes, are plain */
	{
		struct sim s;
		char *o;

		tcu_sim_new(&s, BPF_KERNEL_CURRENT);
		o = tcu_run(&s, "tc qdisc add dev em1 root pfifo limit $ '$x'", DATA, &r, err, sizeof(err));
		CU_ASSERT_PTR_EQUAL(strstr(err, "t.tc:1: pfifo: Illegal"), err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"$\""));
		free(o);
		sim_free(&s);
	}
}

/* ---- the seed commit's example ---- */

static void test_seed_example(void)
{
	const struct tcf_proto *tp;
	const uint32_t prefs[] = {49149, 49150, 49151, 49152};
	char err[512];
	struct sim s;
	struct dev *d;
	int i = 0;
	FILE *devnull = fopen("/dev/null", "w");

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT_EQUAL(tc_run_file(&s, DATA "/seed.tc", devnull, err, sizeof(err)), 0);
	fclose(devnull);
	d = sim_dev_find(&s, "em1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	/* the chain: ascending pref, the newest automatic pref first */
	for (tp = d->root->chain.head; tp && i < 4; tp = tp->next, i++)
		CU_ASSERT_EQUAL(tp->prio >> 16, prefs[i]);
	CU_ASSERT_EQUAL(i, 4);
	CU_ASSERT_PTR_NULL(tp);
	/* byte for byte what iproute2 6.1 printed for the same filters */
	CU_ASSERT(out_is_file(&s, "tc filter show dev em1", DATA "/seed_filter_show.txt"));
	CU_ASSERT(out_is_file(&s, "tc qdisc show dev em1", DATA "/seed_qdisc_show.txt"));
	CU_ASSERT(out_is_file(&s, "tc class show dev em1", DATA "/seed_class_show.txt"));
	sim_free(&s);
}

static void test_seed_example_3_13(void)
{
	char err[512];
	struct sim s;
	FILE *devnull = fopen("/dev/null", "w");

	tcu_sim_new(&s, BPF_KERNEL_3_13);
	CU_ASSERT_EQUAL(tc_run_file(&s, DATA "/seed.tc", devnull, err, sizeof(err)), 0);
	fclose(devnull);
	/* no TCA_CHAIN, no not_in_hw, the 0x7fffffff handle bug; creation order */
	CU_ASSERT(out_is_file(&s, "tc filter show dev em1", DATA "/seed_filter_show_3.13.txt"));
	CU_ASSERT(out_is_file(&s, "tc qdisc show dev em1", DATA "/seed_qdisc_show_3.13.txt"));
	CU_ASSERT(out_is_file(&s, "tc class show dev em1", DATA "/seed_class_show.txt"));
	sim_free(&s);
}

/* The example's first line, on a device that still has its default root. */
static void test_seed_first_line(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = tcu_run(&s, "tc qdisc del dev em1 root", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_STRING_EQUAL(err,
			       "t.tc:1: RTNETLINK answers: No such file or directory (Cannot "
			       "delete qdisc with handle of zero: root is the default pfifo_fast)");
	free(o);
	sim_free(&s);
}

/* ---- qdiscs ---- */

static void test_auto_handles(void)
{
	struct sim s;

	tcu_sim_new(&s, BPF_KERNEL_3_13);
	CU_ASSERT(out_is(&s,
			 "tc qdisc add dev em1 root prio\n"
			 "tc qdisc add dev em1 parent 8001:1 pfifo\n"
			 "tc qdisc add dev em1 parent 8001:2 handle 8003: pfifo\n"
			 "tc qdisc add dev em1 parent 8001:3 bfifo\n"
			 "tc qdisc add dev em2 root pfifo_fast\n"
			 "tc qdisc show\n",
			 "qdisc prio 8001: dev em1 root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 "
			 "1 1 1 1 1 1 1\n"
			 "qdisc pfifo 8002: dev em1 parent 8001:1 limit 1000p\n"
			 "qdisc pfifo 8003: dev em1 parent 8001:2 limit 1000p\n"
			 "qdisc bfifo 8004: dev em1 parent 8001:3 limit 1514000b\n"
			 "qdisc pfifo_fast 8005: dev em2 root refcnt 2 bands 3 priomap 1 2 2 2 1 2 "
			 "0 0 1 1 1 1 1 1 1 1\n"));
	sim_free(&s);
}

/* Current kernels dump the qdisc hash: bucket hash_32(handle, 4), each
 * bucket newest first; 3.13 its creation-ordered list. */
static void test_dump_order(void)
{
	static const char script[] = "tc qdisc add dev em1 root handle 1: prio bands 4\n"
				     "tc qdisc add dev em1 parent 1:1 handle 10: pfifo\n"
				     "tc qdisc add dev em1 parent 1:2 handle 20: pfifo\n"
				     "tc qdisc add dev em1 parent 1:3 handle 30: pfifo\n"
				     "tc qdisc show dev em1\n";
	struct sim s;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT(
	    out_is(&s, script,
		   "qdisc prio 1: root refcnt 2 bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   "qdisc pfifo 30: parent 1:3 limit 1000p\n"
		   "qdisc pfifo 10: parent 1:1 limit 1000p\n"
		   "qdisc pfifo 20: parent 1:2 limit 1000p\n"));
	sim_free(&s);
	tcu_sim_new(&s, BPF_KERNEL_3_13);
	CU_ASSERT(
	    out_is(&s, script,
		   "qdisc prio 1: root refcnt 2 bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   "qdisc pfifo 10: parent 1:1 limit 1000p\n"
		   "qdisc pfifo 20: parent 1:2 limit 1000p\n"
		   "qdisc pfifo 30: parent 1:3 limit 1000p\n"));
	sim_free(&s);
}

/* The child lines as iproute2 6.1 printed them on a real kernel (under an
 * htb root there; prio is not built into that kernel). */
static void test_fifo_children(void)
{
	static const char script[] =
	    "tc qdisc add dev em2 root handle 1: prio\n"
	    "tc qdisc add dev em2 parent 1:2 handle 20: pfifo limit 5\n"
	    "tc qdisc add dev em2 parent 1:3 handle 30: bfifo limit 10kb\n";
	struct sim s;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, script);
	free(o);
	CU_ASSERT(out_is_file(&s, "tc qdisc show dev em2", DATA "/children_show.txt"));
	CU_ASSERT(out_is_file(&s, "tc qdisc show dev em2 invisible",
			      DATA "/children_show_invisible.txt"));
	CU_ASSERT(out_is(&s, "tc -s qdisc show dev em2 parent 1:3",
			 "qdisc bfifo 30: parent 1:3 limit 10Kb\n"
			 " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
			 " backlog 0b 0p requeues 0\n"));
	CU_ASSERT(out_is(
	    &s, "tc qdisc show dev em2 handle 20:", "qdisc pfifo 20: parent 1:2 limit 5p\n"));
	CU_ASSERT(out_is(&s, "tc qdisc show dev em2 parent 1:1", ""));
	CU_ASSERT(out_is(
	    &s, "tc qdisc show dev em2 root",
	    "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"));
	CU_ASSERT(out_is(&s, "tc class show dev em2",
			 "class prio 1:1 parent 1: \n"
			 "class prio 1:2 parent 1: leaf 20: \n"
			 "class prio 1:3 parent 1: leaf 30: \n"));
	CU_ASSERT(out_is(&s, "tc class show dev em2 classid 1:2",
			 "class prio 1:2 parent 1: leaf 20: \n"));
	CU_ASSERT(out_is(&s, "tc class show dev em2 root", ""));
	sim_free(&s);
}

static void test_del_root_and_child(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT(
	    out_is(&s,
		   "tc qdisc add dev em1 root handle 1: prio\n"
		   "tc qdisc add dev em1 parent 1:2 handle 20: pfifo limit 5\n"
		   "tc qdisc del dev em1 parent 1:2\n"
		   "tc qdisc show dev em1\n"
		   "tc qdisc show dev em1 parent 1:2 invisible\n"
		   "tc class show dev em1\n",
		   "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   "qdisc pfifo 0: parent 1:2 limit 1000p\n"
		   "class prio 1:1 parent 1: \n"
		   "class prio 1:2 parent 1: \n"
		   "class prio 1:3 parent 1: \n"));
	o = tcu_run(&s, "tc qdisc del dev em1 parent 1:2", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "t.tc:1: RTNETLINK answers: No such file or directory (Cannot "
				    "delete qdisc with handle of zero: 1:2 is the default pfifo)");
	free(o);
	CU_ASSERT(out_is(
	    &s, "tc qdisc del dev em1 root handle 1: prio\ntc qdisc show dev em1",
	    "qdisc pfifo_fast 0: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"));
	sim_free(&s);

	/* 3.13 puts noop in the class: built in, never listed */
	tcu_sim_new(&s, BPF_KERNEL_3_13);
	CU_ASSERT(out_is(
	    &s,
	    "tc qdisc add dev em1 root handle 1: prio\n"
	    "tc qdisc add dev em1 parent 1:2 handle 20: pfifo limit 5\n"
	    "tc qdisc del dev em1 parent 1:2 handle 20:\n"
	    "tc qdisc show dev em1 invisible\n",
	    "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"));
	sim_free(&s);
}

/* add, replace, change and link as tc_modify_qdisc sorts them. */
static void test_replace_and_change(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT(
	    out_is(&s,
		   "tc qdisc replace dev em1 root handle 1: prio\n"
		   "tc qdisc replace dev em1 root handle 1: prio bands 4 priomap 3 3\n"
		   "tc qdisc add dev em1 parent 1:4 pfifo limit 9\n"
		   "tc qdisc change dev em1 parent 1:4 pfifo limit 7\n" /* changes it */
		   "tc qdisc replace dev em1 parent 1:4 bfifo\n"	/* replaces it */
		   "tc qdisc add dev em1 parent 1:1 sfq\n"
		   "tc qdisc add dev em1 parent 1:2 handle 20: sfq\n"
		   "tc qdisc change dev em1 parent 1:2 sfq\n" /* no options: nothing to do */
		   "tc qdisc show dev em1\n",
		   "qdisc prio 1: root refcnt 2 bands 4 priomap 3 3 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   "qdisc sfq 8003: parent 1:1 limit 127p quantum 1514b depth 127 divisor 1024 \n"
		   "qdisc bfifo 8002: parent 1:4 limit 1514000b\n"
		   "qdisc sfq 20: parent 1:2 limit 127p quantum 1514b depth 127 divisor 1024 \n"));
	o = tcu_run(&s, "tc qdisc change dev em1 parent 1:2 sfq perturb 10", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.tc:1: RTNETLINK answers: Invalid argument (Change operation "
				    "not supported by specified qdisc: sfq)");
	free(o);
	o = tcu_run(&s, "tc qdisc change dev em2 root prio", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_STRING_EQUAL(err,
			       "t.tc:1: RTNETLINK answers: No such file or directory (Qdisc not "
			       "found. To create specify NLM_F_CREATE flag: nothing at root)");
	free(o);
	/* a different kind where one is: add replaces it on current kernels */
	CU_ASSERT(out_is(
	    &s, "tc qdisc add dev em1 parent 1:4 pfifo limit 3\ntc qdisc show dev em1 parent 1:4",
	    "qdisc pfifo 8004: parent 1:4 limit 3p\n"));
	sim_free(&s);

	/* 3.13: only replace swaps kinds */
	tcu_sim_new(&s, BPF_KERNEL_3_13);
	o = ok(&s,
	       "tc qdisc add dev em1 root handle 1: prio\ntc qdisc add dev em1 parent 1:1 pfifo");
	free(o);
	o = tcu_run(&s, "tc qdisc add dev em1 parent 1:1 bfifo", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EEXIST);
	CU_ASSERT_STRING_EQUAL(err, "t.tc:1: RTNETLINK answers: File exists (Exclusivity flag on, "
				    "cannot modify: pfifo 8001: exists)");
	free(o);
	o = tcu_run(&s, "tc qdisc change dev em1 parent 1:1 bfifo", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       "t.tc:1: RTNETLINK answers: Invalid argument (Invalid qdisc name: "
			       "must match existing qdisc: 8001: is pfifo)");
	free(o);
	CU_ASSERT(out_is(
	    &s, "tc qdisc replace dev em1 parent 1:1 bfifo\ntc qdisc show dev em1 parent 1:1",
	    "qdisc bfifo 8002: parent 1:1 limit 1514000b\n"));
	sim_free(&s);
}

/* ---- statistics ---- */

static void enqueue(struct dev *d, uint32_t priority, uint32_t len)
{
	uint8_t frame[1514] = {0};
	struct pkt *p;

	frame[12] = 0x08; /* IPv4 */
	p = pkt_new(frame, len, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->priority = priority;
	d->root->ops->enqueue(d->root, p);
}

static void test_stats(void)
{
	static const char script[] = "tc qdisc add dev em1 root handle 1: prio\n"
				     "tc qdisc add dev em1 parent 1:3 handle 30: pfifo limit 1\n";
	struct sim s;
	struct dev *d;
	struct pkt *p;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, script);
	free(o);
	d = sim_dev_find(&s, "em1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	enqueue(d, 0x10001, 100);
	enqueue(d, 0x10001, 200);
	enqueue(d, 0x10003, 300);
	enqueue(d, 0x10003, 400); /* over the limit of 30: */
	p = d->root->ops->dequeue(d->root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	pkt_free(p);
	CU_ASSERT(
	    out_is(&s, "tc -s qdisc show dev em1",
		   "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   " Sent 100 bytes 1 pkt (dropped 1, overlimits 0 requeues 0) \n"
		   " backlog 500b 2p requeues 0\n"
		   "qdisc pfifo 30: parent 1:3 limit 1p\n"
		   " Sent 0 bytes 0 pkt (dropped 1, overlimits 0 requeues 0) \n"
		   " backlog 300b 1p requeues 0\n"));
	CU_ASSERT(out_is(&s, "tc -s class show dev em1",
			 "class prio 1:1 parent 1: \n"
			 " Sent 100 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n"
			 " backlog 200b 1p requeues 0\n"
			 "class prio 1:2 parent 1: \n"
			 " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
			 " backlog 0b 0p requeues 0\n"
			 "class prio 1:3 parent 1: leaf 30: \n"
			 " Sent 0 bytes 0 pkt (dropped 1, overlimits 0 requeues 0) \n"
			 " backlog 300b 1p requeues 0\n"));
	sim_free(&s);

	/* 3.13's prio keeps no byte backlog */
	tcu_sim_new(&s, BPF_KERNEL_3_13);
	o = ok(&s, script);
	free(o);
	d = sim_dev_find(&s, "em1");
	enqueue(d, 0x10001, 100);
	CU_ASSERT(
	    out_is(&s, "tc -s qdisc show dev em1 root",
		   "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		   " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
		   " backlog 0b 1p requeues 0\n"));
	sim_free(&s);
}

/* An sfq bucket has no basic statistics and an allot. */
static void test_sfq_class_stats(void)
{
	static const char stats[] = " (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 1000b 1p requeues 0\n"
				    "  allot ";
	struct sim s;
	struct dev *d;
	char *o, *line;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, "tc qdisc add dev em1 root handle 1: sfq");
	free(o);
	d = sim_dev_find(&s, "em1");
	enqueue(d, 0, 1000);
	o = ok(&s, "tc -s class show dev em1");
	/* the allot value is the classifier's business (bytes or 8-byte units) */
	CU_ASSERT_NSTRING_EQUAL(strchr(o, '\n') ? strchr(o, '\n') + 1 : "", stats, strlen(stats));
	line = strstr(o, "class sfq 1:");
	CU_ASSERT_PTR_EQUAL(line, o);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, " parent 1: \n"));
	free(o);
	sim_free(&s);
}

/* ---- filters ---- */

static void test_filter_prefs(void)
{
	struct sim s;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT(out_is(
	    &s,
	    "tc qdisc add dev em1 root handle 1: prio\n"
	    "tc filter add dev em1 parent 1: pref 50000 bpf bytecode '1,6 0 0 0' flowid 1:1\n"
	    "tc filter add dev em1 parent 1: prio 7 protocol ip bpf bytecode '1,6 0 0 0' flowid "
	    "1:2\n"
	    "tc filter add dev em1 parent 1:0 bpf bytecode '1,6 0 0 0' flowid 1:3\n"
	    "tc filter add dev em1 bpf bytecode '1,6 0 0 0' classid 2\n"
	    "tc filter show dev em1\n",
	    "filter parent 1: protocol ip pref 7 bpf chain 0 \n"
	    "filter parent 1: protocol ip pref 7 bpf chain 0 handle 0x1 flowid 1:2 not_in_hw "
	    "bytecode '1,6 0 0 0'\n"
	    "filter parent 1: protocol all pref 49998 bpf chain 0 \n"
	    "filter parent 1: protocol all pref 49998 bpf chain 0 handle 0x1 flowid :2 not_in_hw "
	    "bytecode '1,6 0 0 0'\n"
	    "filter parent 1: protocol all pref 49999 bpf chain 0 \n"
	    "filter parent 1: protocol all pref 49999 bpf chain 0 handle 0x1 flowid 1:3 not_in_hw "
	    "bytecode '1,6 0 0 0'\n"
	    "filter parent 1: protocol all pref 50000 bpf chain 0 \n"
	    "filter parent 1: protocol all pref 50000 bpf chain 0 handle 0x1 flowid 1:1 not_in_hw "
	    "bytecode '1,6 0 0 0'\n"));
	sim_free(&s);
}

/* What tc filter show leaves out when it was asked for it (verified
 * against iproute2 6.1). */
static void test_filter_show_selection(void)
{
	struct sim s;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, seed_setup);
	free(o);
	o = ok(&s, "tc filter add dev em1 parent 1: protocol 0x1234 pref 5 bpf bytecode '1,6 0 0 "
		   "0' classid 1:1\n"
		   "tc filter add dev em1 parent 1: protocol ipv6 pref 6 bpf bytecode '1,6 0 0 0' "
		   "classid :2\n");
	free(o);
	CU_ASSERT(out_is(&s, "tc filter show dev em1 pref 5",
			 "filter parent 1: protocol [4660] bpf chain 0 \n"
			 "filter parent 1: protocol [4660] bpf chain 0 handle 0x1 flowid 1:1 "
			 "not_in_hw bytecode '1,6 0 0 0'\n"));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 protocol ipv6",
			 "filter parent 1: pref 6 bpf chain 0 \n"
			 "filter parent 1: pref 6 bpf chain 0 handle 0x1 flowid :2 not_in_hw "
			 "bytecode '1,6 0 0 0'\n"));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 parent 1:0 pref 10",
			 "filter protocol ip bpf chain 0 \n"
			 "filter protocol ip bpf chain 0 handle 0x1 flowid 1:2 not_in_hw bytecode "
			 "'1,6 0 0 0'\n"));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 chain 0 pref 10",
			 "filter parent 1: protocol ip bpf \n"
			 "filter parent 1: protocol ip bpf handle 0x1 flowid 1:2 not_in_hw "
			 "bytecode '1,6 0 0 0'\n"));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 parent 10:",
			 "filter protocol all pref 49152 bpf chain 0 \n"
			 "filter protocol all pref 49152 bpf chain 0 handle 0x1 flowid 10:3 "
			 "not_in_hw bytecode '1,6 0 0 4294967295'\n"));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 root", ""));
	CU_ASSERT(out_is(&s, "tc filter show dev em1 parent 1:1", ""));
	CU_ASSERT(out_is(&s, "tc filter show", ""));
	sim_free(&s);
}

static void test_filter_replace_and_delete(void)
{
	struct sim s;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT(
	    out_is(&s,
		   "tc qdisc add dev em1 root handle 1: prio\n"
		   "tc filter add dev em1 parent 1: pref 10 protocol ip handle 1 bpf bytecode '1,6 "
		   "0 0 0' classid 1:1\n"
		   "tc filter add dev em1 parent 1: pref 10 protocol ip handle 5 bpf bytecode '1,6 "
		   "0 0 0' classid 1:3\n"
		   "tc filter replace dev em1 parent 1: pref 10 protocol ip handle 1 bpf bytecode "
		   "'1,6 0 0 4294967295' classid 1:2\n"
		   "tc filter change dev em1 parent 1: pref 10 handle 5 bpf bytecode '1,6 0 0 1'\n"
		   "tc filter add dev em1 parent 1: bpf bytecode '1,6 0 0 0' classid 1:1\n"
		   "tc filter add dev em1 parent 1: bpf bytecode '1,6 0 0 0' classid 1:1\n"
		   "tc filter del dev em1 parent 1: pref 49151\n"
		   "tc filter del dev em1 parent 1: pref 10 handle 1 bpf\n"
		   "tc filter show dev em1\n",
		   "filter parent 1: protocol ip pref 10 bpf chain 0 \n"
		   "filter parent 1: protocol ip pref 10 bpf chain 0 handle 0x5 not_in_hw bytecode "
		   "'1,6 0 0 1'\n"
		   "filter parent 1: protocol all pref 49152 bpf chain 0 \n"
		   "filter parent 1: protocol all pref 49152 bpf chain 0 handle 0x1 flowid 1:1 "
		   "not_in_hw bytecode '1,6 0 0 0'\n"));
	CU_ASSERT(out_is(&s, "tc filter delete dev em1\ntc filter show dev em1", ""));
	sim_free(&s);
}

/* bytecode-file names in a script start at its folder. */
static void test_basedir(void)
{
	struct sim s;
	char err[512];
	int r;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	r = tc_run_script(&s,
			  "tc qdisc add dev em1 root handle 1: prio\n"
			  "tc filter add dev em1 parent 1: bpf bytecode-file icmp.bpf flowid 1:1\n",
			  "here.tc", NULL, NULL, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_PTR_EQUAL(strstr(err, "here.tc:2: bpf: "), err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "icmp.bpf"));
	r = tc_run_script(&s, "tc filter add dev em1 parent 1: bpf bcf icmp.bpf flowid 1:1\n",
			  "there.tc", DATA, NULL, err, sizeof(err));
	CU_ASSERT_EQUAL(r, 0);
	r = tc_run_file(&s, DATA "/nonexistent.tc", NULL, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, DATA "/nonexistent.tc: cannot open: No such file or directory");
	sim_free(&s);
}

/* ---- refusals ---- */

/* Each command fails with exactly this message (a trailing '*' means the
 * message starts so; the rest is the classifier's) and changes nothing. */
static const struct {
	const char *cmd, *err;
	int code;
} refusals[] = {
    /* tc's command line */
    {"tc qdisk show", "Object \"qdisk\" is unknown, try \"tc help\".", -EINVAL},
    {"tc -x qdisc", "Option \"-x\" is unknown, try \"tc -help\".", -EINVAL},
    {"tc -g class show", "tcsim: tc option \"-g\" is not modelled", -EOPNOTSUPP},
    {"tc", "Usage: tc [ OPTIONS ] OBJECT { COMMAND | help }", -EINVAL},
    {"tc qdisc frob dev em1", "Command \"frob\" is unknown, try \"tc qdisc help\".", -EINVAL},
    {"tc filter frob dev em1", "Command \"frob\" is unknown, try \"tc filter help\".", -EINVAL},
    {"tc qdisc show dev em1 frob", "What is \"frob\"? Try \"tc qdisc help\".", -EINVAL},
    {"tc filter show dev em1 frob", " What is \"frob\"? Try \"tc filter help\"", -EINVAL},
    {"tc class show dev em1 frob", "What is \"frob\"? Try \"tc class help\".", -EINVAL},
    {"tc qdisc show dev nosuch", "Cannot find device \"nosuch\"", -ENODEV},
    {"tc qdisc add dev em1 root handle 1: handle 2: prio",
     "Error: duplicate \"handle\": \"handle\" is the second value.", -EINVAL},
    {"tc qdisc add dev em1 root root prio", "Error: \"root\" is duplicate parent ID", -EINVAL},
    {"tc qdisc add dev em1 parent 1:1 parent 1:2 sfq",
     "Error: duplicate \"parent\": \"1:2\" is the second value.", -EINVAL},
    {"tc qdisc add dev em1 dev em2 root prio",
     "Error: duplicate \"dev\": \"em2\" is the second value.", -EINVAL},
    {"tc qdisc add dev em1 parent", "Command line is not complete. Try option \"help\"", -EINVAL},
    {"tc qdisc add dev em1 root estimator 1s 8s prio", "tcsim: \"estimator\" is not modelled",
     -EOPNOTSUPP},
    {"tc qdisc add dev em1 ingress",
     "qdisc \"ingress\" is not modelled by tcsim (modelled: prio, sfq, pfifo, bfifo, pfifo_fast, htb, tbf, codel, fq_codel, netem, noqueue, pfifo_head_drop)",
     -EOPNOTSUPP},
    {"tc class add dev em1 parent 1: classid 1:9 prio",
     "tcsim: \"tc class add\" is not modelled (prio and sfq classes have no parameters)",
     -EOPNOTSUPP},
    /* bad handles and parents */
    {"tc qdisc add dev em1 root handle xyz: prio",
     "Error: argument \"xyz:\" is wrong: invalid qdisc ID", -EINVAL},
    {"tc qdisc add dev em1 root handle 10000: prio",
     "Error: argument \"10000:\" is wrong: invalid qdisc ID", -EINVAL},
    {"tc qdisc add dev em1 parent 1:x sfq", "Error: argument \"1:x\" is wrong: invalid parent ID",
     -EINVAL},
    {"tc qdisc add dev em1 parent 9:1 sfq",
     "RTNETLINK answers: No such file or directory (Failed to find specified qdisc: parent 9:1)",
     -ENOENT},
    {"tc qdisc add dev em1 parent 1:9 sfq",
     "RTNETLINK answers: No such file or directory (Specified class not found: 1:9)", -ENOENT},
    {"tc qdisc add dev em1 parent 20:1 sfq",
     "RTNETLINK answers: Operation not supported (Parent qdisc is not classful: pfifo 20:)",
     -EOPNOTSUPP},
    {"tc qdisc add dev em1 parent 10:1 sfq",
     "RTNETLINK answers: No such file or directory (Specified class not found: 10:1)", -ENOENT},
    {"tc qdisc add dev em1 handle 30: sfq",
     "RTNETLINK answers: No such file or directory (Specified qdisc not found: handle 30:)",
     -ENOENT},
    {"tc qdisc add dev em1 sfq",
     "RTNETLINK answers: Invalid argument (Handle cannot be zero: neither root nor parent given)",
     -EINVAL},
    {"tc qdisc add root prio",
     "RTNETLINK answers: No such device (no device given: dev NAME is missing)", -ENODEV},
    /* unknown kinds */
    {"tc qdisc add dev em1 parent 1:3 hfsc default 1",
     "qdisc \"hfsc\" is not modelled by tcsim (modelled: prio, sfq, pfifo, bfifo, pfifo_fast, htb, tbf, codel, fq_codel, netem, noqueue, pfifo_head_drop)",
     -EOPNOTSUPP},
    {"tc qdisc add dev em1 clsact",
     "qdisc \"clsact\" is not modelled by tcsim (modelled: prio, sfq, pfifo, bfifo, pfifo_fast, htb, tbf, codel, fq_codel, netem, noqueue, pfifo_head_drop)",
     -EOPNOTSUPP},
    {"tc qdisc add dev em1 parent 1:3 hbt default 1",
     "Unknown qdisc \"hbt\", hence option \"default\" is unparsable", -EINVAL},
    {"tc qdisc add dev em1 parent 1:3 foo",
     "RTNETLINK answers: No such file or directory (Specified qdisc kind is unknown: \"foo\")",
     -ENOENT},
    {"tc qdisc add dev em1 parent 1:3 noop",
     "RTNETLINK answers: No such file or directory (Specified qdisc kind is unknown: \"noop\")",
     -ENOENT},
    {"tc qdisc add dev em1 root pfifo_fast bands 3",
     "qdisc 'pfifo_fast' does not support option parsing", -EINVAL},
    /* adding twice, and the kernel's other refusals */
    {"tc qdisc add dev em1 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
     "RTNETLINK answers: File exists (Exclusivity flag on, cannot modify: prio 1: exists)",
     -EEXIST},
    {"tc qdisc add dev em1 root prio",
     "RTNETLINK answers: File exists (Exclusivity flag on, cannot modify: prio 1: exists)",
     -EEXIST},
    {"tc qdisc add dev em1 root handle 2: prio",
     "RTNETLINK answers: File exists (NLM_F_REPLACE needed to override: prio 1: is at root)",
     -EEXIST},
    {"tc qdisc add dev em1 parent 1:1 handle 10: sfq perturb 16",
     "RTNETLINK answers: File exists (Exclusivity flag on, cannot modify: sfq 10: exists)",
     -EEXIST},
    {"tc qdisc add dev em1 parent 1:1 handle 11: sfq",
     "RTNETLINK answers: File exists (NLM_F_REPLACE needed to override: sfq 10: is at 1:1)",
     -EEXIST},
    {"tc qdisc replace dev em1 parent 1:2 handle 10: sfq",
     "RTNETLINK answers: Invalid argument (Cannot move an existing qdisc to a different parent: "
     "10: "
     "is at 1:1)",
     -EINVAL},
    {"tc qdisc replace dev em1 parent 1:2 handle 20: sfq",
     "RTNETLINK answers: Invalid argument (Invalid qdisc name: must match existing qdisc: 20: is "
     "pfifo)",
     -EINVAL},
    {"tc qdisc replace dev em1 parent 1:3 handle 1: prio",
     "RTNETLINK answers: Too many levels of symbolic links (Qdisc parent/child loop detected: "
     "handle 1:)",
     -ELOOP},
    {"tc qdisc change dev em1 parent 1:3 handle 1: prio",
     "RTNETLINK answers: File exists (NLM_F_REPLACE needed to override: sfq 8001: is at 1:3)",
     -EEXIST},
    {"tc qdisc change dev em1 parent 1:1 sfq perturb 10",
     "RTNETLINK answers: Invalid argument (Change operation not supported by specified qdisc: sfq)",
     -EINVAL},
    {"tc qdisc del dev em1 parent 1:1 handle 11:",
     "RTNETLINK answers: Invalid argument (Invalid handle: 1:1 holds 10:, not 11:)", -EINVAL},
    {"tc qdisc del dev em1 parent 1:1 pfifo",
     "RTNETLINK answers: Invalid argument (Invalid qdisc name: must match existing qdisc: 10: is "
     "sfq)",
     -EINVAL},
    {"tc qdisc del dev em1 handle 1:",
     "RTNETLINK answers: Invalid argument (Classid cannot be zero: give root or parent)", -EINVAL},
    {"tc qdisc del dev em1 handle 7:",
     "RTNETLINK answers: No such file or directory (Failed to find qdisc with specified handle: "
     "7:)",
     -ENOENT},
    {"tc qdisc del dev em1 parent 7:1",
     "RTNETLINK answers: No such file or directory (Failed to find qdisc with specified classid: "
     "parent 7:1)",
     -ENOENT},
    /* the kind's own refusal, when the kernel gets to create it */
    {"tc qdisc add dev em1 parent 1:1 prio bands 1", "RTNETLINK answers: Invalid argument (*",
     -EINVAL},
    {"tc qdisc add dev em1 parent 1:1 prio frob", "prio: *", -EINVAL},
    /* filters: command line */
    {"tc filter add dev em1 parent 1: pref 65536 bpf bytecode '1,6 0 0 0' flowid 1:1",
     "Error: argument \"65536\" is wrong: invalid priority value", -EINVAL},
    {"tc filter add dev em1 parent 1: preference 0x10000 bpf bytecode '1,6 0 0 0' flowid 1:1",
     "Error: argument \"0x10000\" is wrong: invalid priority value", -EINVAL},
    {"tc filter add dev em1 parent 1: pr -1 bpf bytecode '1,6 0 0 0' flowid 1:1",
     "Error: argument \"-1\" is wrong: invalid priority value", -EINVAL},
    {"tc filter add dev em1 parent 1: pref 7 pref 8 bpf bytecode '1,6 0 0 0'",
     "Error: duplicate \"priority\": \"8\" is the second value.", -EINVAL},
    {"tc filter add dev em1 parent 1: proto foo bpf bytecode '1,6 0 0 0'",
     "Error: argument \"foo\" is wrong: invalid protocol", -EINVAL},
    {"tc filter add dev em1 parent 1:x bpf bytecode '1,6 0 0 0'",
     "Error: argument \"1:x\" is wrong: Invalid parent ID", -EINVAL},
    {"tc filter add dev em1 parent 1: handle xyz bpf bytecode '1,6 0 0 0'", "Illegal \"handle\"",
     -EINVAL},
    {"tc filter add dev em1 parent 1: handle 3", "Must specify filter type when using \"handle\"",
     -EINVAL},
    {"tc filter add dev em1 parent 1: route to 2 classid 1:2",
     "filter \"route\" is not modelled by tcsim (modelled: bpf, u32, matchall, fw, flower, basic)",
     -EOPNOTSUPP},
    {"tc filter add dev em1 parent 1: u23 match ip dport 22 0xffff",
     "Unknown filter \"u23\", hence option \"match\" is unparsable", -EINVAL},
    {"tc filter add dev em1 parent 1: chain 1 bpf bytecode '1,6 0 0 0'",
     "tcsim: \"chain 1\" is not modelled (chain 0 only)", -EOPNOTSUPP},
    /* filters: the kernel */
    {"tc filter add dev em1 parent 1: xyz",
     "RTNETLINK answers: No such file or directory (TC classifier not found: \"xyz\")", -ENOENT},
    {"tc filter add dev em1 parent 1: pref 10 xyz",
     "RTNETLINK answers: Invalid argument (Specified filter kind does not match existing one: pref "
     "10 "
     "is bpf)",
     -EINVAL},
    {"tc filter add dev em1 parent 7: bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: Invalid argument (Parent Qdisc doesn't exists: parent 7:)", -EINVAL},
    {"tc filter add dev em1 root bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: Invalid argument (Parent Qdisc doesn't exists: parent root)", -EINVAL},
    {"tc filter add dev em1 parent 20: bpf bytecode '1,6 0 0 0' flowid 1:1",
     "RTNETLINK answers: Invalid argument (Qdisc not classful: pfifo 20:)", -EINVAL},
    {"tc filter add dev em1 parent 1:1 bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: Invalid argument (Unable to find the block of a class: prio filters "
     "attach "
     "to the qdisc 1:, not to class 1:1)",
     -EINVAL},
    {"tc filter add dev em1 parent 1:7 bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: No such file or directory (Specified class doesn't exist: 1:7)", -ENOENT},
    {"tc filter add dev em1 parent 10:3 bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: No such file or directory (Specified class doesn't exist: 10:3)", -ENOENT},
    {"tc filter del dev em1 parent 1: pref 99",
     "RTNETLINK answers: No such file or directory (Filter with specified priority/protocol not "
     "found: pref 99)",
     -ENOENT},
    {"tc filter del dev em1 parent 1: pref 10 protocol arp",
     "RTNETLINK answers: Invalid argument (Protocol mismatch for filter with specified priority: "
     "pref "
     "10)",
     -EINVAL},
    {"tc filter del dev em1 parent 1: pref 10 xyz",
     "RTNETLINK answers: Invalid argument (Specified filter kind does not match existing one: pref "
     "10 "
     "is bpf)",
     -EINVAL},
    {"tc filter del dev em1 parent 1: handle 1 bpf",
     "RTNETLINK answers: No such file or directory (Cannot flush filters with protocol, handle or "
     "kind "
     "set: give a pref)",
     -ENOENT},
    {"tc filter del dev em1 parent 1: protocol ip",
     "RTNETLINK answers: No such file or directory (Cannot flush filters with protocol, handle or "
     "kind "
     "set: give a pref)",
     -ENOENT},
    /* filters: what the classifier refuses, named by file:line */
    {"tc filter add dev em1 parent 1: bpf bytecode '2,6 0 0 0' flowid 1:1", "bpf: *", -EINVAL},
    {"tc filter add dev em1 parent 1: bpf bytecode '1,21 0 0 0' flowid 1:1",
     "RTNETLINK answers: Invalid argument (*", -EINVAL},
    {"tc filter add dev em1 parent 1: bpf bytecode-file nonexistent.bpf flowid 1:1", "bpf: *",
     -ENOENT},
    {"tc filter add dev em1 parent 1: bpf bytecode '1,6 0 0 0' flowid zz", "bpf: *", -EINVAL},
    {"tc filter add dev em1 parent 1: bpf", "bpf: *", -EINVAL},
    {"tc filter add dev em1 parent 1: pref 10 protocol ip handle 1 bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: File exists*", -EEXIST},
    {"tc filter add dev em1 parent 1: pref 10 bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: Invalid argument*", -EINVAL},
    {"tc filter change dev em1 parent 1: bpf bytecode '1,6 0 0 0'",
     "RTNETLINK answers: No such file or directory*", -ENOENT},
    {"tc filter del dev em1 parent 1: pref 10 handle 9 bpf",
     "RTNETLINK answers: No such file or directory*", -ENOENT},
};

static void test_refusals(void)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const char *want = refusals[i].err;
		size_t n = strlen(want);
		int prefix = n && want[n - 1] == '*';
		char err[1024], expect[1024];
		struct sim s;
		char *before, *after, *o;
		int r;

		tcu_sim_new(&s, BPF_KERNEL_CURRENT);
		o = ok(&s, seed_setup);
		free(o);
		before = state(&s, "em1");
		o = tcu_run(&s, refusals[i].cmd, DATA, &r, err, sizeof(err));
		free(o);
		snprintf(expect, sizeof(expect), "t.tc:1: %.*s", (int)(prefix ? n - 1 : n), want);
		if (r != refusals[i].code ||
		    (prefix ? strncmp(err, expect, strlen(expect)) : strcmp(err, expect)))
			printf("\n  %s\n  got %d: %s\n  expected %d: %s%s\n", refusals[i].cmd, r,
			       err, refusals[i].code, expect, prefix ? "..." : "");
		CU_ASSERT_EQUAL(r, refusals[i].code);
		if (prefix) {
			CU_ASSERT_NSTRING_EQUAL(err, expect, strlen(expect));
		} else {
			CU_ASSERT_STRING_EQUAL(err, expect);
		}
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
		after = state(&s, "em1");
		CU_ASSERT_STRING_EQUAL(after, before);
		free(before);
		free(after);
		sim_free(&s);
	}
}

/* Show commands do not create devices; the others do. */
static void test_devices(void)
{
	struct sim s;
	char err[512];
	int r;
	char *o;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = tcu_run(&s, "tc filter show dev em9", DATA, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -ENODEV);
	CU_ASSERT_STRING_EQUAL(err, "t.tc:1: Cannot find device \"em9\"");
	free(o);
	CU_ASSERT_EQUAL(s.ndevs, 0);
	CU_ASSERT(out_is(&s, "tc qdisc add dev em9 root pfifo limit 10\ntc qdisc\n",
			 "qdisc pfifo 8001: dev em9 root refcnt 2 limit 10p\n"));
	CU_ASSERT_EQUAL(s.ndevs, 1);
	o = tcu_run(&s, "tc qdisc add dev a-name-far-too-long root prio", DATA, &r, err, sizeof(err));
	CU_ASSERT_NOT_EQUAL(r, 0);
	CU_ASSERT_PTR_EQUAL(strstr(err, "t.tc:1: "), err);
	free(o);
	sim_free(&s);
}

/* tc_exec: words as given, with or without "tc", and its where. */
static void test_exec(void)
{
	char *add[] = {"tc", "qdisc", "add", "dev", "em1", "root", "handle", "1:", "prio", NULL};
	char *bad[] = {"qdisc", "add", "dev", "em1", "parent", "1:9", "pfifo", NULL};
	char *show[] = {"-s", "q", "ls", "dev", "em1", NULL};
	struct sim s;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *out;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT_EQUAL(tc_exec(&s, 9, add, "lua:3", NULL, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tc_exec(&s, 7, bad, "lua:4", NULL, NULL, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err,
			       "lua:4: RTNETLINK answers: No such file or directory (Specified "
			       "class not found: 1:9)");
	CU_ASSERT_EQUAL(tc_exec(&s, 7, bad, NULL, NULL, NULL, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_EQUAL(strstr(err, "tc: RTNETLINK"), err);
	out = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(tc_exec(&s, 5, show, "x", NULL, out, err, sizeof(err)), 0);
	fclose(out);
	CU_ASSERT_STRING_EQUAL(
	    buf, "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		 " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
		 " backlog 0b 0p requeues 0\n");
	free(buf);
	sim_free(&s);
}

/* The API show functions print what the commands print. */
static void test_show_api(void)
{
	struct sim s;
	struct dev *d;
	char *buf = NULL, *o;
	size_t len = 0;
	FILE *out;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	o = ok(&s, seed_setup);
	free(o);
	d = sim_dev_find(&s, "em1");
	out = open_memstream(&buf, &len);
	tc_show_qdisc(d, out, 1);
	tc_show_class(d, out, 1);
	tc_show_filter(d, out);
	fclose(out);
	o = ok(&s, "tc -s qdisc show dev em1\ntc -s class show dev em1\ntc filter show dev em1");
	CU_ASSERT_STRING_EQUAL(buf, o);
	free(o);
	free(buf);
	sim_free(&s);
}

/* Messages stay one printable line: a quoted word across lines, control
 * bytes, and bytes that are not UTF-8 come out escaped; UTF-8 stays. */
static void test_message_one_line(void)
{
	struct sim_config cfg;
	struct sim s;
	char err[512];

	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	CU_ASSERT(tc_run_script(&s,
				"qdisc add dev eth0 root pfifo limit '\xff"
				"1\n\x01\xc3\xa9\xed\xa0\x80'",
				"t", NULL, NULL, err, sizeof(err)) != 0);
	CU_ASSERT_STRING_EQUAL(
	    err,
	    "t:1: pfifo: Illegal value for \"limit\": \"\\xff1\\n\\x01\xc3\xa9\\xed\\xa0\\x80\"");
	sim_free(&s);
}

/* A router script's shell words: || true and /dev/null redirections let a
 * failing command pass and hide output; any other shell syntax is refused. */
static void test_shell_tails(void)
{
	static const struct {
		const char *script, *err, *out;
	} cases[] = {
	    {"qdisc del dev eth0 root 2>/dev/null || true\nqdisc add dev eth0 root handle 1: prio\n"
	     "qdisc show dev eth0",
	     NULL, "qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"},
	    {"qdisc del dev eth0 root 2> /dev/null\nqdisc add dev eth0 root pfifo\n", NULL, ""},
	    {"qdisc add dev eth0 root pfifo\nqdisc show dev eth0 >/dev/null 2>&1", NULL, ""},
	    {"qdisc add dev eth0 root pfifo\nqdisc show dev eth0 &> /dev/null", NULL, ""},
	    /* 2>&1 first: stderr goes where stdout went, the terminal */
	    {"qdisc del dev eth0 root 2>&1 >/dev/null",
	     "t:1: RTNETLINK answers: No such file or directory (Cannot delete qdisc with handle "
	     "of zero: root is the default pfifo_fast)",
	     NULL},
	    {"qdisc show dev eth0 > out.txt",
	     "t:1: \">\": tcsim runs no shell: a redirection to anything but /dev/null is not "
	     "modelled",
	     NULL},
	    {"qdisc show dev eth0 | grep x",
	     "t:1: \"|\": tcsim runs no shell: only \"|| true\" and redirections to /dev/null may "
	     "follow a tc command",
	     NULL},
	    {"qdisc del dev eth0 root || echo no",
	     "t:1: \"||\": tcsim runs no shell: only \"|| true\" and redirections to /dev/null may "
	     "follow a tc command",
	     NULL},
	    {"qdisc show 2>/dev/null dev eth0",
	     "t:1: \"2>/dev/null\": a redirection belongs after the tc command's words", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_config cfg;
		struct sim s;
		char err[512] = "", *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		int r;

		sim_config_default(&cfg);
		CU_ASSERT_FATAL(f && sim_init(&s, &cfg) == 0);
		r = tc_run_script(&s, cases[i].script, "t", NULL, f, err, sizeof(err));
		fclose(f);
		if (cases[i].err) {
			CU_ASSERT(r != 0);
			CU_ASSERT_STRING_EQUAL(err, cases[i].err);
		} else {
			CU_ASSERT_EQUAL(r, 0);
			CU_ASSERT_STRING_EQUAL(out, cases[i].out);
		}
		if ((r != 0) != (cases[i].err != NULL) ||
		    (!r && strcmp(out, cases[i].out ? cases[i].out : "")))
			printf("\n  case %zu: %d \"%s\" out \"%s\"\n", i, r, err, out);
		free(out);
		sim_free(&s);
	}
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("tc", NULL, NULL);
	CU_add_test(s, "scripts: comments, continuations, quotes, optional tc", test_script_syntax);
	CU_add_test(s, "scripts: empty quoted words, # inside a word", test_script_words);
	CU_add_test(s, "scripts: errors name the command's first line and stop",
		    test_script_error_lines);
	CU_add_test(s, "scripts: unterminated quotes, no shell expansion",
		    test_script_quote_errors);
	CU_add_test(s, "the seed commit's example (current kernel)", test_seed_example);
	CU_add_test(s, "the seed commit's example (3.13)", test_seed_example_3_13);
	CU_add_test(s, "the seed's qdisc del on a default root fails", test_seed_first_line);
	CU_add_test(s, "automatic handles 8001: 8002: ...", test_auto_handles);
	CU_add_test(s, "qdisc dump order: hash (current), creation (3.13)", test_dump_order);
	CU_add_test(s, "pfifo/bfifo children as iproute2 6.1 prints them", test_fifo_children);
	CU_add_test(s, "del root and del of a grafted child", test_del_root_and_child);
	CU_add_test(s, "replace, change and kind swaps per kernel", test_replace_and_change);
	CU_add_test(s, "tc -s qdisc/class show counters", test_stats);
	CU_add_test(s, "sfq bucket classes: no basic stats, allot", test_sfq_class_stats);
	CU_add_test(s, "automatic prefs and listing order", test_filter_prefs);
	CU_add_test(s, "filter show pref/protocol/parent/chain selection",
		    test_filter_show_selection);
	CU_add_test(s, "filter replace, change, delete, flush", test_filter_replace_and_delete);
	CU_add_test(s, "relative file names start at the script's folder", test_basedir);
	CU_add_test(s, "every refusal: one line, device unchanged", test_refusals);
	CU_add_test(s, "devices: created by changes, not by show", test_devices);
	CU_add_test(s, "tc_exec with and without tc and where", test_exec);
	CU_add_test(s, "tc_show_* print what show commands print", test_show_api);
	CU_add_test(s, "error messages: one printable line", test_message_one_line);
	CU_add_test(s, "shell words after a command: || true, /dev/null", test_shell_tails);
	return unit_run();
}
