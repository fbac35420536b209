/* bench_util.h - what the benches (bench/) measure with: a monotonic
 * clock and this process's peak resident memory. */
#ifndef TCSIM_BENCH_UTIL_H
#define TCSIM_BENCH_UTIL_H

#include <stddef.h>

/* CLOCK_MONOTONIC in seconds */
double bench_now_s(void);
/* VmHWM of this process (peak resident set), KiB; -1 if unknown */
long bench_vm_hwm_kib(void);
/* Runs this program again (/proc/self/exe) with argv, in a fresh process
 * whose memory starts from nothing, and reads what it prints into out
 * (NUL-terminated, at most outlen - 1 bytes): 0, or -1 when it could not
 * run or did not exit 0. */
int bench_run_self(char *const argv[], char *out, size_t outlen);

#endif
