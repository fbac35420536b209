/* test_cls_fw.c - the fw classifier: handles M[/MASK] as iproute2 6.1's
 * f_fw.c reads them, one mask per pref, every refusal leaving the chain as
 * it was, classification by the masked mark and by the old method (the
 * mark as the classid), and tc filter show byte for byte (the texts
 * recorded from Linux 6.1 under qemu, dump order included). */
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

/* The kernel's dump: bucket by bucket (the mark's bytes folded), each
 * bucket newest first; the mask after the handle unless it is all ones; a
 * filter without a classid has no options and prints nothing. */
static void test_show_as_tc(void)
{
	struct sim s;
	char script[4096];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: pref 3 handle 5 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 3 handle 6 fw flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 4 handle 0x108/0xff fw flowid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 4 handle 7/0xff fw flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 5 handle 9/0xffffffff fw flowid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 9 handle 3/0 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 300 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 44 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 4 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 0x1000 fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 0x10 fw classid 2:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 0x100 fw classid 2:1\n"
		 "tc filter add dev eth0 parent 1: pref 12 handle 0x10001 fw classid 2:1\n"
		 "tc filter add dev eth0 parent 1: pref 14 handle 0x10/0xf0 fw classid 0\n"
		 "tc filter add dev eth0 parent 1: pref 15 handle 0x10/0xf0 fw classid 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 15 handle 0x20/0xf0 fw classid 1:2\n"
		 "tc filter change dev eth0 parent 1: pref 15 handle 0x20/0xf0 fw classid 1:3\n"
		 "tc filter replace dev eth0 parent 1: pref 15 handle 0x30/0xf0 fw classid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 17 handle 0xffffffff fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 17 handle 2/0xffffffff fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 19 handle 5 fw classid 1:1 cl 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 20 handle 5 protocol ip fw classid 1:1 "
		 "flowi 1:2\n"
		 "tc filter show dev eth0\n",
		 prio_root);
	tcu_expect_output(
	    &s, script,
	    "filter parent 1: protocol all pref 3 fw chain 0 \n"
	    "filter parent 1: protocol all pref 3 fw chain 0 handle 0x5 classid 1:1 \n"
	    "filter parent 1: protocol all pref 3 fw chain 0 handle 0x6 classid 1:2 \n"
	    "filter parent 1: protocol all pref 4 fw chain 0 \n"
	    "filter parent 1: protocol all pref 4 fw chain 0 handle 0x7/0xff classid 1:1 \n"
	    "filter parent 1: protocol all pref 4 fw chain 0 handle 0x108/0xff classid 1:3 \n"
	    "filter parent 1: protocol all pref 5 fw chain 0 \n"
	    "filter parent 1: protocol all pref 5 fw chain 0 handle 0x9 classid 1:3 \n"
	    "filter parent 1: protocol all pref 9 fw chain 0 \n"
	    "filter parent 1: protocol all pref 9 fw chain 0 handle 0x3/0x0 classid 1:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x10001 classid 2:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x100 classid 2:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x4 classid 1:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x10 classid 2:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x1000 classid 1:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x2c classid 1:1 \n"
	    "filter parent 1: protocol all pref 12 fw chain 0 handle 0x12c classid 1:1 \n"
	    "filter parent 1: protocol all pref 14 fw chain 0 \n"
	    "filter parent 1: protocol all pref 14 fw chain 0 \n"
	    "filter parent 1: protocol all pref 15 fw chain 0 \n"
	    "filter parent 1: protocol all pref 15 fw chain 0 handle 0x10/0xf0 classid 1:2 \n"
	    "filter parent 1: protocol all pref 15 fw chain 0 handle 0x20/0xf0 classid 1:3 \n"
	    "filter parent 1: protocol all pref 15 fw chain 0 handle 0x30/0xf0 classid 1:3 \n"
	    "filter parent 1: protocol all pref 17 fw chain 0 \n"
	    "filter parent 1: protocol all pref 17 fw chain 0 handle 0xffffffff classid 1:1 \n"
	    "filter parent 1: protocol all pref 17 fw chain 0 handle 0x2 classid 1:1 \n"
	    "filter parent 1: protocol all pref 19 fw chain 0 \n"
	    "filter parent 1: protocol all pref 19 fw chain 0 handle 0x5 classid 1:2 \n"
	    "filter parent 1: protocol ip pref 20 fw chain 0 \n"
	    "filter parent 1: protocol ip pref 20 fw chain 0 handle 0x5 classid 1:2 \n");
	sim_free(&s);
}

