/* bpf_jit.h - what the classic BPF JIT (bpf_jit.c) and the interpreter
 * (bpf_run.c) share inside the classifier layer: the helpers JITed code
 * calls for the loads it does not inline, so both engines run the very same
 * C for them. */
#ifndef TCSIM_BPF_JIT_H
#define TCSIM_BPF_JIT_H

#include <stdint.h>

#include "bpf.h"

/* A load of size 1, 2 or 4 at signed offset (int32_t)off, through
 * SKF_NET_OFF / SKF_LL_OFF: the value, or -1 for a fault. */
int64_t bpf_jit_load(const struct bpf_skb *skb, uint32_t off, uint32_t size);

/* The ancillary loads JITed code calls out for: which is the SKF_AD_*
 * offset with the kernel (enum bpf_kernel) in bits 16 and up. The new A,
 * or -1 where the program ends by a fault (3.13's NLATTR out of range). */
int64_t bpf_jit_anc(const struct bpf_skb *skb, uint32_t A, uint32_t X, uint32_t which);

/* Compiles prog to native code and sets prog->jited; 0, or a negative
 * errno when it cannot (another architecture, mmap or mprotect refused):
 * the interpreter runs then. */
int bpf_jit_compile(struct bpf_prog *prog);
void bpf_jit_free(struct bpf_prog *prog);

#endif
