/* test_cls_matchall.c - the matchall classifier: tc's words as iproute2
 * 6.1's f_matchall.c takes them, the kernel's one filter per pref, every
 * refusal leaving the chain as it was, classification, and tc filter show
 * byte for byte (the texts recorded from Linux 6.1 under qemu). */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"
#include "tc.h"
#include "tc_unit.h"
#include "unit.h"

static const char prio_root[] =
    "tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2\n";

static const char one_filter[] =
    "filter parent 1: protocol all pref 49152 matchall chain 0 \n"
    "filter parent 1: protocol all pref 49152 matchall chain 0 handle 0x1 flowid 1:1 \n"
    "  not_in_hw\n";

/* tc filter show as Linux 6.1 and iproute2 6.1 print it: the handle
 * (1 when none is given; tc reads "abc" as 0), the flowid unless it is 0,
 * skip_hw and not_in_hw on lines of their own. */
static void test_show_as_tc(void)
{
	struct sim s;
	char script[2048];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: matchall classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 13 handle 7 matchall skip_hw classid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 16 handle abc matchall flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 18 matchall cl 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 19 handle 0 matchall classid 0\n"
		 "tc filter add dev eth0 parent 1: pref 14 handle 0x11 protocol ip matchall "
		 "classid 1:1\n"
		 "tc filter show dev eth0\n",
		 prio_root);
	tcu_expect_output(
	    &s, script,
	    "filter parent 1: protocol all pref 13 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 13 matchall chain 0 handle 0x7 flowid 1:3 \n"
	    "  skip_hw\n"
	    "  not_in_hw\n"
	    "filter parent 1: protocol ip pref 14 matchall chain 0 \n"
	    "filter parent 1: protocol ip pref 14 matchall chain 0 handle 0x11 flowid 1:1 \n"
	    "  not_in_hw\n"
	    "filter parent 1: protocol all pref 16 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 16 matchall chain 0 handle 0x1 flowid 1:2 \n"
	    "  not_in_hw\n"
	    "filter parent 1: protocol all pref 18 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 18 matchall chain 0 handle 0x1 flowid 1:2 \n"
	    "  not_in_hw\n"
	    "filter parent 1: protocol all pref 19 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 19 matchall chain 0 handle 0x1 \n"
	    "  not_in_hw\n"
	    "filter parent 1: protocol all pref 49152 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 49152 matchall chain 0 handle 0x1 flowid 1:1 \n"
	    "  not_in_hw\n");
	sim_free(&s);
}