static const char two_filters[] =
    "filter parent 1: protocol all pref 4 fw chain 0 \n"
    "filter parent 1: protocol all pref 4 fw chain 0 handle 0x7/0xff classid 1:1 \n"
    "filter parent 1: protocol all pref 5 fw chain 0 \n"
    "filter parent 1: protocol all pref 5 fw chain 0 handle 0x5 classid 1:2 \n";

static void test_refusals(void)
{
	struct sim s;
	char script[1024];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: pref 4 handle 7/0xff fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 5 handle 5 fw classid 1:2\n",
		 prio_root);
	tcu_expect_output(&s, script, "");
	/* one mask per pref: given or not, it must be the first filter's */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 4 handle 8 fw classid 1:1",
		       -EINVAL, "Invalid argument", "0xff", two_filters);
	tcu_expect_refusal(&s,
		       "tc filter add dev eth0 parent 1: pref 4 handle 8/0xffffffff fw classid 1:1",
		       -EINVAL, "Invalid argument", "mask", two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 5 handle 6/0xff fw classid 1:1",
		       -EINVAL, "Invalid argument", "mask", two_filters);
	tcu_expect_refusal(&s,
		       "tc filter replace dev eth0 parent 1: pref 4 handle 7/0xf fw classid 1:3",
		       -EINVAL, "Invalid argument", "mask", two_filters);
	/* a handle without words, words without a handle */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 6 handle 5 fw", -EINVAL,
		       "Invalid argument", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 6 handle 5/0xff fw", -EINVAL,
		       "Invalid argument", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 7 fw classid 1:1", -EINVAL,
		       "Invalid argument", "needs a handle", two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 8 handle 0 fw classid 1:1",
		       -EINVAL, "Invalid argument", "needs a handle", two_filters);
	/* the kernel's handle checks */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 5 handle 5 fw classid 1:3",
		       -EEXIST, "Filter already exists", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter change dev eth0 parent 1: pref 5 handle 6 fw classid 1:3",
		       -ENOENT, "NLM_F_CREATE", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter del dev eth0 parent 1: pref 5 handle 6 fw", -ENOENT,
		       "Specified filter handle not found", NULL, two_filters);
	/* tc's words */
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle x fw classid 1:1",
		       -EINVAL, "Illegal \"handle\"", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle 3/x fw classid 1:1",
		       -EINVAL, "Illegal \"handle\" mask", NULL, two_filters);
	tcu_expect_refusal(&s,
		       "tc filter add dev eth0 parent 1: pref 11 handle 0x100000000 fw classid 1:1",
		       -EINVAL, "Illegal \"handle\"", NULL, two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle 3 fw classid 1:1 bogus",
		       -EINVAL, "What is \"bogus\"?", "Usage: ... fw", two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle 3 fw classid 1:1 indev",
		       -EINVAL, "Illegal indev", NULL, two_filters);
	tcu_expect_refusal(
	    &s, "tc filter add dev eth0 parent 1: pref 11 handle 3 fw indev eth1 classid 1:1",
	    -EOPNOTSUPP, "not modelled", "indev eth1", two_filters);
	tcu_expect_refusal(&s,
		       "tc filter add dev eth0 parent 1: pref 11 handle 3 fw classid 1:1 police "
		       "rate 1mbit burst 10k",
		       -EOPNOTSUPP, "not modelled", "\"police\"", two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle 3 fw action drop",
		       -EOPNOTSUPP, "not modelled", "\"action\"", two_filters);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 11 handle 3 fw classid", -EINVAL,
		       "Command line is not complete", NULL, two_filters);
	sim_free(&s);
}

/* With filters: the mark & the pref's mask, looked up exactly; a replace
 * takes the new classid; deleting the last filter removes the pref. */
