/* test_pktspill.c - a long FIFO that keeps its middle on disk
 * (base/pktspill.h): order and every field kept over many chunks, from the
 * head and from the tail, freed chunk slots reused so the file stays
 * bounded, the pool holding no more than what is in memory, and I/O errors
 * (no directory, a file size limit) reported once with nothing lost. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pktspill.h"
#include "unit.h"

struct failed {
	int n, err;
	char msg[512];
};

static void on_fail(void *arg, int err, const char *msg)
{
	struct failed *f = arg;

	f->n++;
	f->err = err;
	snprintf(f->msg, sizeof(f->msg), "%s", msg);
}

/* caplen of packet i: mostly small, some past the pool's rooms, one now
 * and then near libpcap's largest frame */
static uint32_t caplen_of(uint64_t i)
{
	if (i % 997 == 0)
		return 262144;
	if (i % 13 == 0)
		return 3000 + (uint32_t)(i % 500);
	return 20 + (uint32_t)(i * 7 % 1500);
}

static uint8_t frame[262144 + 64];

/* A packet whose every field says i. */
static struct pkt *make(struct pkt_pool *pool, uint64_t i)
{
	uint32_t cl = caplen_of(i);
	struct pkt *p;

	for (uint32_t k = 0; k < cl; k++)
		frame[k] = (uint8_t)(i * 31 + k);
	p = pool ? pkt_pool_new(pool, frame, cl, cl + 4) : pkt_new(frame, cl, cl + 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->id = i;
	p->priority = (uint32_t)i * 3;
	p->mark = (uint32_t)i ^ 0x5a5a;
	p->hash = (uint32_t)(i * 2654435761u);
	p->vlan_present = (uint8_t)(i & 1);
	p->traced = (uint8_t)(i % 3 == 0);
	p->vlan_tci = (uint16_t)i;
	p->vlan_proto = 0x8100;
	p->source = (int)(i % 5);
	p->src_seq = i + 100;
	p->t_arrive = i * 1000;
	p->t_dequeue = i * 1000 + 1;
	p->t_cb = i * 1000 + 2;
	p->verdict = VERDICT_FILTER;
	p->classid = 0x10000 | (uint32_t)(i & 0xffff);
	p->filter_pref = 49152;
	p->filter_handle = (uint32_t)i;
	p->leaf_classid = 0x10001;
	return p;
}

/* Is p packet i, every field and byte? Frees it. */
static int check(struct pkt *p, uint64_t i)
{
	uint32_t cl = caplen_of(i);
	int ok = p && p->id == i && p->caplen == cl && p->len == cl + 4 &&
		 p->priority == (uint32_t)i * 3 && p->mark == ((uint32_t)i ^ 0x5a5a) &&
		 p->hash == (uint32_t)(i * 2654435761u) && p->vlan_present == (i & 1) &&
		 p->traced == (i % 3 == 0) && p->vlan_tci == (uint16_t)i &&
		 p->vlan_proto == 0x8100 && p->source == (int)(i % 5) && p->src_seq == i + 100 &&
		 p->t_arrive == i * 1000 && p->t_dequeue == i * 1000 + 1 &&
		 p->t_cb == i * 1000 + 2 && p->verdict == VERDICT_FILTER &&
		 p->classid == (0x10000 | (uint32_t)(i & 0xffff)) && p->filter_pref == 49152 &&
		 p->filter_handle == (uint32_t)i && p->leaf_classid == 0x10001 && !p->next;

	for (uint32_t k = 0; ok && k < cl; k++)
		ok = p->data[k] == (uint8_t)(i * 31 + k);
	pkt_free(p);
	return ok;
}

static size_t pool_free_count(const struct pkt_pool *pool)
{
	size_t n = 0;

	for (int c = 0; c < PKT_POOL_CLASSES; c++)
		for (const struct pkt *p = pool->free[c]; p; p = p->next)
			n++;
	return n;
}

/* 20000 packets in, through chunks of 8, and out in order; the pool ends
 * with what memory held at once, not with the backlog. */
static void test_order_many_chunks(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {.after = 8, .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct pkt_pool pool = {0};
	struct pkt_spill_stats st;
	uint64_t next = 1, bad = 0;

	pktsq_init(&s, &cfg);
	for (uint64_t i = 1; i <= 20000; i++)
		pktsq_push_tail(&s, make(i % 2 ? &pool : NULL, i));
	CU_ASSERT_EQUAL(pktsq_len(&s), 20000);
	CU_ASSERT_EQUAL(s.q.len, 8);
	pktsq_stats(&s, &st);
	CU_ASSERT(st.disk >= 20000 - 8 - 8);
	CU_ASSERT(st.chunks >= st.disk / 8);
	CU_ASSERT_EQUAL(st.slots, st.chunks);
	CU_ASSERT(pool_free_count(&pool) < 64);
	while (pktsq_len(&s)) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(pktsq_head(&s));
		CU_ASSERT_EQUAL(pktsq_head(&s)->id, next);
		if (!check(pktsq_pop_head(&s), next++))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(next, 20001);
	CU_ASSERT_PTR_NULL(pktsq_pop_head(&s));
	pktsq_stats(&s, &st);
	CU_ASSERT_EQUAL(st.disk, 0);
	CU_ASSERT_EQUAL(st.slots, 0); /* emptied once nothing waits */
	CU_ASSERT_EQUAL(s.spill_at, 8);
	CU_ASSERT_EQUAL(f.n, 0);
	CU_ASSERT(pool_free_count(&pool) < 64);
	pktsq_free(&s);
	pkt_pool_drain(&pool);
}

/* A steady queue of ~3000 over 300k packets: the file's slots are reused,
 * never more than the chunks that wait at once (plus one). */
static void test_slots_reused(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {.after = 64, .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct pkt_pool pool = {0};
	struct pkt_spill_stats st;
	uint64_t in = 1, out = 1, bad = 0;
	uint32_t max_chunks = 0, max_slots = 0;

	pktsq_init(&s, &cfg);
	while (in <= 300000) {
		/* three in, three out, with bursts that move the length about */
		int burst = (in / 5000) % 2 ? 4 : 3;

		for (int k = 0; k < burst && in <= 300000; k++)
			pktsq_push_tail(&s, make(&pool, in++));
		for (int k = 0; k < 3 && pktsq_len(&s) > 2500; k++)
			if (!check(pktsq_pop_head(&s), out++))
				bad++;
		pktsq_stats(&s, &st);
		if (st.chunks > max_chunks)
			max_chunks = st.chunks;
		if (st.slots > max_slots)
			max_slots = st.slots;
	}
	while (pktsq_len(&s))
		if (!check(pktsq_pop_head(&s), out++))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(out, in);
	CU_ASSERT(max_chunks >= 10);
	CU_ASSERT(max_slots <= max_chunks + 1);
	CU_ASSERT_EQUAL(f.n, 0);
	pktsq_free(&s);
	pkt_pool_drain(&pool);
}


/* tail is the newest packet, always in memory: after each push, after
 * pop_tail emptied the tail part (the newest chunk is read back), and
 * after the head drained into what was on disk. */
static void test_tail(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {.after = 5, .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct pkt_pool pool = {0};
	uint64_t bad = 0;

	pktsq_init(&s, &cfg);
	CU_ASSERT_PTR_NULL(pktsq_tail(&s));
	for (uint64_t i = 1; i <= 1000; i++) {
		pktsq_push_tail(&s, make(&pool, i));
		if (!pktsq_tail(&s) || pktsq_tail(&s)->id != i)
			bad++;
	}
	for (uint64_t i = 1000; i > 600; i--) {
		if (!pktsq_tail(&s) || pktsq_tail(&s)->id != i)
			bad++;
		if (!check(pktsq_pop_tail(&s), i))
			bad++;
	}
	for (uint64_t i = 1; i <= 590; i++) {
		if (!check(pktsq_pop_head(&s), i))
			bad++;
		if (!pktsq_tail(&s) || pktsq_tail(&s)->id != 600)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(pktsq_len(&s), 10);
	CU_ASSERT_EQUAL(f.n, 0);
	while (pktsq_len(&s))
		pkt_free(pktsq_pop_head(&s));
	CU_ASSERT_PTR_NULL(pktsq_tail(&s));
	pktsq_free(&s);
	pkt_pool_drain(&pool);
}
/* pop_tail takes the newest, reading the newest chunk back when the tail
 * part is empty; the head still comes out in order. */
static void test_pop_tail(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {.after = 5, .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct pkt_pool pool = {0};
	uint64_t bad = 0, head = 1;

	pktsq_init(&s, &cfg);
	for (uint64_t i = 1; i <= 1000; i++)
		pktsq_push_tail(&s, make(&pool, i));
	for (uint64_t i = 1000; i > 700; i--)
		if (!check(pktsq_pop_tail(&s), i))
			bad++;
	CU_ASSERT_EQUAL(pktsq_len(&s), 700);
	/* from both ends until they meet */
	for (uint64_t tail = 700; head <= tail;) {
		if (!check(pktsq_pop_head(&s), head++))
			bad++;
		if (head <= tail && !check(pktsq_pop_tail(&s), tail--))
			bad++;
		if (tail % 50 == 0) /* new packets join at the tail now and then */
			for (int k = 0; k < 3; k++) {
				pktsq_push_tail(&s, make(&pool, 5000 + (uint64_t)k));
				if (!check(pktsq_pop_tail(&s), 5000 + (uint64_t)k))
					bad++;
			}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(pktsq_len(&s), 0);
	CU_ASSERT_PTR_NULL(pktsq_pop_tail(&s));
	CU_ASSERT_EQUAL(f.n, 0);
	pktsq_free(&s);
	pkt_pool_drain(&pool);
}

/* A queue that never reaches `after` (or has none) never spills; a zeroed
 * queue without a configuration neither. */
static void test_no_spill(void)
{
	struct pkt_spill_cfg cfg = {.after = 0};
	struct pkt_spillq s = {0}, z = {0};
	struct pkt_spill_stats st;

	pktsq_init(&s, &cfg);
	CU_ASSERT_EQUAL(s.spill_at, UINT32_MAX);
	for (uint64_t i = 1; i <= 100; i++) {
		pktsq_push_tail(&s, make(NULL, i));
		pktsq_push_tail(&z, make(NULL, i));
	}
	CU_ASSERT_PTR_NULL(s.sp);
	CU_ASSERT_PTR_NULL(z.sp);
	CU_ASSERT_EQUAL(z.q.len, 100);
	pktsq_stats(&s, &st);
	CU_ASSERT_EQUAL(st.disk, 0);
	for (uint64_t i = 1; i <= 100; i++) {
		CU_ASSERT(check(pktsq_pop_head(&s), i));
		CU_ASSERT(check(pktsq_pop_head(&z), i));
	}
}

/* No such directory: one report naming it and ENOENT; the packets stay in
 * memory, in order. */
static void test_no_directory(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {
	    .after = 4, .dir = "/nonexistent/tcsim-spill", .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct pkt_spill_stats st;
	uint64_t bad = 0;

	pktsq_init(&s, &cfg);
	for (uint64_t i = 1; i <= 100; i++)
		pktsq_push_tail(&s, make(NULL, i));
	CU_ASSERT_EQUAL(f.n, 1);
	CU_ASSERT_EQUAL(f.err, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(f.msg, "in /nonexistent/tcsim-spill: creating it: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(f.msg, strerror(ENOENT)));
	pktsq_stats(&s, &st);
	CU_ASSERT(st.broken);
	CU_ASSERT_EQUAL(st.disk, 0);
	for (uint64_t i = 1; i <= 100; i++)
		if (!check(pktsq_pop_head(&s), i))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(pktsq_len(&s), 0);
	pktsq_free(&s);
}

/* A file size limit (RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC):
 * the write that fails loses nothing, the report comes once, and what
 * was on disk before comes back. */
static void test_write_fails(void)
{
	struct failed f = {0};
	struct pkt_spill_cfg cfg = {.after = 4, .fail = on_fail, .arg = &f};
	struct pkt_spillq s = {0};
	struct rlimit old, lim;
	struct pkt_spill_stats st;
	uint64_t bad = 0;

	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 3 * PKT_SPILL_CHUNK; /* three slots */
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	pktsq_init(&s, &cfg);
	for (uint64_t i = 1; i <= 200; i++)
		pktsq_push_tail(&s, make(NULL, i));
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_DFL);
	CU_ASSERT_EQUAL(f.n, 1);
	CU_ASSERT_EQUAL(f.err, -EFBIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(f.msg, ": writing: "));
	pktsq_stats(&s, &st);
	CU_ASSERT(st.broken);
	CU_ASSERT_EQUAL(st.chunks, 3);
	for (uint64_t i = 1; i <= 200; i++)
		if (!check(pktsq_pop_head(&s), i))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(pktsq_len(&s), 0);
	pktsq_free(&s);
}

/* Freed while packets wait in the tail part and on disk: nothing leaks
 * (ASan, valgrind). */
static void test_free_with_backlog(void)
{
	struct pkt_spill_cfg cfg = {.after = 4};
	struct pkt_spillq s = {0};
	struct pkt *p;

	pktsq_init(&s, &cfg);
	for (uint64_t i = 1; i <= 50; i++)
		pktsq_push_tail(&s, make(NULL, i));
	while ((p = pktq_pop_head(&s.q))) /* the head part is the owner's */
		pkt_free(p);
	pktsq_free(&s);
	CU_ASSERT_PTR_NULL(s.sp);
	CU_ASSERT_EQUAL(s.out, 0);
}

static void test_env(void)
{
	char err[256] = "";
	uint32_t after = 7;

	unsetenv("TCSIM_SPILL_AFTER");
	CU_ASSERT_EQUAL(pkt_spill_after_env(&after, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(after, 7);
	setenv("TCSIM_SPILL_AFTER", "8", 1);
	CU_ASSERT_EQUAL(pkt_spill_after_env(&after, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(after, 8);
	setenv("TCSIM_SPILL_AFTER", "0", 1);
	CU_ASSERT_EQUAL(pkt_spill_after_env(&after, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(after, 0);
	static const char *const badv[] = {"-1", "8k", " 8", "+8", "4294967296", "x"};
	for (size_t i = 0; i < sizeof(badv) / sizeof(badv[0]); i++) {
		setenv("TCSIM_SPILL_AFTER", badv[i], 1);
		CU_ASSERT_EQUAL(pkt_spill_after_env(&after, err, sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "TCSIM_SPILL_AFTER="));
	}
	CU_ASSERT_EQUAL(after, 0);
	unsetenv("TCSIM_SPILL_AFTER");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("pktspill", NULL, NULL);
	if (!s)
		return 1;
	CU_add_test(s, "order and every field over many chunks", test_order_many_chunks);
	CU_add_test(s, "a steady long queue reuses the file's slots", test_slots_reused);
	CU_add_test(s, "pop_tail across the spilled middle", test_pop_tail);
	CU_add_test(s, "tail: the newest, always in memory", test_tail);
	CU_add_test(s, "below the threshold or unconfigured: no disk", test_no_spill);
	CU_add_test(s, "no temporary directory: one report, nothing lost", test_no_directory);
	CU_add_test(s, "a write fails (file size limit): one report, nothing lost",
		    test_write_fails);
	CU_add_test(s, "freed with a backlog on disk: no leak", test_free_with_backlog);
	CU_add_test(s, "TCSIM_SPILL_AFTER", test_env);
	return unit_run();
}
