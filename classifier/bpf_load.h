/* bpf_load.h - the ways a tc user hands a classic BPF program over: tc's
 * bytecode string, a bytecode file, a tcpdump expression, an .ops file. */
#ifndef TCSIM_BPF_LOAD_H
#define TCSIM_BPF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bpf.h"

/* tc's "N,code jt jf k,..." string with iproute2's acceptance rules
 * (lib/bpf_legacy.c bpf_ops_parse). `where` names the source in messages. */
int bpf_parse_bytecode(const char *str, const char *where,
		       struct sock_filter **out, uint32_t *len, char *err,
		       size_t errlen);

/* bytecode-file: newlines become commas, blank runs collapse (iproute2 >=
 * 4.13), so both `bpfc -f tc` and `tcpdump -ddd` output load. */
int bpf_read_bytecode_file(const char *path, struct sock_filter **out,
			   uint32_t *len, char *err, size_t errlen);

/* A tcpdump expression compiled by libpcap for DLT_EN10MB with tcpdump's
 * default snaplen (262144), optimised as tcpdump does. */
#define BPF_TCPDUMP_SNAPLEN 262144
int bpf_compile_expr(const char *expr, struct sock_filter **out, uint32_t *len,
		     char *err, size_t errlen);

/* The program as tc prints it: "N,c jt jf k,..." (malloc'd). */
char *bpf_format_bytecode(const struct sock_filter *insns, uint32_t len);

#endif
