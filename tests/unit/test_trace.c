/* test_trace.c - per-packet traces: exact lines for a workload whose
 * schedule is computed by hand, the trace filter's selection, tracing on
 * and off giving byte-identical results, explain's account, and errors. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "report.h"
#include "sim.h"
#include "source.h"
#include "tc.h"
#include "test_src.h"
#include "explain.h"
#include "trace.h"

struct script_pkt {
	uint64_t t;
	uint32_t len;
	uint32_t priority;
	uint16_t dport;
};

struct script {
	const struct script_pkt *v;
	int n, i;
};

static int script_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct script *s = arg;
	const struct script_pkt *sp;

	if (s->i == s->n)
		return 0;
	sp = &s->v[s->i++];
	test_frame_udp(buf, sp->len, 0x0a000001, 0x0a000002, 40000, sp->dport, 0);
	p->data = buf;
	p->caplen = p->len = sp->len;
	p->t_ns = sp->t;
	p->priority = sp->priority;
	p->seq = (uint64_t)s->i;
	return 1;
}

/* 1 Mbit/s: 125 bytes take 1 ms. prio 1: with 3 pfifo bands; one filter
 * (tcpdump's "udp port 53", returning 262144 = 4:0) whose flowid 1:3 is
 * never used: prio falls back to priomap[0] = band 1. */
static const char policy[] =
	"qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
	"filter add dev eth0 parent 1: protocol ip pref 5 bpf expr 'udp port 53' flowid 1:3\n"
	"filter add dev eth0 parent 1: protocol ipv6 pref 3 bpf bytecode '1,6 0 0 4294967295' flowid 1:1\n";

static void setup(struct sim *s, uint64_t rate)
{
	struct sim_config cfg;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = rate;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	if (tc_run_script_at(s, policy, "policy", 1, NULL, stdout, err, sizeof(err))) {
		CU_FAIL_FATAL(err);
	}
}

static void add_script(struct sim *s, struct script *sc)
{
	char err[256];

	CU_ASSERT_FATAL(sim_add_source(s, test_src_new(script_gen, sc), s->devs[0], 0, err,
				       sizeof(err)) == 0);
}

/* A (1:2 by priority) is on the wire when B (1:2) and C (1:1) arrive; C
 * overtakes B when A completes at 1 ms; D (udp port 53) matches the filter,
 * whose 262144 names no band: priomap[0] = band 1, class 1:2. */
static const struct script_pkt workload[] = {
	{.t = 0, .len = 125, .priority = 0x10002, .dport = 9},
	{.t = 500000, .len = 250, .priority = 0x10002, .dport = 9},
	{.t = 600000, .len = 125, .priority = 0x10001, .dport = 9},
	{.t = 700000, .len = 125, .priority = 3, .dport = 53},
};

static const char expected[] =
	"0 eth0 #1 1:1 arrive len=125 caplen=125 proto=0x0800 priority=1:2 hdr=\"IP 10.0.0.1.40000 > 10.0.0.2.9: UDP len 83\"\n"
	"0 eth0 #1 1:1 classify qdisc=1: kind=prio verdict=priority classid=1:2 rule=priority band=1 class=1:2\n"
	"0 eth0 #1 1:1 enqueue qdisc=0: kind=pfifo parent=1:2 qlen=1 backlog=125\n"
	"0 eth0 #1 1:1 dequeue class=1:2 qdisc=0: waited=0 left=0\n"
	"0 eth0 #1 1:1 tx_start dur=1000000 wire=125 end=1000000\n"
	"500000 eth0 #2 1:2 arrive len=250 caplen=250 proto=0x0800 priority=1:2 hdr=\"IP 10.0.0.1.40000 > 10.0.0.2.9: UDP len 208\"\n"
	"500000 eth0 #2 1:2 classify qdisc=1: kind=prio verdict=priority classid=1:2 rule=priority band=1 class=1:2\n"
	"500000 eth0 #2 1:2 enqueue qdisc=0: kind=pfifo parent=1:2 qlen=1 backlog=250\n"
	"600000 eth0 #3 1:3 arrive len=125 caplen=125 proto=0x0800 priority=1:1 hdr=\"IP 10.0.0.1.40000 > 10.0.0.2.9: UDP len 83\"\n"
	"600000 eth0 #3 1:3 classify qdisc=1: kind=prio verdict=priority classid=1:1 rule=priority band=0 class=1:1\n"
	"600000 eth0 #3 1:3 enqueue qdisc=0: kind=pfifo parent=1:1 qlen=1 backlog=125\n"
	"700000 eth0 #4 1:4 arrive len=125 caplen=125 proto=0x0800 priority=3 hdr=\"IP 10.0.0.1.40000 > 10.0.0.2.53: UDP len 83\"\n"
	"700000 eth0 #4 1:4 filter qdisc=1: pref=3 proto=ipv6 kind=bpf result=skip\n"
	"700000 eth0 #4 1:4 filter qdisc=1: pref=5 proto=ip kind=bpf handle=0x1 ret=262144 result=classid class=4:0\n"
	"700000 eth0 #4 1:4 classify qdisc=1: kind=prio verdict=filter classid=4:0 pref=5 handle=0x1 rule=fallback map=0 band=1 class=1:2\n"
	"700000 eth0 #4 1:4 enqueue qdisc=0: kind=pfifo parent=1:2 qlen=2 backlog=375\n"
	"1000000 eth0 #1 1:1 tx_end queue_delay=0 total_delay=1000000 depart=1000000\n"
	"1000000 eth0 #3 1:3 dequeue class=1:1 qdisc=0: waited=400000 left=2\n"
	"1000000 eth0 #3 1:3 tx_start dur=1000000 wire=125 end=2000000\n"
	"2000000 eth0 #3 1:3 tx_end queue_delay=400000 total_delay=1400000 depart=2000000\n"
	"2000000 eth0 #2 1:2 dequeue class=1:2 qdisc=0: waited=1500000 left=1\n"
	"2000000 eth0 #2 1:2 tx_start dur=2000000 wire=250 end=4000000\n"
	"4000000 eth0 #2 1:2 tx_end queue_delay=1500000 total_delay=3500000 depart=4000000\n"
	"4000000 eth0 #4 1:4 dequeue class=1:2 qdisc=0: waited=3300000 left=0\n"
	"4000000 eth0 #4 1:4 tx_start dur=1000000 wire=125 end=5000000\n"
	"5000000 eth0 #4 1:4 tx_end queue_delay=3300000 total_delay=4300000 depart=5000000\n";

