/* test_src.c - callback sources and hand-built frames for tests. */
#include <stdlib.h>
#include <string.h>

#include "test_src.h"

struct test_src {
	struct source base;
	test_gen gen;
	void *arg;
	uint64_t seq;
	uint8_t buf[65536];
};

static int test_next(struct source *s, struct src_packet *p, char *err, size_t errlen)
{
	struct test_src *t = (struct test_src *)s;
	int r;

	(void)err;
	(void)errlen;
	memset(p, 0, sizeof(*p));
	r = t->gen(t->arg, t->buf, p);
	if (r == 1)
		p->seq = ++t->seq;
	return r;
}

static void test_close(struct source *s)
{
	free(s);
}

static const struct source_ops test_ops = {.next = test_next, .close = test_close};

struct source *test_src_new(test_gen gen, void *arg)
{
	struct test_src *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->base.ops = &test_ops;
	strcpy(t->base.name, "test");
	t->gen = gen;
	t->arg = arg;
	return &t->base;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t frame_ip(uint8_t *b, uint32_t len, uint32_t saddr, uint32_t daddr, uint8_t proto,
			 uint8_t tos)
{
	uint32_t sum = 0;

	memset(b, 0, len);
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	b[14] = 0x45;
	b[15] = tos;
	put16(b + 16, len - 14);
	b[22] = 64;
	b[23] = proto;
	put32(b + 26, saddr);
	put32(b + 30, daddr);
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(b + 24, ~sum & 0xffff);
	return len;
}

uint32_t test_frame_udp(uint8_t *b, uint32_t len, uint32_t saddr, uint32_t daddr, uint16_t sport,
			uint16_t dport, uint8_t tos)
{
	frame_ip(b, len, saddr, daddr, 17, tos);
	put16(b + 34, sport);
	put16(b + 36, dport);
	put16(b + 38, len - 34);
	return len;
}

uint32_t test_frame_tcp(uint8_t *b, uint32_t len, uint32_t saddr, uint32_t daddr, uint16_t sport,
			uint16_t dport, uint8_t tos)
{
	frame_ip(b, len, saddr, daddr, 6, tos);
	put16(b + 34, sport);
	put16(b + 36, dport);
	b[46] = 0x50;
	b[47] = 0x10;
	return len;
}
