/* sim_script.c - see sim_script.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_script.h"
#include "tc.h"
#include "test_src.h"

static int script_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct script *s = arg;

	if (s->i == s->n)
		return 0;
	test_frame_udp(buf, s->len, 0x0a000001, 0x0a000002, s->sport ? s->sport[s->i] : 40000,
		       5000, s->tos);
	p->data = buf;
	p->caplen = p->len = s->len;
	p->t_ns = s->t ? s->t[s->i] : (uint64_t)s->i * s->period;
	s->i++;
	return 1;
}

static int ipv4_csum_ok(const uint8_t *b)
{
	uint32_t sum = 0;

	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct script_record *rec = arg;

	(void)d;
	if (rec->n < SCRIPT_MAXREC) {
		rec->id[rec->n] = p->id;
		rec->t[rec->n] = p->drop ? rec->s->now : p->t_dequeue;
		rec->drop[rec->n] = p->drop;
		rec->tos[rec->n] = p->data[15];
		rec->csum_ok[rec->n] = ipv4_csum_ok(p->data);
		rec->n++;
	}
}

int script_setup(struct sim *s, uint64_t rate_bps, const char *tc, struct script_record *rec,
		 struct script *sc, char *err, size_t errlen)
{
	struct sim_config cfg;

	sim_config_default(&cfg);
	cfg.rate_bps = rate_bps;
	if (sim_init(s, &cfg)) {
		snprintf(err, errlen, "sim_init failed");
		return -1;
	}
	if (tc_run_script(s, tc, "test", NULL, NULL, err, errlen))
		return -1;
	memset(rec, 0, sizeof(*rec));
	rec->s = s;
	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	if (sim_observe(s, &rec->obs, err, errlen))
		return -1;
	return sim_add_source(s, test_src_new(script_gen, sc), s->devs[0], 0, err, errlen) ? -1 : 0;
}

char *script_show(struct sim *s, int dev)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	tc_show_qdisc(s->devs[dev], f, 1);
	fclose(f);
	return buf;
}

int script_find(const struct script_record *rec, uint64_t id)
{
	for (int i = 0; i < rec->n; i++)
		if (rec->id[i] == id)
			return i;
	return -1;
}
