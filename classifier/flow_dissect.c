/* flow_dissect.c - the flow dissector of net/core/flow_dissector.c as 3.13
 * wrote it, with the few differences of current kernels that change which
 * packets form one flow. */
#include <string.h>

#include "flow_dissect.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8
#define ETH_P_PPP_SES 0x8864
#define ETH_P_TEB 0x6558

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A 32-bit word of the frame as a little-endian kernel reads it. */
static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* proto_ports_offset: where the port pair (or SPI) lies in the transport
 * header, -1 for protocols without one. */
static int ports_offset(uint8_t ip_proto)
{
	switch (ip_proto) {
	case 6:	  /* TCP */
	case 17:  /* UDP */
	case 33:  /* DCCP */
	case 50:  /* ESP */
	case 132: /* SCTP */
	case 136: /* UDP-Lite */ return 0;
	case 51: /* AH */ return 4;
	default: return -1;
	}
}

int flow_dissect(const struct bpf_skb *skb, enum bpf_kernel kernel, struct flow_keys *k)
{
	return flow_dissect_frame(skb->data, skb->caplen, skb->len, skb->net_off, skb->protocol,
				  kernel, k);
}

int flow_dissect_frame(const uint8_t *d, uint32_t caplen, uint32_t len, uint32_t net_off,
		       uint16_t protocol, enum bpf_kernel kernel, struct flow_keys *k)
{
	uint32_t end = caplen < len ? caplen : len;
	uint32_t nh = net_off;
	uint16_t proto = protocol;
	int current = kernel != BPF_KERNEL_3_13;
	uint8_t ip_proto;
	int poff;

	memset(k, 0, sizeof(*k));
again:
	k->n_proto = current ? proto : 0;
	switch (proto) {
	case ETH_P_IP: {
		int frag;
	ip:
		/* 3.13 already refused a header length below five words */
		if (nh + 20 > end || (d[nh] & 0xf) < 5)
			return 0;
		frag = (get16(d + nh + 6) & 0x3fff) != 0;
		ip_proto = frag && !current ? 0 : d[nh + 9];
		memset(k->src, 0, sizeof(k->src));
		memset(k->dst, 0, sizeof(k->dst));
		k->src[0] = ld32(d + nh + 12);
		k->dst[0] = ld32(d + nh + 16);
		nh += (d[nh] & 0xfu) * 4;
		if (frag && current) {
			/* the fragment is dissected no further: no ports */
			k->ip_proto = ip_proto;
			k->thoff = nh;
			return 1;
		}
		break;
	}
	case ETH_P_IPV6:
	ipv6:
		if (nh + 40 > end)
			return 0;
		ip_proto = d[nh + 6];
		for (int i = 0; i < 4; i++) {
			k->src[i] = ld32(d + nh + 8 + 4 * i);
			k->dst[i] = ld32(d + nh + 24 + 4 * i);
		}
		if (!current) {
			k->src[0] ^= k->src[1] ^ k->src[2] ^ k->src[3];
			k->dst[0] ^= k->dst[1] ^ k->dst[2] ^ k->dst[3];
			k->src[1] = k->src[2] = k->src[3] = 0;
			k->dst[1] = k->dst[2] = k->dst[3] = 0;
		}
		nh += 40;
		break;
	case ETH_P_8021Q:
	case ETH_P_8021AD:
		if (nh + 4 > end)
			return 0;
		proto = get16(d + nh + 2);
		nh += 4;
		goto again;
	case ETH_P_PPP_SES:
		/* 6-byte session header, then the PPP protocol */
		if (nh + 8 > end)
			return 0;
		proto = get16(d + nh + 6);
		nh += 8;
		if (proto == 0x0021) {
			proto = ETH_P_IP;
			k->n_proto = current ? proto : 0;
			goto ip;
		}
		if (proto == 0x0057) {
			proto = ETH_P_IPV6;
			k->n_proto = current ? proto : 0;
			goto ipv6;
		}
		return 0;
	default: return 0;
	}

	switch (ip_proto) {
	case 47: { /* GRE: only version 0 without routing is looked into */
		uint16_t flags;

		if (nh + 4 > end)
			return 0;
		flags = get16(d + nh);
		if (flags & (0x0007 | 0x4000))
			break;
		proto = get16(d + nh + 2);
		nh += 4;
		nh += (flags & 0x8000) ? 4 : 0; /* checksum */
		nh += (flags & 0x2000) ? 4 : 0; /* key */
		nh += (flags & 0x1000) ? 4 : 0; /* sequence */
		if (proto == ETH_P_TEB) {
			if (nh + 14 > end)
				return 0;
			proto = get16(d + nh + 12);
			nh += 14;
		}
		goto again;
	}
	case 4: /* IPIP */
		proto = ETH_P_IP;
		k->n_proto = current ? proto : 0;
		goto ip;
	case 41: /* IPv6 in IP */
		proto = ETH_P_IPV6;
		k->n_proto = current ? proto : 0;
		goto ipv6;
	default: break;
	}

	k->ip_proto = ip_proto;
	k->thoff = nh;
	poff = ports_offset(ip_proto);
	if (poff >= 0 && nh + (uint32_t)poff + 4 <= end)
		k->ports = ld32(d + nh + (uint32_t)poff);
	return 1;
}

