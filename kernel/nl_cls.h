/* nl_cls.h - `tcsim import`'s model of u32 and flower filters: what
 * nl_u32_flower.c reads from a filter's TCA_OPTIONS and nl_scen_u32_flower.c
 * writes back as tc lines. Kept apart from nl_import.h so that the
 * classifiers' fields stay in one place; nl_import.h includes it. */
#ifndef TCSIM_NL_CLS_H
#define TCSIM_NL_CLS_H

#include <stddef.h>
#include <stdint.h>

/* One key of a u32 selector (struct tc_u32_key), val and mask in host
 * order as `tc filter show` prints them. */
struct nli_u32_key {
	uint32_t val, mask;
	int32_t off, offmask;
};

/* A u32 element: a hash table (handle HT:0:0, TCA_U32_DIVISOR) or a key
 * node (TCA_U32_SEL and the rest). Byte-order fields in host order. */
struct nli_u32 {
	int table;
	uint32_t divisor; /* buckets (TCA_U32_DIVISOR), tables only */
	int has_sel;	  /* struct tc_u32_sel, field for field */
	uint8_t sflags, offshift, nkeys;
	uint16_t offmask, off;
	int16_t offoff, hoff;
	uint32_t hmask;
	struct nli_u32_key *keys; /* nkeys of them (malloc'd) */
	int has_hash, has_classid, has_link, has_flags, has_mark;
	uint32_t hash, classid, link, flags; /* TCA_U32_HASH, _CLASSID, _LINK, _FLAGS */
	uint32_t mark_val, mark_mask;	      /* TCA_U32_MARK */
};

/* A flower filter: the key attributes tcsim models, raw as the kernel
 * dumped them (network order where the kernel's is), indexed by their
 * TCA_FLOWER_* number; len 0 means absent. */
#define NLI_FL_NATTR 128
struct nli_flower {
	int has_classid;
	uint32_t classid, flags; /* TCA_FLOWER_CLASSID, TCA_FLOWER_FLAGS */
	uint8_t len[NLI_FL_NATTR];
	uint8_t val[NLI_FL_NATTR][16];
};

/* A basic filter: its classid and ematch tree, as cls.h's struct
 * cls_basic_em with the kernel's numbers (nl_basic.c). */
struct cls_basic_em;
struct nli_basic {
	int has_classid;
	uint32_t classid;
	unsigned n;		 /* matches (0: no tree) */
	struct cls_basic_em *em; /* n of them (malloc'd) */
};

struct nli_filter;
struct nlattr;

/* nl_u32_flower.c: a u32 or flower filter's TCA_OPTIONS (NULL: the
 * tcf_proto's own line) into f; what tcsim cannot rebuild goes to f->why.
 * 0 or -errno with one line (wh names the filter). */
int nl_cls_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		 size_t errlen);
/* Frees what nl_cls_parse allocated. */
void nl_cls_free(struct nli_filter *f);

#endif
