/* test_lint.c - tcsim lint's pieces: the return-value analysis of classic
 * BPF programs (ret #k paths, ret a after constant loads and masks,
 * unreachable code and infeasible branches left out, faults, catch-alls),
 * prio_classify's valid-class rule, the bps rate words, and lint_sim on
 * configurations built with tc commands. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "sim.h"
#include "tc.h"
#include "unit.h"

#define I(c, t, f, k) {(uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k)}
#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static struct lint_rets rets(const struct sock_filter *p, uint32_t len)
{
	struct lint_rets r;

	CU_ASSERT_EQUAL_FATAL(lint_prog_returns(p, len, &r), 0);
	return r;
}

/* the values as "v1 v2 ...", computed as "?" */
static const char *vals(const struct lint_rets *r)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < r->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u", i ? " " : "", r->v[i]);
	if (r->computed)
		snprintf(buf + n, sizeof(buf) - n, "%s?", n ? " " : "");
	return buf;
}

static void test_ret_k(void)
{
	/* the seed's ssh.ops: ret #-1 on a match, #0 otherwise */
	const struct sock_filter ssh[] = {
	    I(0x28, 0, 0, 12),	I(0x15, 0, 10, 2048), I(0x30, 0, 0, 23),   I(0x15, 0, 8, 6),
	    I(0x28, 0, 0, 20),	I(0x45, 6, 0, 8191),  I(0xb1, 0, 0, 14),   I(0x48, 0, 0, 14),
	    I(0x15, 2, 0, 22),	I(0x48, 0, 0, 16),    I(0x15, 0, 1, 22),   I(0x06, 0, 0, 0xffffffff),
	    I(0x06, 0, 0, 0),
	};
	/* tcpdump -ddd ip: its snaplen on a match */
	const struct sock_filter ip[] = {
	    I(0x28, 0, 0, 12), I(0x15, 0, 1, 0x800), I(0x06, 0, 0, 262144), I(0x06, 0, 0, 0),
	};
	const struct sock_filter all[] = {I(0x06, 0, 0, 0xffffffff)};
	struct lint_rets r = rets(ssh, N(ssh));

	CU_ASSERT_STRING_EQUAL(vals(&r), "0 4294967295");
	CU_ASSERT_TRUE(r.may_fault); /* ldh [x + 14] */
	CU_ASSERT_FALSE(lint_rets_catch_all(&r));
	r = rets(ip, N(ip));
	CU_ASSERT_STRING_EQUAL(vals(&r), "0 262144");
	CU_ASSERT_FALSE(r.may_fault); /* ldh [12] is within the Ethernet header */
	CU_ASSERT_TRUE(lint_rets_has(&r, 262144));
	CU_ASSERT_FALSE(lint_rets_has(&r, 65537));
	r = rets(all, N(all));
	CU_ASSERT_STRING_EQUAL(vals(&r), "4294967295");
	CU_ASSERT_TRUE(lint_rets_catch_all(&r));
}