/* Runs the workload with a trace (filter expr, or NULL = every packet)
 * and returns the trace text (malloc'd). */
static char *run_traced(const char *filter, uint64_t *count)
{
	struct script sc = {workload, 4, 0};
	struct trace *t;
	struct sim s;
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	setup(&s, 1000000);
	add_script(&s, &sc);
	CU_ASSERT_FATAL(trace_open(&t, &s, f, filter, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL(sim_check_accounting(&s, err, sizeof(err)), 0);
	*count = trace_count(t);
	CU_ASSERT_EQUAL(trace_finish(t, err, sizeof(err)), 0);
	sim_free(&s);
	fclose(f);
	return buf;
}

static void test_trace_exact(void)
{
	uint64_t n;
	char *got = run_traced(NULL, &n);

	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_STRING_EQUAL(got, expected);
	if (strcmp(got, expected))
		fprintf(stderr, "\n--- got:\n%s--- want:\n%s", got, expected);
	free(got);
}

/* The filter selects exactly packet #4: its lines, and no other. */
static void test_trace_filter(void)
{
	uint64_t n;
	char *got = run_traced("udp port 53", &n);
	char want[4096] = "";

	for (const char *l = expected; *l;) {
		const char *e = strchr(l, '\n') + 1;

		if (strstr(l, " #4 ") && strstr(l, " #4 ") < e)
			strncat(want, l, (size_t)(e - l));
		l = e;
	}
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	got = run_traced("tcp", &n);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
}

static void test_trace_bad_filter(void)
{
	struct sim s;
	struct trace *t = (struct trace *)1;
	char err[512];

	setup(&s, 1000000);
	CU_ASSERT(trace_open(&t, &s, stdout, "udp port", err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_PTR_NULL(s.observers);
	CU_ASSERT(strncmp(err, "--trace-filter 'udp port': ", 27) == 0);
	CU_ASSERT(strstr(err, "syntax error") != NULL);
	CU_ASSERT(trace_open_path(&t, &s, "/nonexistent-dir/trace.txt", NULL, err, sizeof(err)) < 0);
	CU_ASSERT_STRING_EQUAL(err, "--trace /nonexistent-dir/trace.txt: No such file or directory");
	sim_free(&s);
}

/* A real capture through the seed policy with sfq: the JSON report is the
 * same with every packet traced, with a few, and without tracing. */
static char *run_capture(const char *filter, int traced)
{
	struct sim_config cfg;
	struct replay_opts ro;
	struct source *src;
	struct trace *t = NULL;
	struct sim s;
	char *buf = NULL, err[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len), *sink = fopen("/dev/null", "w");

	CU_ASSERT_FATAL(f && sink);
	sim_config_default(&cfg);
	cfg.rate_bps = 256000;
	replay_opts_default(&ro);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	if (tc_run_file(&s, "scenarios/ssh_http.tc", sink, err, sizeof(err))) {
		CU_FAIL_FATAL(err);
	}
	CU_ASSERT_FATAL(src_open_capture(&src, "scenarios/captures/ssh_interactive.pcap", &ro, err,
					 sizeof(err)) == 0);
	CU_ASSERT_FATAL(sim_add_source(&s, src, s.devs[0], 0, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(src_open_capture(&src, "scenarios/captures/http_wikipedia.pcap", &ro, err,
					 sizeof(err)) == 0);
	CU_ASSERT_FATAL(sim_add_source(&s, src, s.devs[0], 0, err, sizeof(err)) == 0);
	if (traced)
		CU_ASSERT_FATAL(trace_open(&t, &s, sink, filter, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	report_json(&s, f);
	CU_ASSERT_EQUAL(trace_finish(t, err, sizeof(err)), 0);
	sim_free(&s);
	fclose(f);
	fclose(sink);
	return buf;
}

static void test_trace_on_off_identical(void)
{
	char *off = run_capture(NULL, 0), *all = run_capture(NULL, 1),
	     *some = run_capture("tcp port 22", 1);

	CU_ASSERT(strlen(off) > 1000);
	CU_ASSERT_STRING_EQUAL(off, all);
	CU_ASSERT_STRING_EQUAL(off, some);
	free(off);
	free(all);
	free(some);
}

/* explain: the account of packet 4, and a packet that does not exist. */
static void test_explain(void)
{
	struct script sc = {workload, 4, 0};
	struct explain_opts o = {.source = 0, .seq = 4, .label = "script"};
	struct sim s;
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setup(&s, 1000000);
	add_script(&s, &sc);
	CU_ASSERT_EQUAL_FATAL(explain_packet(&s, &o, f, err, sizeof(err)), 0);
	fclose(f);
	CU_ASSERT(strstr(buf, "returned 262144 = match, and cls_bpf takes the return value itself as the classid: 4:0 (262144); its flowid 1:3 is not used") != NULL);
	CU_ASSERT(strstr(buf, "so prio falls back to priomap[0] = 1") != NULL);
	CU_ASSERT(strstr(buf, "pref 3 (bpf, protocol ipv6): skipped, the packet's protocol is ip") != NULL);
	CU_ASSERT(strstr(buf, "on arrival the wire was busy with #1 (1:1, class 1:2, 125 bytes) for 300.000 us more") != NULL);
	CU_ASSERT(strstr(buf, "waited 3.300 ms: 2 packets left before it, after the one on the wire:\n"
			      "    1 of band 1:1 already queued in a higher band (strict priority)\n"
			      "    1 of its own band 1:2 that were ahead of it in the queue\n") != NULL);
	CU_ASSERT(strstr(buf, "total delay 4.300 ms = queue 3.300 ms + wire 1.000 ms") != NULL);
	free(buf);
	sim_free(&s);

	sc.i = 0;
	o.seq = 9;
	buf = NULL;
	f = open_memstream(&buf, &len);
	setup(&s, 1000000);
	add_script(&s, &sc);
	CU_ASSERT_EQUAL(explain_packet(&s, &o, f, err, sizeof(err)), -ENOENT);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT_STRING_EQUAL(err, "--packet 1:9: capture 1 (script) has only 4 packets");
	free(buf);
	sim_free(&s);
}

static void test_frame_summary(void)
{
	uint8_t b[128];
	char s[256];

	test_frame_tcp(b, 60, 0xc0a80102, 0xc0a80103, 59070, 22, 0x10);
	trace_frame_summary(s, sizeof(s), b, 60, 60, -1);
	CU_ASSERT_STRING_EQUAL(s, "IP 192.168.1.2.59070 > 192.168.1.3.22: TCP [.] seq 0 ack 0 len 6 tos 0x10");
	trace_frame_summary(s, sizeof(s), b, 10, 60, -1);
	CU_ASSERT_STRING_EQUAL(s, "truncated frame (10 of 60 bytes)");
}

int main(void)
{
	CU_pSuite su;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	su = CU_add_suite("trace", NULL, NULL);
	CU_add_test(su, "trace lines of a hand-computed schedule", test_trace_exact);
	CU_add_test(su, "--trace-filter selects exactly its packets", test_trace_filter);
	CU_add_test(su, "bad filter expression, unwritable file", test_trace_bad_filter);
	CU_add_test(su, "tracing on or off: identical JSON", test_trace_on_off_identical);
	CU_add_test(su, "explain: rule, fallback, waiting, errors", test_explain);
	CU_add_test(su, "frame summaries", test_frame_summary);
	return unit_run();
}
