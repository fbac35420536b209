/* fuzz_bytecode.c - tc's bytecode string (`bpf bytecode "N,c t f k,..."`)
 * through iproute2's parser rules, the checkers of both kernel versions,
 * and, when a checker accepts it, the interpreter over a few frames. The
 * dump must parse back to the same program, and a program the checker
 * accepted must not fault in the interpreter. */
#include "fuzz.h"

#include "bpf.h"
#include "bpf_asm.h"
#include "bpf_load.h"

static const uint8_t frames[][64] = {
    /* IPv4 TCP 22 -> 80, IHL 5 */
    {0,	 1,  2, 3,    4, 5,  6, 7, 8, 9,  10, 11, 0x08, 0x00, 0x45, 0x10, 0,
     40, 0,  1, 0x40, 0, 64, 6, 0, 0, 10, 0,  0,  1,	10,   0,    0,	  2,
     0,	 22, 0, 80,   0, 0,  0, 1, 0, 0,  0,  0,  0x50, 0x18, 1,    0},
    /* 802.1Q then IPv6 UDP */
    {0,	   1,	 2,    3,    4,	   5,	 6, 7, 8, 9, 10, 11, 0x81,
     0x00, 0x00, 0x05, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 8,	 17, 64},
    /* ARP */
    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 6, 7, 8, 9, 10, 11, 0x08, 0x06, 0, 1, 8, 0, 6, 4},
};
static const uint32_t lens[] = {54, 26, 20};

static uint32_t fixed_random(void *arg)
{
	return 0x12345678u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str = fuzz_cstr(data, size);
	struct sock_filter *insns = NULL, *again = NULL;
	uint32_t len = 0, len2 = 0;
	char err[512];

	if (bpf_parse_bytecode(str, "fuzz", &insns, &len, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	{
		char *dump = bpf_format_bytecode(insns, len);

		if (!dump)
			abort();
		if (bpf_parse_bytecode(dump, "dump", &again, &len2, err, sizeof(err)) ||
		    len2 != len || memcmp(again, insns, len * sizeof(*insns))) {
			fprintf(stderr, "fuzz_bytecode: the dump does not parse back: %s\n", dump);
			abort();
		}
		free(dump);
	}
	for (int k = 0; k < 2; k++) {
		enum bpf_kernel kernel = k ? BPF_KERNEL_3_13 : BPF_KERNEL_CURRENT;
		struct bpf_prog *prog;

		if (bpf_prog_load(&prog, insns, len, kernel, err, sizeof(err))) {
			if (!err[0])
				abort();
			continue;
		}
		for (size_t f = 0; f < sizeof(lens) / sizeof(lens[0]); f++) {
			struct bpf_skb skb;

			/* an exact-size copy: a load past the frame is an ASan report */
			uint8_t *frame = malloc(lens[f]);

			if (!frame)
				abort();
			memcpy(frame, frames[f], lens[f]);
			bpf_skb_init_ether(&skb, frame, lens[f], lens[f] + 10);
			skb.random = fixed_random;
			/* the interpreter under ASan; the JIT must agree with it */
			if (bpf_prog_run(prog, &skb) != bpf_prog_run_interp(prog, &skb)) {
				fprintf(stderr, "fuzz_bytecode: the JIT and the interpreter differ\n");
				abort();
			}
			free(frame);
		}
		/* the disassembler prints any checked program */
		for (uint32_t pc = 0; pc < len; pc++) {
			char line[128];

			bpf_disasm_insn(&insns[pc], pc, line, sizeof(line));
		}
		bpf_prog_free(prog);
	}
out:
	free(insns);
	free(again);
	free(str);
	return 0;
}
