/* jhash.h - Bob Jenkins' lookup3 (public domain) as the kernel's
 * include/linux/jhash.h computes it: sfq's and fq_codel's seeded flow
 * hashes. */
#ifndef TCSIM_JHASH_H
#define TCSIM_JHASH_H

#include <stdint.h>

static inline uint32_t rol32(uint32_t w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

/* Bob Jenkins' lookup3 (public domain), the kernel's jhash. */
#define JHASH_INITVAL 0xdeadbeefu

/* clang-format off */
static inline void jhash_mix(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*a -= *c; *a ^= rol32(*c, 4);  *c += *b;
	*b -= *a; *b ^= rol32(*a, 6);  *a += *c;
	*c -= *b; *c ^= rol32(*b, 8);  *b += *a;
	*a -= *c; *a ^= rol32(*c, 16); *c += *b;
	*b -= *a; *b ^= rol32(*a, 19); *a += *c;
	*c -= *b; *c ^= rol32(*b, 4);  *b += *a;
}

static inline void jhash_final(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*c ^= *b; *c -= rol32(*b, 14);
	*a ^= *c; *a -= rol32(*c, 11);
	*b ^= *a; *b -= rol32(*a, 25);
	*c ^= *b; *c -= rol32(*b, 16);
	*a ^= *c; *a -= rol32(*c, 4);
	*b ^= *a; *b -= rol32(*a, 14);
	*c ^= *b; *c -= rol32(*b, 24);
}
/* clang-format on */

/* jhash_3words as 3.13 has it (before the 2015 initval change). */
static inline uint32_t jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t initval)
{
	a += JHASH_INITVAL;
	b += JHASH_INITVAL;
	c += initval;
	jhash_final(&a, &b, &c);
	return c;
}

static inline uint32_t jhash_words(const uint32_t *k, uint32_t n, uint32_t initval)
{
	uint32_t a, b, c;

	a = b = c = JHASH_INITVAL + (n << 2) + initval;
	for (; n > 3; n -= 3, k += 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		jhash_mix(&a, &b, &c);
	}
	switch (n) {
	case 3:
		c += k[2];
		/* fall through */
	case 2:
		b += k[1];
		/* fall through */
	case 1:
		a += k[0];
		jhash_final(&a, &b, &c);
		break;
	default: break;
	}
	return c;
}

#endif
