/* bpf_gen.h - seeded random classic-BPF program generator for tests (valid and mutated programs). */
#ifndef TCSIM_BPF_GEN_H
#define TCSIM_BPF_GEN_H

#include <stdint.h>

#include "bpf.h"

struct bpf_gen {
	uint64_t s;
};

/* Seeds the generator; any seed (including 0) is fine. */
void bpf_gen_seed(struct bpf_gen *g, uint64_t seed);
/* Next 32 random bits (xorshift64*). */
uint32_t bpf_gen_u32(struct bpf_gen *g);
/* Uniform in [0, n); 0 when n == 0. */
uint32_t bpf_gen_below(struct bpf_gen *g, uint32_t n);

/* A program the CURRENT kernel's checker accepts, of 2..max instructions
 * (max is clamped to BPF_MAXINSNS; max == 1 gives a lone ret, max == 0
 * gives 0). It never uses ancillary loads nor negative ABS offsets, reads
 * scratch only where the kernel's rule-4 pass proves it stored, divides and
 * mods by constant only with k != 0, shifts by constant only < 32, jumps
 * forward and in range, and ends with ret. IND loads use small k, but X is
 * whatever the program computed, so X+k is not constrained. Returns the
 * length. */
uint32_t bpf_gen_valid(struct bpf_gen *g, struct sock_filter *out, uint32_t max);

/* A program that may or may not pass the checker: a valid one with 1..3
 * mutations (non-whitelisted opcodes, div/mod #0, constant shifts >= 32,
 * scratch index >= 16, jumps out of range, last not ret, scratch reads
 * without a store on some path including the "state after ret" case,
 * unknown and known ancillary offsets, ...). Returns the length (1..max,
 * max clamped to BPF_MAXINSNS; 0 only when max == 0). */
uint32_t bpf_gen_any(struct bpf_gen *g, struct sock_filter *out, uint32_t max);

#endif
