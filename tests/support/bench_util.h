/* bench_util.h - what the benches (bench/) measure with: a monotonic
 * clock and this process's peak resident memory. */
#ifndef TCSIM_BENCH_UTIL_H
#define TCSIM_BENCH_UTIL_H

/* CLOCK_MONOTONIC in seconds */
double bench_now_s(void);
/* VmHWM of this process (peak resident set), KiB; -1 if unknown */
long bench_vm_hwm_kib(void);

#endif
