/* tc_unit.c - see tc_unit.h */
#include "tc_unit.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"
#include "tc.h"

void tcu_sim_default(struct sim *s)
{
	struct sim_config cfg;

	sim_config_default(&cfg);
	CU_ASSERT_EQUAL_FATAL(sim_init(s, &cfg), 0);
}

void tcu_sim_new(struct sim *s, enum bpf_kernel k)
{
	struct sim_config cfg;

	sim_config_default(&cfg);
	cfg.kernel = k;
	CU_ASSERT_EQUAL_FATAL(sim_init(s, &cfg), 0);
}

char *tcu_run(struct sim *s, const char *script, const char *dir, int *ret, char *err,
	      size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	err[0] = 0;
	r = tc_run_script(s, script, "t.tc", dir, out, err, errlen);
	fclose(out);
	if (ret)
		*ret = r;
	return buf;
}

void tcu_expect_output(struct sim *s, const char *script, const char *want)
{
	char err[1024];
	int r;
	char *o = tcu_run(s, script, NULL, &r, err, sizeof(err));

	if (r)
		printf("\n  unexpected error: %s\n", err);
	CU_ASSERT_EQUAL(r, 0);
	if (strcmp(o, want))
		printf("\n  got:\n%s  want:\n%s", o, want);
	CU_ASSERT_STRING_EQUAL(o, want);
	free(o);
}

void tcu_expect_refusal(struct sim *s, const char *line, int code, const char *m1, const char *m2,
			const char *before)
{
	char err[1024];
	int r;
	char *o = tcu_run(s, line, NULL, &r, err, sizeof(err));

	free(o);
	CU_ASSERT_EQUAL(r, code);
	if (r != code)
		printf("\n  %s: got %d (%s), want %d\n", line, r, err, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.tc:1: "));
	if (!strstr(err, m1) || (m2 && !strstr(err, m2)))
		printf("\n  %s: message '%s' lacks '%s' / '%s'\n", line, err, m1, m2 ? m2 : "");
	CU_ASSERT_PTR_NOT_NULL(strstr(err, m1));
	if (m2)
		CU_ASSERT_PTR_NOT_NULL(strstr(err, m2));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	if (before)
		tcu_expect_output(s, "tc filter show dev eth0", before);
}

long tcu_classify_mark(struct sim *s, uint32_t mark, uint16_t proto, struct tcf_result *res)
{
	struct dev *d = sim_dev_find(s, "eth0");
	struct bpf_skb skb;
	static uint8_t frame[64];

	memset(&skb, 0, sizeof(skb));
	skb.data = frame;
	skb.caplen = skb.len = sizeof(frame);
	skb.net_off = 14;
	skb.protocol = proto;
	skb.mark = mark;
	memset(res, 0, sizeof(*res));
	if (tcf_classify(&d->root->chain, &skb, proto, res) < 0)
		return -1;
	return res->classid;
}