static void test_ret_a(void)
{
	/* ld #65538; ret a */
	const struct sock_filter k[] = {I(0x00, 0, 0, 65538), I(0x16, 0, 0, 0)};
	/* ldh [12]; jeq #0x800, L1, L2; L1: ld #65537; ja L3; L2: ld #65539; L3: add #1; ret a */
	const struct sock_filter branches[] = {
	    I(0x28, 0, 0, 12),	I(0x15, 0, 2, 0x800), I(0x00, 0, 0, 65537), I(0x05, 0, 0, 1),
	    I(0x00, 0, 0, 65539), I(0x04, 0, 0, 1),    I(0x16, 0, 0, 0),
	};
	/* ldb [15]; and #3; add #65537; ret a: four values */
	const struct sock_filter mask[] = {
	    I(0x30, 0, 0, 15), I(0x54, 0, 0, 3), I(0x04, 0, 0, 65537), I(0x16, 0, 0, 0)};
	/* ldb [15]; ret a: anything */
	const struct sock_filter pkt[] = {I(0x30, 0, 0, 15), I(0x16, 0, 0, 0)};
	/* ldb [23]; jeq #6, L, drop; L: ret a (A is 6 there); drop: ret #0 */
	const struct sock_filter eq[] = {
	    I(0x30, 0, 0, 23), I(0x15, 0, 1, 6), I(0x16, 0, 0, 0), I(0x06, 0, 0, 0)};
	/* through scratch memory and X: ld #7; st M[3]; ldx M[3]; txa; mul #2; ret a */
	const struct sock_filter mem[] = {
	    I(0x00, 0, 0, 7), I(0x02, 0, 0, 3), I(0x61, 0, 0, 3), I(0x87, 0, 0, 0),
	    I(0x24, 0, 0, 2), I(0x16, 0, 0, 0)};
	struct lint_rets r = rets(k, N(k));

	CU_ASSERT_STRING_EQUAL(vals(&r), "65538");
	CU_ASSERT_TRUE(lint_rets_catch_all(&r));
	r = rets(branches, N(branches));
	CU_ASSERT_STRING_EQUAL(vals(&r), "65538 65540");
	r = rets(mask, N(mask));
	CU_ASSERT_STRING_EQUAL(vals(&r), "65537 65538 65539 65540");
	CU_ASSERT_TRUE(r.may_fault); /* byte 15 may be past a short frame */
	r = rets(pkt, N(pkt));
	CU_ASSERT_STRING_EQUAL(vals(&r), "?");
	CU_ASSERT_EQUAL(r.computed_pc, 1);
	CU_ASSERT_FALSE(lint_rets_catch_all(&r));
	r = rets(eq, N(eq));
	CU_ASSERT_STRING_EQUAL(vals(&r), "0 6");
	r = rets(mem, N(mem));
	CU_ASSERT_STRING_EQUAL(vals(&r), "14");
}

static void test_unreachable(void)
{
	/* ja +1 jumps over ret #262144 */
	const struct sock_filter ja[] = {
	    I(0x05, 0, 0, 1), I(0x06, 0, 0, 262144), I(0x06, 0, 0, 0xffffffff)};
	/* ld #5; jeq #5, yes, no: the false edge cannot be taken */
	const struct sock_filter infeasible[] = {
	    I(0x00, 0, 0, 5), I(0x15, 0, 1, 5), I(0x06, 0, 0, 65537), I(0x06, 0, 0, 262144)};
	/* ld #4; jset #3: never; jgt #3: always */
	const struct sock_filter jset[] = {
	    I(0x00, 0, 0, 4),	  I(0x45, 0, 1, 3), I(0x06, 0, 0, 111), I(0x25, 0, 1, 3),
	    I(0x06, 0, 0, 65537), I(0x06, 0, 0, 222),
	};
	/* A starts at 0: ret a without a load */
	const struct sock_filter zero[] = {I(0x16, 0, 0, 0)};
	/* a jump out of the program and a fall off the end are not followed */
	const struct sock_filter broken[] = {
	    I(0x30, 0, 0, 15), I(0x15, 9, 0, 0), I(0x06, 0, 0, 1), I(0x00, 0, 0, 1)};
	struct lint_rets r = rets(ja, N(ja));

	CU_ASSERT_STRING_EQUAL(vals(&r), "4294967295");
	r = rets(infeasible, N(infeasible));
	CU_ASSERT_STRING_EQUAL(vals(&r), "65537");
	r = rets(jset, N(jset));
	CU_ASSERT_STRING_EQUAL(vals(&r), "65537");
	r = rets(zero, N(zero));
	CU_ASSERT_STRING_EQUAL(vals(&r), "0");
	r = rets(broken, N(broken));
	CU_ASSERT_STRING_EQUAL(vals(&r), "1");
}

