/* bpf.h - the classic BPF machine as the Linux kernel runs it for cls_bpf:
 * instruction records, the load-time checker, the pre-decoded interpreter
 * with the kernel's ancillary loads, and the program value they share. */
#ifndef TCSIM_BPF_H
#define TCSIM_BPF_H

#include <stddef.h>
#include <stdint.h>

#define BPF_MAXINSNS 4096
#define BPF_MEMWORDS 16
#define BPF_ERRLEN 256

/* Opcode fields (include/uapi/linux/bpf_common.h, filter.h); libpcap's
 * <pcap/bpf.h> defines the same names with the same values. */
#ifndef BPF_CLASS
#define BPF_CLASS(c) ((c)&0x07)
#define BPF_LD 0x00
#define BPF_LDX 0x01
#define BPF_ST 0x02
#define BPF_STX 0x03
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_MISC 0x07
#define BPF_SIZE(c) ((c)&0x18)
#define BPF_W 0x00
#define BPF_H 0x08
#define BPF_B 0x10
#define BPF_MODE(c) ((c)&0xe0)
#define BPF_IMM 0x00
#define BPF_ABS 0x20
#define BPF_IND 0x40
#define BPF_MEM 0x60
#define BPF_LEN 0x80
#define BPF_MSH 0xa0
#define BPF_OP(c) ((c)&0xf0)
#define BPF_ADD 0x00
#define BPF_SUB 0x10
#define BPF_MUL 0x20
#define BPF_DIV 0x30
#define BPF_OR 0x40
#define BPF_AND 0x50
#define BPF_LSH 0x60
#define BPF_RSH 0x70
#define BPF_NEG 0x80
#define BPF_MOD 0x90
#define BPF_XOR 0xa0
#define BPF_JA 0x00
#define BPF_JEQ 0x10
#define BPF_JGT 0x20
#define BPF_JGE 0x30
#define BPF_JSET 0x40
#define BPF_SRC(c) ((c)&0x08)
#define BPF_K 0x00
#define BPF_X 0x08
#define BPF_RVAL(c) ((c)&0x18)
#define BPF_A 0x10
#define BPF_MISCOP(c) ((c)&0xf8)
#define BPF_TAX 0x00
#define BPF_TXA 0x80
#endif

/* Negative offsets (include/uapi/linux/filter.h). */
#define SKF_AD_OFF (-0x1000)
#define SKF_NET_OFF (-0x100000)
#define SKF_LL_OFF (-0x200000)
#define SKF_AD_PROTOCOL 0
#define SKF_AD_PKTTYPE 4
#define SKF_AD_IFINDEX 8
#define SKF_AD_NLATTR 12
#define SKF_AD_NLATTR_NEST 16
#define SKF_AD_MARK 20
#define SKF_AD_QUEUE 24
#define SKF_AD_HATYPE 28
#define SKF_AD_RXHASH 32
#define SKF_AD_CPU 36
#define SKF_AD_ALU_XOR_X 40
#define SKF_AD_VLAN_TAG 44
#define SKF_AD_VLAN_TAG_PRESENT 48
#define SKF_AD_PAY_OFFSET 52
#define SKF_AD_RANDOM 56
#define SKF_AD_VLAN_TPID 60

/* One instruction, as the kernel names it (struct sock_filter, 8 bytes).
 * NOTE: named sock_filter, not bpf_insn, so this header and libpcap's
 * <pcap/bpf.h> (which has its own struct bpf_insn) fit in one file. */
