/* fuzz_expr.c - a tcpdump expression (`bpf expr "..."` in a tc line,
 * `tcsim bpf -e`, --trace-filter) compiled by libpcap as tcpdump -ddd
 * does; what compiles goes through both checkers and runs on a frame. */
#include "fuzz.h"

#include "bpf.h"
#include "bpf_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_cstr(data, size);
	struct sock_filter *insns = NULL;
	uint32_t len = 0;
	char err[512];

	if (bpf_compile_expr(expr, &insns, &len, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* one line, always */
	} else {
		uint8_t *frame = malloc(60);

		if (!frame)
			abort();
		memset(frame, 0, 60);
		frame[12] = 0x08;
		frame[14] = 0x45;
		frame[23] = 6;
		for (int k = 0; k < 2; k++) {
			struct bpf_prog *prog;

			if (!bpf_prog_load(&prog, insns, len,
					   k ? BPF_KERNEL_3_13 : BPF_KERNEL_CURRENT, err,
					   sizeof(err))) {
				struct bpf_skb skb;

				bpf_skb_init_ether(&skb, frame, 60, 60);
				if (bpf_prog_run(prog, &skb) !=
				    bpf_prog_run_interp(prog, &skb))
					abort(); /* the JIT differs from the interpreter */
				bpf_prog_free(prog);
			}
		}
		free(frame);
	}
	free(insns);
	free(expr);
	return 0;
}