static void test_faults(void)
{
	/* div x with X = 0: the program ends with 0 */
	const struct sock_filter divx[] = {
	    I(0x00, 0, 0, 7), I(0x3c, 0, 0, 0), I(0x06, 0, 0, 0xffffffff)};
	/* div x with X = 2 cannot fault; ld #len cannot either */
	const struct sock_filter div2[] = {
	    I(0x01, 0, 0, 2), I(0x80, 0, 0, 0), I(0x3c, 0, 0, 0), I(0x06, 0, 0, 0xffffffff)};
	/* ld #proto cannot fault; ldh [x + 0] can */
	const struct sock_filter anc[] = {I(0x20, 0, 0, 0xfffff000), I(0x06, 0, 0, 0xffffffff)};
	const struct sock_filter ind[] = {I(0x48, 0, 0, 0), I(0x06, 0, 0, 0xffffffff)};
	struct lint_rets r = rets(divx, N(divx));

	CU_ASSERT_TRUE(r.may_fault);
	CU_ASSERT_FALSE(lint_rets_catch_all(&r));
	r = rets(div2, N(div2));
	CU_ASSERT_FALSE(r.may_fault);
	CU_ASSERT_TRUE(lint_rets_catch_all(&r));
	r = rets(anc, N(anc));
	CU_ASSERT_TRUE(lint_rets_catch_all(&r));
	r = rets(ind, N(ind));
	CU_ASSERT_FALSE(lint_rets_catch_all(&r));
}

static void test_many_values(void)
{
	/* 40 distinct ret #k: more than LINT_MAX_RETS, so "computed" */
	struct sock_filter p[82];
	struct lint_rets r;

	p[0] = (struct sock_filter)I(0x30, 0, 0, 15); /* ldb [15]: A unknown */
	for (int i = 0; i < 40; i++) {
		p[1 + 2 * i] = (struct sock_filter)I(0x15, 0, 1, (uint32_t)i);
		p[2 + 2 * i] = (struct sock_filter)I(0x06, 0, 0, (uint32_t)i + 1);
	}
	p[81] = (struct sock_filter)I(0x06, 0, 0, 0);
	r = rets(p, 82);
	CU_ASSERT_EQUAL(r.n, LINT_MAX_RETS);
	CU_ASSERT_TRUE(r.computed);
}

static void test_prio_band(void)
{
	CU_ASSERT_EQUAL(lint_prio_band(0x10001, 3), 0);
	CU_ASSERT_EQUAL(lint_prio_band(0x10003, 3), 2);
	CU_ASSERT_EQUAL(lint_prio_band(0x10004, 3), -1);
	CU_ASSERT_EQUAL(lint_prio_band(0x40000, 3), -1); /* 262144: 4:0, minor 0 */
	CU_ASSERT_EQUAL(lint_prio_band(0x10000, 3), -1);
	CU_ASSERT_EQUAL(lint_prio_band(0x50002, 3), 1); /* prio reads only the minor */
	CU_ASSERT_EQUAL(lint_prio_band(2, 3), 1);       /* major 0 */
	CU_ASSERT_EQUAL(lint_prio_band(0xffffffff, 16), -1);
	CU_ASSERT_EQUAL(lint_prio_band(0x10010, 16), 15);
}

