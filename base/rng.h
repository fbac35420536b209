/* rng.h - the simulation's seeded generator (splitmix64): every random
 * value tcsim uses comes from one of these, so a seed reproduces a run. */
#ifndef TCSIM_RNG_H
#define TCSIM_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

/* Moves on n draws at once, as n calls of rng_u64 would (splitmix64's state
 * is a counter). */
static inline void rng_skip(struct rng *r, uint64_t n)
{
	r->s += n * 0x9e3779b97f4a7c15ull;
}

static inline uint64_t rng_u64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Shaped for struct bpf_skb's random hook. */
static inline uint32_t rng_u32_cb(void *r)
{
	return (uint32_t)(rng_u64((struct rng *)r) >> 32);
}

#endif