static void test_classify_masked(void)
{
	struct sim s;
	struct tcf_result res;
	char script[1024];

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: pref 1 handle 7/0xff fw classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 1 handle 0x108/0xff fw classid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 2 handle 5 fw classid 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 2 handle 0x10005 fw classid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 3 handle 3/0 fw classid 1:1\n",
		 prio_root);
	tcu_expect_output(&s, script, "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 7, 0x0800, &res), 0x10001);
	CU_ASSERT_EQUAL(res.pref, 1);
	CU_ASSERT_EQUAL(res.handle, 7);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x307, 0x0800, &res), 0x10001); /* & 0xff = 7 */
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0xabcdef07, 0x0806, &res), 0x10001);
	/* 0x108 & 0xff = 8, never 0x108: that filter can never match */
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x108, 0x0800, &res), -1);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 8, 0x0800, &res), -1);
	/* pref 2, mask all ones: exact */
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 5, 0x0800, &res), 0x10002);
	CU_ASSERT_EQUAL(res.pref, 2);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x10005, 0x0800, &res), 0x10003);
	CU_ASSERT_EQUAL(res.handle, 0x10005);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x105, 0x0800, &res), -1);
	/* mask 0: every mark looks up 0, and handle 3 is not 0 */
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 3, 0x0800, &res), -1);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0800, &res), -1);
	tcu_expect_output(&s, "tc filter replace dev eth0 parent 1: pref 2 handle 5 fw classid 1:3",
		      "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 5, 0x0800, &res), 0x10003);
	/* a replace without a classid leaves none: no class, no line */
	tcu_expect_output(&s,
		      "tc filter replace dev eth0 parent 1: pref 2 handle 5 fw classid 0\n"
		      "tc filter show dev eth0 pref 2",
		      "filter parent 1: protocol all fw chain 0 \n"
		      "filter parent 1: protocol all fw chain 0 handle 0x10005 classid 1:3 \n"
		      "filter parent 1: protocol all fw chain 0 \n");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 5, 0x0800, &res), 0);
	tcu_expect_output(&s,
		      "tc filter del dev eth0 parent 1: pref 2 handle 5 fw\n"
		      "tc filter del dev eth0 parent 1: pref 2 handle 0x10005/0xff fw\n"
		      "tc filter show dev eth0 pref 2",
		      "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x10005, 0x0800, &res), -1);
	sim_free(&s);
}

/* Without a filter: the mark is the classid when its major is 0 or the
 * qdisc's own; such a pref stops `tc filter show` as the kernel's walk
 * does; a filter added to it ends the old method. */
static void test_old_method(void)
{
	struct sim s;
	struct tcf_result res;
	char script[1024], err[1024] = "";
	char *o;
	int r;

	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: pref 1 fw\n"
		 "tc filter add dev eth0 parent 1: pref 1 fw\n"
		 "tc filter add dev eth0 parent 1: pref 2 matchall classid 1:3\n",
		 prio_root);
	tcu_expect_output(&s, script, "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 2, 0x0800, &res), 2); /* 0:2 */
	CU_ASSERT_EQUAL(res.pref, 1);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x10002, 0x0800, &res), 0x10002); /* 1:2 */
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0xffff, 0x0800, &res), 0xffff);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x20002, 0x0800, &res),
			0x10003); /* another major: on to pref 2 */
	CU_ASSERT_EQUAL(res.pref, 2);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0, 0x0800, &res), 0x10003); /* no mark */
	o = tcu_run(&s, "tc filter show dev eth0", NULL, &r, err, sizeof(err));
	CU_ASSERT_EQUAL(r, -EMSGSIZE);
	CU_ASSERT_STRING_EQUAL(o, "filter parent 1: protocol all pref 1 fw chain 0 \n");
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.tc:1: Error: Buffer too small for object."));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "Dump terminated"));
	free(o);
	/* another pref only: the walk never reaches pref 1 */
	tcu_expect_output(&s, "tc filter show dev eth0 pref 2",
		      "filter parent 1: protocol all matchall chain 0 \n"
		      "filter parent 1: protocol all matchall chain 0 handle 0x1 flowid 1:3 \n"
		      "  not_in_hw\n");
	tcu_expect_refusal(&s, "tc filter del dev eth0 parent 1: pref 1 handle 1 fw", -ENOENT,
		       "Specified filter handle not found", NULL, NULL);
	tcu_expect_output(&s, "tc filter add dev eth0 parent 1: pref 1 handle 2 fw classid 1:1", "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 2, 0x0800, &res), 0x10001);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x10002, 0x0800, &res), 0x10003); /* not the old method now */
	tcu_expect_output(&s, "tc filter show dev eth0 pref 1",
		      "filter parent 1: protocol all fw chain 0 \n"
		      "filter parent 1: protocol all fw chain 0 handle 0x2 classid 1:1 \n");
	sim_free(&s);

	/* the qdisc's own major is the one the filter was added under: 8: */
	tcu_sim_new(&s, BPF_KERNEL_CURRENT);
	tcu_expect_output(&s,
		      "tc qdisc add dev eth0 root handle 8: prio\n"
		      "tc filter add dev eth0 parent 8: pref 1 fw\n",
		      "");
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x80003, 0x0800, &res), 0x80003);
	CU_ASSERT_EQUAL(tcu_classify_mark(&s, 0x10003, 0x0800, &res), -1);
	sim_free(&s);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("fw", NULL, NULL);
	CU_add_test(s, "tc filter show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "refusals leave the chain alone", test_refusals);
	CU_add_test(s, "classification by the masked mark", test_classify_masked);
	CU_add_test(s, "the old method: the mark as the classid", test_old_method);
	return unit_run();
}