/* Every refusal, as tc or the kernel gives it, leaves the chain alone. */
static void test_refusals(void)
{
	struct sim s;
	char script[512];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%stc filter add dev eth0 parent 1: matchall classid 1:1\n", prio_root);
	tcu_expect_output(&s, script, "");
	/* one filter per tcf_proto: a second add, replace or change fails */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 49152 matchall classid 1:2",
		       -EEXIST, "RTNETLINK answers: File exists", "pref 49152", one_filter);
	tcu_expect_refusal(&s,
		       "tc filter add dev eth0 parent 1: pref 49152 handle 1 matchall classid 1:2",
		       -EEXIST, "Filter already exists", NULL, one_filter);
	tcu_expect_refusal(
	    &s, "tc filter replace dev eth0 parent 1: pref 49152 handle 1 matchall classid 1:2",
	    -EEXIST, "RTNETLINK answers: File exists", NULL, one_filter);
	tcu_expect_refusal(
	    &s, "tc filter change dev eth0 parent 1: pref 49152 handle 1 matchall classid 1:2",
	    -EEXIST, "RTNETLINK answers: File exists", NULL, one_filter);
	tcu_expect_refusal(
	    &s, "tc filter change dev eth0 parent 1: pref 49152 handle 2 matchall classid 1:2",
	    -ENOENT, "NLM_F_CREATE", NULL, one_filter);
	/* skip_sw: no device of tcsim's offloads, as veth does not */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 10 matchall skip_sw classid 1:1",
		       -EOPNOTSUPP, "Operation not supported", "skip_sw", one_filter);
	/* tc's NEXT_ARG after skip_hw/skip_sw */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 matchall classid 1:1 skip_sw",
		       -EINVAL, "Command line is not complete", NULL, one_filter);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 12 matchall classid 1:1 skip_hw",
		       -EINVAL, "Command line is not complete", NULL, one_filter);
	tcu_expect_refusal(
	    &s, "tc filter add dev eth0 parent 1: pref 12 matchall skip_hw skip_sw classid 1:1",
	    -EINVAL, "skip_hw and skip_sw are mutually exclusive", NULL, one_filter);
	/* no words: tc sends no options, the kernel wants them */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 14 handle 0x10 matchall", -EINVAL,
		       "Invalid argument", NULL, one_filter);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 17 matchall flowi 1:2", -EINVAL,
		       "What is \"flowi\"?", "Usage: ... matchall", one_filter);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 17 matchall classid", -EINVAL,
		       "Command line is not complete", NULL, one_filter);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 17 matchall classid 1:x", -EINVAL,
		       "Illegal \"classid\"", NULL, one_filter);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 17 matchall action drop",
		       -EOPNOTSUPP, "not modelled", "\"action\"", one_filter);
	tcu_expect_refusal(&s,
		       "tc filter add dev eth0 parent 1: pref 17 handle 0x8000000000000000 "
		       "matchall classid 1:1",
		       -EINVAL, "Illegal handle", "must be numeric", one_filter);
	tcu_expect_refusal(&s, "tc filter del dev eth0 parent 1: pref 49152 handle 2 matchall", -ENOENT,
		       "Specified filter handle not found", NULL, one_filter);
	sim_free(&s);

	/* matchall came with Linux 4.8 */
	tcu_sim_new(&s, BPF_KERNEL_3_13);
	snprintf(script, sizeof(script), "%s", prio_root);
	tcu_expect_output(&s, script, "");
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 1 matchall classid 1:1", -ENOENT,
		       "4.8", NULL, "");
	sim_free(&s);
}

/* Every packet of its protocol, whatever its mark; the lowest pref first. */
static void test_classify(void)
{
	struct sim s;
	struct tcf_result res;
	char script[1024];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(
	    script, sizeof(script),
	    "%s"
	    "tc filter add dev eth0 parent 1: pref 20 matchall classid 1:3\n"
	    "tc filter add dev eth0 parent 1: pref 10 handle 9 protocol ip matchall classid 1:1\n",
	    prio_root);
	tcu_expect_output(&s, script, "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0800, &res), 0x10001);
	CU_ASSERT_EQUAL(res.pref, 10);
	CU_ASSERT_EQUAL(res.handle, 9);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0xffffffff, 0x0800, &res), 0x10001);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0806, &res), 0x10003); /* ARP: pref 10 is ip only */
	CU_ASSERT_EQUAL(res.pref, 20);
	CU_ASSERT_EQUAL(res.handle, 1);
	/* tc -s: the rule hits */
	tcu_expect_output(
	    &s, "tc -s filter show dev eth0",
	    "filter parent 1: protocol ip pref 10 matchall chain 0 \n"
	    "filter parent 1: protocol ip pref 10 matchall chain 0 handle 0x9 flowid 1:1 \n"
	    "  not_in_hw (rule hit 2)\n"
	    "filter parent 1: protocol all pref 20 matchall chain 0 \n"
	    "filter parent 1: protocol all pref 20 matchall chain 0 handle 0x1 flowid 1:3 \n"
	    "  not_in_hw (rule hit 1)\n");
	/* deleting its handle removes the tcf_proto */
	tcu_expect_output(&s,
		      "tc filter del dev eth0 parent 1: pref 10 handle 9 matchall\n"
		      "tc filter show dev eth0 pref 10",
		      "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0800, &res), 0x10003);
	/* and the pref is free again */
	tcu_expect_output(&s,
		      "tc filter add dev eth0 parent 1: pref 10 matchall classid 1:2\n"
		      "tc filter del dev eth0 parent 1: pref 20\n",
		      "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0806, &res), 0x10002);
	sim_free(&s);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("matchall", NULL, NULL);
	CU_add_test(s, "tc filter show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "refusals leave the chain alone", test_refusals);
	CU_add_test(s, "classification", test_classify);
	return unit_run();
}