static void test_rate_word(void)
{
	char msg[256];

	CU_ASSERT_EQUAL(lint_rate_word("1mbps", msg, sizeof(msg)), 1);
	CU_ASSERT_STRING_EQUAL(msg, "1mbps is 8 Mbit/s (tc reads \"bps\" as bytes per second); "
				    "write 1mbit if you meant bits");
	CU_ASSERT_EQUAL(lint_rate_word("100KBps", msg, sizeof(msg)), 1);
	CU_ASSERT_STRING_EQUAL(msg, "100KBps is 800 kbit/s (tc reads \"bps\" as bytes per second); "
				    "write 100kbit if you meant bits");
	CU_ASSERT_EQUAL(lint_rate_word("12bps", msg, sizeof(msg)), 1);
	CU_ASSERT_STRING_EQUAL(msg, "12bps is 96 bit/s (tc reads \"bps\" as bytes per second); "
				    "write 12bit if you meant bits");
	CU_ASSERT_EQUAL(lint_rate_word("1mbit", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(lint_rate_word("256kbit", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(lint_rate_word("bps", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(lint_rate_word("xmbps", msg, sizeof(msg)), 0); /* not a rate at all */
	CU_ASSERT_EQUAL(lint_rate_word(NULL, msg, sizeof(msg)), 0);
}

/* lint_sim's output for a script (name "t.tc", files from scenarios/). */
static char *lint_script(const char *script, int *n, enum bpf_kernel k)
{
	struct sim_config cfg;
	struct sim s;
	char err[1024] = "", *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	sim_config_default(&cfg);
	cfg.kernel = k;
	CU_ASSERT_EQUAL_FATAL(sim_init(&s, &cfg), 0);
	CU_ASSERT_EQUAL(tc_run_script(&s, script, "t.tc", "scenarios", out, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "%s\n", err);
	*n = 0;
	CU_ASSERT_EQUAL(lint_sim(&s, out, n), 0);
	fclose(out);
	sim_free(&s);
	return buf;
}

static void test_lint_sim(void)
{
	int n;
	char *o = lint_script("qdisc add dev eth0 root handle 1: prio\n"
			      "filter add dev eth0 parent 1: pref 1 bpf bytecode-file filters/ssh.bpf flowid 1:1\n"
			      "filter add dev eth0 parent 1: pref 2 bpf asm-file filters/misc.ops flowid 1:3\n",
			      &n, BPF_KERNEL_CURRENT);

	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(o, "");
	free(o);
	/* tcpdump's program on a second device; sorted by line */
	o = lint_script("qdisc add dev eth1 root handle 2: prio bands 4\n"
			"qdisc add dev eth0 root handle 1: prio\n"
			"filter add dev eth0 parent 1: pref 1 bpf expr 'tcp port 22' flowid 1:1\n"
			"filter add dev eth1 parent 2: pref 1 bpf bytecode-file filters/tcpdump_ssh.bpf flowid 2:4\n",
			&n, BPF_KERNEL_CURRENT);
	/* ... and 2:4: the default priomap stops at band 2, and tcpdump's program
	 * never uses its flowid 2:4 */
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(strncmp(o, "t.tc:1: warning: class 2:4 of prio 2: on eth1 is named by no priomap "
				  "entry and no filter, so it receives no packet", 101), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "t.tc:3: warning: filter pref 1 returns 262144 = classid 4:0 on a "
					 "match, which names no band of prio 1: (1:1..1:3), so prio falls "
					 "back to priomap[0], band 1 (class 1:2), and its flowid 1:1 is never used;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "\nt.tc:4: warning: filter pref 1 returns 262144 = classid 4:0 on a "
					 "match, which names no band of prio 2: (2:1..2:4), so prio falls "
					 "back to priomap[0], band 1 (class 2:2), and its flowid 2:4 is never used;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "(tcpdump -s 131073 -ddd returns 131073 = 2:1)\n"));
	free(o);
	/* a replaced program is reported at the line that replaced it */
	o = lint_script("qdisc add dev eth0 root handle 1: prio\n"
			"filter add dev eth0 parent 1: pref 1 handle 1 bpf bytecode-file filters/ssh.bpf flowid 1:1\n"
			"filter replace dev eth0 parent 1: pref 1 handle 1 bpf bytecode-file filters/ssh.bpf flowid 1:7\n",
			&n, BPF_KERNEL_CURRENT);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(strncmp(o, "t.tc:3: warning: filter pref 1 has flowid 1:7,", 46), 0);
	free(o);
	/* 3.13: the other kernel is current */
	o = lint_script("qdisc add dev eth0 root handle 1: prio\n"
			"filter add dev eth0 parent 1: pref 1 bpf bytecode '2,100 0 0 40,6 0 0 0' flowid 1:1\n",
			&n, BPF_KERNEL_3_13);
	CU_ASSERT_EQUAL(n, 2); /* never matches; current kernels refuse lsh #40 */
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "would be rejected by current kernels (instruction 0: constant shift by 40"));
	free(o);
}

static void test_summary(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lint_summary(f, "a.tc", 0);
	lint_summary(f, "a.tc", 1);
	lint_summary(f, "a.tc", 3);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "lint: a.tc: no warnings\nlint: a.tc: 1 warning\nlint: a.tc: 3 warnings\n");
	free(buf);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("lint", NULL, NULL);
	CU_add_test(s, "ret #k paths", test_ret_k);
	CU_add_test(s, "ret a after constant loads", test_ret_a);
	CU_add_test(s, "unreachable code and infeasible branches", test_unreachable);
	CU_add_test(s, "faults and catch-alls", test_faults);
	CU_add_test(s, "too many values", test_many_values);
	CU_add_test(s, "prio's valid-class rule", test_prio_band);
	CU_add_test(s, "bps rate words", test_rate_word);
	CU_add_test(s, "lint_sim", test_lint_sim);
	CU_add_test(s, "summary line", test_summary);
	return unit_run();
}
