/* flow_dissect.h - the kernel's flow dissector (net/core/flow_dissector.c,
 * skb_flow_dissect) over an egress frame: the flow keys sfq hashes, and
 * the transport offset behind the #poff ancillary load. */
#ifndef TCSIM_FLOW_DISSECT_H
#define TCSIM_FLOW_DISSECT_H

#include <stdint.h>

#include "bpf.h"

/* Address and port words hold the frame's bytes loaded as a little-endian
 * (x86) kernel loads them, so a hash over them is the kernel's hash. */
struct flow_keys {
	uint32_t src[4], dst[4]; /* IPv4: word 0 only; 3.13 IPv6: XOR-folded into word 0 */
	uint32_t ports;		 /* the 4 bytes at the transport header (sport, dport) */
	uint16_t n_proto;	 /* EtherType reached (current kernels key on it) */
	uint8_t ip_proto;	 /* 3.13: 0 for IPv4 fragments */
	uint32_t thoff;		 /* transport header offset in the frame */
};

/* Walks the headers from skb->net_off as `kernel` does: VLAN tags, PPPoE
 * sessions, GRE (version 0, no routing), IPIP and IPv6-in-IP are looked
 * through. Returns 1 when the walk reached the transport layer, 0 when it
 * gave up; the keys hold what was found until then (a non-IP frame gives
 * all-zero keys apart from current kernels' n_proto).
 *
 * 3.13: IPv4 fragments have protocol 0 and no ports; IPv6 addresses are
 * folded to 32 bits by XOR. Current kernels: fragments keep their protocol
 * (still no ports), full IPv6 addresses, n_proto. Not modelled for current
 * kernels: the IPv6 flow label, VLAN ids, GRE keys, MPLS, ICMP identifiers. */
int flow_dissect(const struct bpf_skb *skb, enum bpf_kernel kernel, struct flow_keys *keys);
/* The same over a frame given by its fields (skb->data, caplen, len,
 * net_off, protocol), for callers that have no skb view to build. */
int flow_dissect_frame(const uint8_t *data, uint32_t caplen, uint32_t len, uint32_t net_off,
		       uint16_t protocol, enum bpf_kernel kernel, struct flow_keys *keys);

/* __flow_hash_consistentify: puts the lower address (then port) first so
 * that both directions of a conversation give the same keys. */
void flow_keys_symmetric(struct flow_keys *keys);

/* The keys cls_flower matches (flow_dissector.c as fl_classify runs it on
 * a current kernel, FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP): the walk stops at
 * GRE, IPIP and IPv6-in-IP instead of looking through them, and at any IP
 * fragment before the transport header. Multi-byte fields are host order,
 * addresses network order (IPv4 in the first 4 bytes). */
struct flow_fl_keys {
	uint8_t dst_mac[6], src_mac[6];
	uint16_t n_proto;   /* the EtherType reached, after VLAN tags */
	uint8_t ip_proto;
	uint8_t addr_type;  /* 4 or 6 once an IP header was read, else 0 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport; /* 0 when not extracted */
	uint8_t tos, ttl;
	uint16_t tcp_flags; /* the low 12 bits of the TCP flag word */
	uint8_t icmp_type, icmp_code;
	uint8_t frag;       /* FLOW_DIS_IS_FRAGMENT */
	uint8_t vlan_prio;  /* the first VLAN tag (offloaded or in the frame) */
	uint16_t vlan_id, vlan_tpid, vlan_eth_type;
};
void flow_dissect_flower(const struct bpf_skb *skb, struct flow_fl_keys *keys);

#endif