/* memcmp(a, b, 16) as -1, 0 or 1, without the library call: the words
 * hold the frame's bytes in memory order, so each compares as the
 * big-endian number of its bytes. */
static int addr_cmp(const uint32_t *a, const uint32_t *b)
{
	for (int i = 0; i < 4; i++) {
		if (a[i] != b[i]) {
			uint32_t x = a[i], y = b[i];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			x = __builtin_bswap32(x);
			y = __builtin_bswap32(y);
#endif
			return x < y ? -1 : 1;
		}
	}
	return 0;
}

void flow_keys_symmetric(struct flow_keys *k)
{
	int c = addr_cmp(k->dst, k->src);
	uint16_t sport = (uint16_t)k->ports, dport = (uint16_t)(k->ports >> 16);

	if (c < 0 || (c == 0 && dport < sport)) {
		/* word by word: the words were just stored one by one, and wider
		 * reads of them would wait for those stores to retire */
		uint32_t s0 = k->src[0], s1 = k->src[1], s2 = k->src[2], s3 = k->src[3];
		uint32_t d0 = k->dst[0], d1 = k->dst[1], d2 = k->dst[2], d3 = k->dst[3];

		/* (keeps a vectorising compiler from pairing them again) */
		__asm__("" : "+r"(s0), "+r"(s1), "+r"(s2), "+r"(s3));
		__asm__("" : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3));
		k->src[0] = d0;
		k->src[1] = d1;
		k->src[2] = d2;
		k->src[3] = d3;
		k->dst[0] = s0;
		k->dst[1] = s1;
		k->dst[2] = s2;
		k->dst[3] = s3;
		k->ports = (uint32_t)dport | (uint32_t)sport << 16;
	}
}

/* flow_dissect_flower: __skb_flow_dissect with the keys cls_flower asks
 * for. It differs from the walk above where flower sees other packets:
 * the first VLAN tag is a key (the offloaded one when present, as
 * skb_vlan_tag_present makes it), tunnels are not entered, IPv6 extension
 * headers are skipped, and a fragment of either family gets no ports, TCP
 * flags or ICMP fields (flower does not pass FLOW_DISSECTOR_F_PARSE_1ST_FRAG).
 * A tag left in the frame is read where 6.1 puts the network header for an
 * AF_PACKET sender: after the tags (see below). */
