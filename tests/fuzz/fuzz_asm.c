/* fuzz_asm.c - the assembler (bpf_asm / bpfc syntax) and the round trip
 * the README promises: whatever assembles, disassembled, assembles to the
 * same bytes. Programs the checker accepts also run once. */
#include "fuzz.h"

#include "bpf.h"
#include "bpf_asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = fuzz_cstr(data, size);
	struct sock_filter *insns = NULL, *again = NULL;
	uint32_t len = 0, len2 = 0;
	char err[512], *text = NULL;
	size_t textlen = 0;
	FILE *f;

	if (bpf_asm(src, "fuzz.ops", &insns, &len, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* one line, always */
		goto out;
	}
	f = open_memstream(&text, &textlen);
	if (!f)
		abort();
	bpf_disasm(f, insns, len);
	fclose(f);
	if (bpf_asm(text, "disasm.ops", &again, &len2, err, sizeof(err))) {
		fprintf(stderr, "fuzz_asm: the disassembly does not assemble: %s\n%s", err, text);
		abort();
	}
	if (len2 != len || memcmp(again, insns, len * sizeof(*insns))) {
		fprintf(stderr, "fuzz_asm: the disassembly assembles to other bytes:\n%s", text);
		abort();
	}
	{
		struct bpf_prog *prog;
		uint8_t *frame = malloc(60);

		if (!frame)
			abort();
		memset(frame, 0x45, 60);
		if (!bpf_prog_load(&prog, insns, len, BPF_KERNEL_CURRENT, err, sizeof(err))) {
			struct bpf_skb skb;

			bpf_skb_init_ether(&skb, frame, 60, 60);
			if (bpf_prog_run(prog, &skb) != bpf_prog_run_interp(prog, &skb))
				abort(); /* the JIT differs from the interpreter */
			bpf_prog_free(prog);
		}
		free(frame);
	}
out:
	free(text);
	free(insns);
	free(again);
	free(src);
	return 0;
}