struct sock_filter {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

/* Which kernel's rules apply. Current kernels reject constant shifts >= 32
 * and know RANDOM and VLAN_TPID; 3.13 (the release that added cls_bpf) does
 * not, and reports VLAN_TAG without the old "present" bit 0x1000. */
enum bpf_kernel {
	BPF_KERNEL_CURRENT = 0,
	BPF_KERNEL_3_13 = 1,
};

/* What the program sees of the skb: the L2 frame from the Ethernet header
 * (skb->data at egress) and the metadata the ancillary loads read. */
struct bpf_skb {
	const uint8_t *data; /* captured bytes of the frame */
	uint32_t caplen;     /* bytes present in data */
	uint32_t len;        /* skb->len: original frame length, no FCS */
	uint32_t net_off;    /* network header offset (14 for Ethernet) */
	uint16_t protocol;   /* skb->protocol, host order (0x0800 for IPv4) */
	uint8_t pkttype;     /* PACKET_HOST (0) at egress */
	uint8_t vlan_present; /* out-of-band (offloaded) VLAN tag */
	uint16_t vlan_tci;
	uint16_t vlan_proto; /* host order, 0 when no tag */
	uint32_t ifindex;
	uint32_t mark;
	uint32_t queue_mapping;
	uint32_t hatype; /* ARPHRD_ETHER = 1 */
	uint32_t hash;   /* skb->hash / rxhash */
	uint32_t cpu;
	uint32_t priority; /* skb->priority (cls_basic's meta ematch) */
	/* SKF_AD_RANDOM: called once per load; NULL gives 0. */
	uint32_t (*random)(void *arg);
	void *random_arg;
};

/* Fills an skb view for an Ethernet frame leaving an egress device in the
 * model: protocol from the EtherType, network header after the MAC header,
 * ifindex 2, hatype ARPHRD_ETHER, everything else 0. */
void bpf_skb_init_ether(struct bpf_skb *skb, const uint8_t *frame,
			uint32_t caplen, uint32_t len);

/* A checked, pre-decoded program. */
struct bpf_dinsn;
struct bpf_prog {
	uint32_t len;             /* instructions */
	struct sock_filter *insns;   /* as given, kept verbatim for dumps */
	struct bpf_dinsn *code;   /* decoded for the interpreter */
	enum bpf_kernel kernel;
	/* Native code (bpf_jit.c) when the JIT compiled it, else NULL. */
	uint32_t (*jited)(const struct bpf_skb *skb);
	void *jit_image; /* its mapping, read + exec */
	size_t jit_size;
};

/* The JIT switch, read at each load like the kernel's
 * net.core.bpf_jit_enable: TCSIM_BPF_JIT unset, empty or "1" compiles
 * programs to native code where tcsim can (x86-64), "0" keeps them on the
 * interpreter. Returns 1, 0, or -EINVAL naming a value that is neither. */
int bpf_jit_enabled(char *err, size_t errlen);

/* The kernel's load-time checker (net/core/filter.c, bpf_check_classic and
 * check_load_and_stores). Returns 0 or -EINVAL with a message naming the
 * instruction index and the rule. */
int bpf_check(const struct sock_filter *insns, uint32_t len, enum bpf_kernel kernel,
	      char *err, size_t errlen);

/* Checks and decodes, and compiles to native code when the JIT is on
 * (bpf_jit_enabled); on success *out owns a copy of insns. */
int bpf_prog_load(struct bpf_prog **out, const struct sock_filter *insns,
		  uint32_t len, enum bpf_kernel kernel, char *err, size_t errlen);
void bpf_prog_free(struct bpf_prog *prog);

/* Runs a loaded program over one skb with the interpreter, as cls_bpf
 * does: returns the u32 verdict (0 also for any runtime fault). */
uint32_t bpf_prog_run_interp(const struct bpf_prog *prog, const struct bpf_skb *skb);

/* The same verdict, from the native code when the program has some. */
static inline uint32_t bpf_prog_run(const struct bpf_prog *prog, const struct bpf_skb *skb)
{
	if (prog->jited)
		return prog->jited(skb);
	return bpf_prog_run_interp(prog, skb);
}

/* Machine state handed to a tracer before each instruction executes, and
 * once more (pc == prog->len) with the result. */
struct bpf_trace_state {
	uint32_t pc;
	uint32_t A, X;
	uint32_t M[BPF_MEMWORDS];
	uint16_t mem_valid; /* bit i: M[i] written on this path */
	int done;           /* 1 on the final call */
	int fault;          /* 1 if the program ended by a runtime fault */
	const char *fault_why;
	uint32_t ret;
};
typedef void (*bpf_tracer)(const struct bpf_prog *prog,
			   const struct bpf_trace_state *st, void *arg);

/* The same as bpf_prog_run, one instruction at a time, calling tracer before
 * each one (slow path, for --trace and explain). */
uint32_t bpf_prog_run_traced(const struct bpf_prog *prog,
			     const struct bpf_skb *skb, bpf_tracer tracer,
			     void *arg);

/* Name of the ancillary load at k (SKF_AD_OFF + n), or NULL. */
const char *bpf_anc_name(uint32_t k);
/* 1 if the kernel version knows ancillary offset k. */
int bpf_anc_known(uint32_t k, enum bpf_kernel kernel);
/* 1 if code is in the kernel's opcode whitelist. */
int bpf_code_allowed(uint16_t code);

#endif
