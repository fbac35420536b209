/* bpf_asm.h - classic BPF assembly in the syntax of the kernel's bpf_asm and
 * netsniff-ng's bpfc, and the disassembler that prints it back. */
#ifndef TCSIM_BPF_ASM_H
#define TCSIM_BPF_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf.h"

/* Assembles src (the text of file `name`, used in messages). On success
 * returns 0 and *out (malloc'd, caller frees) holds *len instructions. On
 * error returns a negative errno and err holds one line:
 * "NAME:LINE: what is wrong". The program is not checked (bpf_check). */
int bpf_asm(const char *src, const char *name, struct sock_filter **out,
	    uint32_t *len, char *err, size_t errlen);

/* Reads and assembles a file. */
int bpf_asm_file(const char *path, struct sock_filter **out, uint32_t *len,
		 char *err, size_t errlen);

/* One instruction in assembly syntax, without a label, jump targets as
 * labels "L<n>" (pc-absolute). Returns the snprintf length. */
int bpf_disasm_insn(const struct sock_filter *in, uint32_t pc, char *buf,
		    size_t n);

/* Whole program: a label line "L<n>:" before every jump target, then one
 * indented instruction per line. Reassembles to the same bytes. */
void bpf_disasm(FILE *f, const struct sock_filter *insns, uint32_t len);

#endif