void flow_dissect_flower(const struct bpf_skb *skb, struct flow_fl_keys *k)
{
	const uint8_t *d = skb->data;
	uint32_t end = skb->caplen < skb->len ? skb->caplen : skb->len;
	uint32_t nh = skb->net_off;
	uint16_t proto = skb->vlan_present ? skb->vlan_proto : skb->protocol;
	int vlans = 0, ipv6 = 0;
	uint8_t ip_proto = 0;
	int poff;

	memset(k, 0, sizeof(*k));
	if (end >= 12) {
		memcpy(k->dst_mac, d, 6);
		memcpy(k->src_mac, d + 6, 6);
	}
	if (!skb->vlan_present && (proto == ETH_P_8021Q || proto == ETH_P_8021AD)) {
		/* A tag kept in the frame (an AF_PACKET sender, --vlan inline):
		 * packet_parse_headers (6.1) puts the network header after all
		 * tags while skb->protocol stays 802.1Q, so the dissector takes
		 * the first bytes of the IP header for a VLAN tag. */
		uint16_t t = proto;

		while ((t == ETH_P_8021Q || t == ETH_P_8021AD) && nh + 4 <= end) {
			t = get16(d + nh + 2);
			nh += 4;
		}
	}
again:
	switch (proto) {
	case ETH_P_8021Q:
	case ETH_P_8021AD: {
		uint16_t tpid = proto, tci;

		if (!vlans && skb->vlan_present) {
			tci = skb->vlan_tci;
			proto = skb->protocol;
		} else {
			if (nh + 4 > end)
				goto out;
			tci = get16(d + nh);
			proto = get16(d + nh + 2);
			nh += 4;
		}
		if (!vlans++) {
			k->vlan_id = tci & 0x0fff;
			k->vlan_prio = (uint8_t)(tci >> 13);
			k->vlan_tpid = tpid;
			k->vlan_eth_type = proto;
		}
		goto again;
	}
	case ETH_P_PPP_SES:
		if (nh + 8 > end)
			goto out;
		proto = get16(d + nh + 6);
		nh += 8;
		if (proto == 0x0021)
			proto = ETH_P_IP;
		else if (proto == 0x0057)
			proto = ETH_P_IPV6;
		else
			goto out;
		goto again;
	case ETH_P_IP: {
		uint16_t frag;

		if (nh + 20 > end || (d[nh] & 0xf) < 5)
			goto out;
		ip_proto = d[nh + 9];
		k->addr_type = 4;
		memcpy(k->src, d + nh + 12, 4);
		memcpy(k->dst, d + nh + 16, 4);
		k->tos = d[nh + 1];
		k->ttl = d[nh + 8];
		frag = get16(d + nh + 6) & 0x3fff;
		nh += (d[nh] & 0xfu) * 4;
		if (frag) {
			k->frag = 1;
			goto out;
		}
		break;
	}
	case ETH_P_IPV6:
		if (nh + 40 > end)
			goto out;
		ip_proto = d[nh + 6];
		k->addr_type = 6;
		memcpy(k->src, d + nh + 8, 16);
		memcpy(k->dst, d + nh + 24, 16);
		k->tos = (uint8_t)(get16(d + nh) >> 4);
		k->ttl = d[nh + 7];
		nh += 40;
		ipv6 = 1;
		break;
	default: goto out;
	}

	for (;;) {
		if (ipv6 && (ip_proto == 0 || ip_proto == 43 || ip_proto == 60)) {
			/* hop-by-hop, routing, destination options */
			if (nh + 2 > end)
				goto out;
			ip_proto = d[nh];
			nh += (d[nh + 1] + 1u) * 8;
			continue;
		}
		if (ipv6 && ip_proto == 44) {
			/* the fragment header: its next header is the protocol */
			if (nh + 8 > end)
				goto out;
			ip_proto = d[nh];
			k->frag = 1;
			goto out;
		}
		break;
	}
	if (ip_proto == 6 && nh + 20 <= end && (d[nh + 12] >> 4) >= 5)
		k->tcp_flags = get16(d + nh + 12) & 0x0fff;
	if ((ip_proto == 1 || ip_proto == 58) && nh + 2 <= end) {
		k->icmp_type = d[nh];
		k->icmp_code = d[nh + 1];
	}
	poff = ports_offset(ip_proto);
	if (poff >= 0 && nh + (uint32_t)poff + 4 <= end) {
		k->sport = get16(d + nh + (uint32_t)poff);
		k->dport = get16(d + nh + (uint32_t)poff + 2);
	}
out:
	k->n_proto = proto;
	k->ip_proto = ip_proto;
}
