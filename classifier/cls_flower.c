/* cls_flower.c - the flower classifier as net/sched/cls_flower.c runs it in
 * software: each filter is a key and a mask over the dissected packet;
 * filters with equal masks share one mask, the masks are tried in the order
 * they were created and the first filter whose masked key equals the
 * packet's wins. Option words are parsed and refused as iproute2's
 * tc/f_flower.c does; the kernel then drops silently the keys that do not
 * fit the protocol (fl_set_key). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "cls.h"
#include "flow_dissect.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8
#define IPPROTO_ICMP_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58
#define IPPROTO_SCTP_ 132

#define FL_SKIP_HW 1u /* TCA_CLS_FLAGS_SKIP_HW */

/* struct fl_flow_key is struct cls_flower_key (cls.h): the same layout serves
 * as key and as mask (a zero mask field is not matched). Zeroed as a whole
 * so that two masks compare with memcmp, as the kernel's rhashtable does. */

/* struct fl_flow_mask: one per distinct mask, in head->masks order. */
struct fl_mask {
	struct fl_mask *next;
	struct cls_flower_key key;
	unsigned refs; /* filters using it; it goes with the last one */
	int range;     /* TCA_FLOWER_MASK_FLAGS_RANGE: a port range is masked */
};

struct fl_filter {
	struct fl_filter *next; /* insertion order (mask->filters order) */
	struct fl_mask *mask;
	struct cls_flower_key key;
	uint32_t handle;
	uint32_t classid;
	uint32_t flags; /* FL_SKIP_HW */
	int vlan_ethtype; /* the request named vlan_ethtype (show prints it) */
	uint64_t hits;
};

struct fl_head {
	struct fl_mask *masks;
	struct fl_filter *filters;
};

static const char usage[] =
	"Usage: ... flower [ MATCH-LIST ] [ skip_sw | skip_hw ] [ classid CLASSID ]; "
	"MATCH := { vlan_id VID | vlan_prio PRIORITY | vlan_ethtype ETH-TYPE | "
	"dst_mac MASKED-LLADDR | src_mac MASKED-LLADDR | "
	"ip_proto [ tcp | udp | sctp | icmp | icmpv6 | IP-PROTO ] | ip_tos MASKED-IP_TOS | "
	"ip_ttl MASKED-IP_TTL | dst_ip PREFIX | src_ip PREFIX | dst_port PORT-NUMBER | "
	"src_port PORT-NUMBER | tcp_flags MASKED-TCP_FLAGS | type MASKED-ICMP-TYPE | "
	"code MASKED-ICMP-CODE }";

/* iproute2's flower words that tcsim does not model, in f_flower.c's order
 * of prefix matching; refused by name rather than with "What is". */
static const char *const unmodelled[] = {
	"hw_tc",     "ip_flags",   "ct_state",     "ct_zone",	"ct_mark",
	"ct_label",  "indev",      "num_of_vlans", "cvlan_id",	"cvlan_prio",
	"cvlan_ethtype", "mpls",   "mpls_label",   "mpls_tc",	"mpls_bos",
	"mpls_ttl",  "arp_tip",    "arp_sip",      "arp_op",	"arp_tha",
	"arp_sha",   "enc_dst_ip", "enc_src_ip",   "enc_key_id", "enc_dst_port",
	"enc_tos",   "enc_ttl",    "geneve_opts",  "vxlan_opts", "erspan_opts",
	"action",    "police",     NULL,
};

/* ---- parsing: the values as iproute2's get_u8/get_u16 read them ---- */

static int get_ul(unsigned long *v, const char *s, int base, unsigned long max)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, base);
	if (*end || errno || *v > max)
		return -1;
	return 0;
}

static int get_u8v(uint8_t *v, const char *s, int base)
{
	unsigned long x;

	if (get_ul(&x, s, base, 0xff))
		return -1;
	*v = (uint8_t)x;
	return 0;
}

static int get_u16v(uint16_t *v, const char *s, int base)
{
	unsigned long x;

	if (get_ul(&x, s, base, 0xffff))
		return -1;
	*v = (uint16_t)x;
	return 0;
}

/* "VALUE[/MASK]" split in a copy: value and mask (NULL without a slash). */
static void split_mask(char *buf, size_t n, const char *s, char **mask)
{
	char *slash;

	snprintf(buf, n, "%s", s);
	slash = strchr(buf, '/');
	*mask = NULL;
	if (slash) {
		*slash = 0;
		*mask = slash + 1;
	}
}

/* ll_addr_a2n for a 6-byte address: hex bytes separated by ':'. */
static int get_mac(uint8_t *mac, const char *s)
{
	int i = 0;

	while (i < 6) {
		char *end;
		unsigned long b;

		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
			return -1;
		b = strtoul(s, &end, 16);
		if (b > 0xff || end - s > 2)
			return -1;
		mac[i++] = (uint8_t)b;
		s = end;
		if (!*s)
			break;
		if (*s != ':' || i == 6)
			return -1;
		s++;
	}
	return i == 6 ? 0 : -1;
}

/* flower_parse_eth_addr: ADDR, ADDR/BITS or ADDR/MASK. */
static int get_masked_mac(uint8_t *mac, uint8_t *mask, const char *s)
{
	char buf[64], *m;
	unsigned long bits;

	split_mask(buf, sizeof(buf), s, &m);
	if (get_mac(mac, buf))
		return -1;
	if (!m) {
		memset(mask, 0xff, 6);
		return 0;
	}
	if (!get_ul(&bits, m, 10, UINT_MAX)) {
		memset(mask, 0, 6);
		for (unsigned long b = 0; b < bits && b < 48; b++)
			mask[b / 8] |= (uint8_t)(0x80 >> (b % 8));
		return 0;
	}
	return get_mac(mask, m);
}

/* get_prefix: an address of the family, with an optional /LEN or a
 * contiguous dotted mask; anything else is an error tc exits on. */
static int get_prefix(uint8_t *addr, uint8_t *mask, int *family, const char *s)
{
	char buf[128], *m;
	int len = -1, max;

	split_mask(buf, sizeof(buf), s, &m);
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1)
		*family = 4;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		*family = 6;
	else
		return -1;
	max = *family == 4 ? 32 : 128;
	if (!m) {
		len = max;
	} else {
		unsigned long v;
		uint8_t nm[4];

		if (!get_ul(&v, m, 10, (unsigned long)max)) {
			len = (int)v;
		} else if (*family == 4 && inet_pton(AF_INET, m, nm) == 1) {
			uint32_t x = (uint32_t)nm[0] << 24 | (uint32_t)nm[1] << 16 | (uint32_t)nm[2] << 8 | nm[3];

			/* get_netmask accepts only a prefix written as a mask */
			if (x & (~x >> 1))
				return -1;
			len = __builtin_popcount(x);
			if (len && (uint32_t)(x << len))
				return -1;
		} else {
			return -1;
		}
	}
	memset(mask, 0, 16);
	for (int b = 0; b < len; b++)
		mask[b / 8] |= (uint8_t)(0x80 >> (b % 8));
	return 0;
}

/* parse_range / flower_parse_port: N, N-M (N < M, both non-zero) or N/MASK. */
static int get_port(const char *s, uint16_t *port, uint16_t *mask, uint16_t *min, uint16_t *max,
		    const char **why)
{
	char buf[64], *dash, *m;

	*port = *mask = *min = *max = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash) {
		*dash = 0;
		if (!get_u16v(min, buf, 10) && !get_u16v(max, dash + 1, 10)) {
			if (!*min || !*max)
				return -1;
			if (*max <= *min) {
				*why = "max value should be greater than min value";
				return -1;
			}
			return 0;
		}
		*min = *max = 0;
	} else if (!get_u16v(port, buf, 10)) {
		*mask = 0xffff;
		return *port ? 0 : -1;
	}
	split_mask(buf, sizeof(buf), s, &m);
	if (!m || get_u16v(port, buf, 0) || get_u16v(mask, m, 0))
		return -1;
	return 0;
}

/* One request's words, as flower_parse_opt takes them and fl_set_key keeps
 * them. */
struct fl_opts {
	struct cls_flower_key key, mask;
	uint32_t classid;
	uint32_t flags;
	int vlan_ethtype;
};

static int fl_fail(const struct tcf_request *req, char *err, size_t errlen, const char *what,
		   const char *why)
{
	if (why)
		return errmsg(err, errlen, -EINVAL, "%s: flower: Illegal \"%s\" (%s)", req->where, what, why);
	return errmsg(err, errlen, -EINVAL, "%s: flower: Illegal \"%s\"", req->where, what);
}

static int is_vlan(uint16_t proto)
{
	return proto == ETH_P_8021Q || proto == ETH_P_8021AD;
}

static int fl_parse(const struct tcf_request *req, uint16_t tc_proto, struct fl_opts *o, char *err,
		    size_t errlen)
{
	/* what iproute2 sends, before the kernel's fl_set_key sorts it */
	struct cls_flower_key k = {0}, m = {0};
	int has_tos = 0, has_ttl = 0, has_flags = 0, has_icmp = 0;
	uint16_t eth_type = tc_proto, vlan_ethtype = 0;
	uint8_t ip_proto = 0xff;

	memset(o, 0, sizeof(*o));
	memset(&k, 0, sizeof(k));
	memset(&m, 0, sizeof(m));
	for (int i = 0; i < req->argc; i++) {
		const char *w = req->argv[i], *v = i + 1 < req->argc ? req->argv[i + 1] : NULL;
		const char *why = NULL;
		char buf[64], *mk;

#define NEED_ARG()                                                                                 \
	do {                                                                                       \
		if (!v)                                                                            \
			return errmsg(err, errlen, -EINVAL,                                        \
				      "%s: flower: Command line is not complete. Try option \"help\"", \
				      req->where);                                                 \
		i++;                                                                               \
	} while (0)

		if (tc_matches(w, "classid") || tc_matches(w, "flowid")) {
			NEED_ARG();
			if (tc_get_classid(&o->classid, v))
				return fl_fail(req, err, errlen, "classid", NULL);
			continue;
		}
		if (tc_matches(w, "hw_tc") || tc_matches(w, "ip_flags"))
			goto unmodelled;
		if (tc_matches(w, "verbose"))
			continue; /* the kernel's extended error reporting: no effect here */
		if (tc_matches(w, "skip_hw")) {
			o->flags |= FL_SKIP_HW;
			continue;
		}
		if (tc_matches(w, "skip_sw"))
			/* fl_hw_replace_filter: no device in tcsim offloads, and a
			 * filter that lives only in hardware cannot be installed */
			return errmsg(err, errlen, -EOPNOTSUPP,
				      "%s: RTNETLINK answers: Operation not supported (skip_sw: the device does not offload flower)",
				      req->where);
		if (tc_matches(w, "ct_state") || tc_matches(w, "ct_zone") || tc_matches(w, "ct_mark") ||
		    tc_matches(w, "ct_label") || tc_matches(w, "indev") || !strcmp(w, "num_of_vlans"))
			goto unmodelled;
		if (tc_matches(w, "vlan_id")) {
			NEED_ARG();
			if (!is_vlan(tc_proto))
				return errmsg(err, errlen, -EINVAL,
					      "%s: flower: Can't set \"vlan_id\" if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0",
					      req->where);
			if (get_u16v(&k.vlan_id, v, 10) || k.vlan_id & ~0xfff)
				return fl_fail(req, err, errlen, "vlan_id", NULL);
			m.vlan_id = 0xfff;
			continue;
		}
		if (tc_matches(w, "vlan_prio")) {
			NEED_ARG();
			if (!is_vlan(tc_proto))
				return errmsg(err, errlen, -EINVAL,
					      "%s: flower: Can't set \"vlan_prio\" if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0",
					      req->where);
			if (get_u8v(&k.vlan_prio, v, 10) || k.vlan_prio > 7)
				return fl_fail(req, err, errlen, "vlan_prio", NULL);
			m.vlan_prio = 7;
			continue;
		}
		if (tc_matches(w, "vlan_ethtype")) {
			NEED_ARG();
			if (!is_vlan(eth_type))
				return errmsg(err, errlen, -EINVAL,
					      "%s: flower: Can't set \"vlan_ethtype\" if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0",
					      req->where);
			if (tc_get_protocol(&vlan_ethtype, v))
				return errmsg(err, errlen, -EINVAL,
					      "%s: flower: Error: argument \"%s\" is wrong: invalid vlan_ethtype",
					      req->where, v);
			eth_type = vlan_ethtype;
			o->vlan_ethtype = 1;
			continue;
		}
		if (tc_matches(w, "cvlan_id") || tc_matches(w, "cvlan_prio") ||
		    tc_matches(w, "cvlan_ethtype") || tc_matches(w, "mpls") ||
		    tc_matches(w, "mpls_label") || tc_matches(w, "mpls_tc") ||
		    tc_matches(w, "mpls_bos") || tc_matches(w, "mpls_ttl"))
			goto unmodelled;
		if (tc_matches(w, "dst_mac") || tc_matches(w, "src_mac")) {
			int dst = tc_matches(w, "dst_mac");

			NEED_ARG();
			if (get_masked_mac(dst ? k.dst_mac : k.src_mac, dst ? m.dst_mac : m.src_mac, v)) {
				snprintf(buf, sizeof(buf), "\"%s\" is invalid lladdr.", v);
				return fl_fail(req, err, errlen, dst ? "dst_mac" : "src_mac", buf);
			}
			continue;
		}
		if (tc_matches(w, "ip_proto")) {
			NEED_ARG();
			if (eth_type != ETH_P_IP && eth_type != ETH_P_IPV6)
				return fl_fail(req, err, errlen, "ip_proto", "Illegal \"eth_type\" for ip proto");
			if (tc_matches(v, "tcp"))
				ip_proto = IPPROTO_TCP_;
			else if (tc_matches(v, "udp"))
				ip_proto = IPPROTO_UDP_;
			else if (tc_matches(v, "sctp"))
				ip_proto = IPPROTO_SCTP_;
			else if (tc_matches(v, "icmp") && eth_type == ETH_P_IP)
				ip_proto = IPPROTO_ICMP_;
			else if (tc_matches(v, "icmp"))
				return fl_fail(req, err, errlen, "ip_proto", "Illegal \"eth_type\" for ip proto");
			else if (tc_matches(v, "icmpv6") && eth_type == ETH_P_IPV6)
				ip_proto = IPPROTO_ICMPV6_;
			else if (tc_matches(v, "icmpv6"))
				return fl_fail(req, err, errlen, "ip_proto", "Illegal \"eth_type\" for ip proto");
			else if (get_u8v(&ip_proto, v, 16)) /* IP-PROTO is hexadecimal */
				return fl_fail(req, err, errlen, "ip_proto", NULL);
			continue;
		}
		if (tc_matches(w, "ip_tos") || tc_matches(w, "ip_ttl")) {
			int tos = tc_matches(w, "ip_tos");
			uint8_t val, msk = 0xff;

			NEED_ARG();
			split_mask(buf, sizeof(buf), v, &mk);
			if ((get_u8v(&val, buf, 10) && get_u8v(&val, buf, 16)) ||
			    (mk && get_u8v(&msk, mk, 16)))
				return fl_fail(req, err, errlen, tos ? "ip_tos" : "ip_ttl", NULL);
			if (tos) {
				k.tos = val;
				m.tos = msk;
				has_tos = 1;
			} else {
				k.ttl = val;
				m.ttl = msk;
				has_ttl = 1;
			}
			continue;
		}
		if (tc_matches(w, "dst_ip") || tc_matches(w, "src_ip")) {
			int dst = tc_matches(w, "dst_ip"), fam;
			uint8_t a[16], am[16];

			NEED_ARG();
			if (eth_type != ETH_P_IP && eth_type != ETH_P_IPV6 && eth_type)
				return fl_fail(req, err, errlen, dst ? "dst_ip" : "src_ip", NULL);
			if (get_prefix(a, am, &fam, v))
				return errmsg(err, errlen, -EINVAL,
					      "%s: flower: Error: inet prefix is expected rather than \"%s\".",
					      req->where, v);
			if ((eth_type == ETH_P_IP && fam != 4) || (eth_type == ETH_P_IPV6 && fam != 6))
				return fl_fail(req, err, errlen, dst ? "dst_ip" : "src_ip",
					       "Illegal \"eth_type\" for ip address");
			if (k.addr_type && k.addr_type != fam) {
				/* the kernel takes the IPv4 pair over the IPv6 one */
				if (fam == 6)
					continue;
				memset(k.src, 0, 16);
				memset(k.dst, 0, 16);
				memset(m.src, 0, 16);
				memset(m.dst, 0, 16);
			}
			k.addr_type = (uint8_t)fam;
			m.addr_type = 0xff;
			memcpy(dst ? k.dst : k.src, a, 16);
			memcpy(dst ? m.dst : m.src, am, 16);
			continue;
		}
		if (tc_matches(w, "dst_port") || tc_matches(w, "src_port")) {
			int dst = tc_matches(w, "dst_port");
			uint16_t p, pm, lo, hi;

			NEED_ARG();
			if (get_port(v, &p, &pm, &lo, &hi, &why) ||
			    (ip_proto != IPPROTO_TCP_ && ip_proto != IPPROTO_UDP_ && ip_proto != IPPROTO_SCTP_))
				return fl_fail(req, err, errlen, dst ? "dst_port" : "src_port", why);
			if (dst) {
				if (pm) {
					k.dport = p;
					m.dport = pm;
				} else {
					k.dport_min = lo;
					k.dport_max = hi;
					m.dport_min = m.dport_max = 0xffff;
				}
			} else {
				if (pm) {
					k.sport = p;
					m.sport = pm;
				} else {
					k.sport_min = lo;
					k.sport_max = hi;
					m.sport_min = m.sport_max = 0xffff;
				}
			}
			continue;
		}
		if (tc_matches(w, "tcp_flags")) {
			uint16_t f, fm = 0xfff;

			NEED_ARG();
			split_mask(buf, sizeof(buf), v, &mk);
			if (get_u16v(&f, buf, 16) || f & ~0xfff || (mk && (get_u16v(&fm, mk, 16) || fm & ~0xfff)))
				return fl_fail(req, err, errlen, "tcp_flags", NULL);
			k.tcp_flags = f;
			m.tcp_flags = fm;
			has_flags = 1;
			continue;
		}
		if (tc_matches(w, "type") || tc_matches(w, "code")) {
			int type = tc_matches(w, "type");
			uint8_t val, msk = 0xff;

			NEED_ARG();
			split_mask(buf, sizeof(buf), v, &mk);
			if (!((eth_type == ETH_P_IP && ip_proto == IPPROTO_ICMP_) ||
			      (eth_type == ETH_P_IPV6 && ip_proto == IPPROTO_ICMPV6_)) ||
			    get_u8v(&val, buf, 10) || (mk && get_u8v(&msk, mk, 10)))
				return fl_fail(req, err, errlen, type ? "icmp type" : "icmp code", NULL);
			if (type) {
				k.icmp_type = val;
				m.icmp_type = msk;
			} else {
				k.icmp_code = val;
				m.icmp_code = msk;
			}
			has_icmp = 1;
			continue;
		}
		if (!strcmp(w, "help"))
			return errmsg(err, errlen, -EINVAL, "%s: flower: %s", req->where, usage);
		for (int j = 0; unmodelled[j]; j++)
			if (tc_matches(w, unmodelled[j]))
				goto unmodelled;
		return errmsg(err, errlen, -EINVAL, "%s: flower: What is \"%s\"? %s", req->where, w, usage);
unmodelled:
		return errmsg(err, errlen, -EOPNOTSUPP, "%s: flower: \"%s\" is not modelled by tcsim",
			      req->where, w);
#undef NEED_ARG
	}

	/* fl_set_key: what the kernel keeps of it */
	memcpy(o->key.dst_mac, k.dst_mac, 6);
	memcpy(o->mask.dst_mac, m.dst_mac, 6);
	memcpy(o->key.src_mac, k.src_mac, 6);
	memcpy(o->mask.src_mac, m.src_mac, 6);
	if (tc_proto != ETH_P_ALL) {
		/* iproute2 sends TCA_FLOWER_KEY_ETH_TYPE unless the protocol is all */
		if (is_vlan(tc_proto)) {
			o->key.vlan_tpid = tc_proto;
			o->mask.vlan_tpid = 0xffff;
			o->key.vlan_id = k.vlan_id;
			o->mask.vlan_id = m.vlan_id;
			o->key.vlan_prio = k.vlan_prio;
			o->mask.vlan_prio = m.vlan_prio;
			if (o->vlan_ethtype) {
				o->key.vlan_eth_type = vlan_ethtype;
				o->mask.vlan_eth_type = 0xffff;
				if (!is_vlan(vlan_ethtype)) {
					o->key.n_proto = vlan_ethtype;
					o->mask.n_proto = 0xffff;
				}
			}
		} else {
			o->key.n_proto = tc_proto;
			o->mask.n_proto = 0xffff;
		}
	}
	if (o->key.n_proto == ETH_P_IP || o->key.n_proto == ETH_P_IPV6) {
		if (ip_proto != 0xff) {
			o->key.ip_proto = ip_proto;
			o->mask.ip_proto = 0xff;
		}
		if (has_tos) {
			o->key.tos = k.tos;
			o->mask.tos = m.tos;
		}
		if (has_ttl) {
			o->key.ttl = k.ttl;
			o->mask.ttl = m.ttl;
		}
	}
	if (m.addr_type) {
		o->key.addr_type = k.addr_type;
		o->mask.addr_type = 0xff;
		memcpy(o->key.src, k.src, 16);
		memcpy(o->mask.src, m.src, 16);
		memcpy(o->key.dst, k.dst, 16);
		memcpy(o->mask.dst, m.dst, 16);
	}
	if (o->mask.ip_proto && (ip_proto == IPPROTO_TCP_ || ip_proto == IPPROTO_UDP_ ||
				 ip_proto == IPPROTO_SCTP_)) {
		o->key.sport = k.sport;
		o->mask.sport = m.sport;
		o->key.dport = k.dport;
		o->mask.dport = m.dport;
		o->key.sport_min = k.sport_min;
		o->key.sport_max = k.sport_max;
		o->mask.sport_min = m.sport_min;
		o->mask.sport_max = m.sport_max;
		o->key.dport_min = k.dport_min;
		o->key.dport_max = k.dport_max;
		o->mask.dport_min = m.dport_min;
		o->mask.dport_max = m.dport_max;
		if (ip_proto == IPPROTO_TCP_ && has_flags) {
			o->key.tcp_flags = k.tcp_flags;
			o->mask.tcp_flags = m.tcp_flags;
		}
	} else if (o->mask.ip_proto && has_icmp &&
		   ((o->key.n_proto == ETH_P_IP && ip_proto == IPPROTO_ICMP_) ||
		    (o->key.n_proto == ETH_P_IPV6 && ip_proto == IPPROTO_ICMPV6_))) {
		o->key.icmp_type = k.icmp_type;
		o->mask.icmp_type = m.icmp_type;
		o->key.icmp_code = k.icmp_code;
		o->mask.icmp_code = m.icmp_code;
	}
	return 0;
}

/* ---- the filters ---- */

/* The masked key, as fl_set_masked_key stores it and the hash compares it. */
static void masked(struct cls_flower_key *out, const struct cls_flower_key *k, const struct cls_flower_key *m)
{
	const uint8_t *a = (const uint8_t *)k, *b = (const uint8_t *)m;
	uint8_t *o = (uint8_t *)out;

	for (size_t i = 0; i < sizeof(*out); i++)
		o[i] = a[i] & b[i];
}

static struct fl_filter *fl_find(const struct fl_head *head, uint32_t handle)
{
	struct fl_filter *f = head ? head->filters : NULL;

	while (f && f->handle != handle)
		f = f->next;
	return f;
}

/* idr_alloc_u32 from 1: the lowest free handle. */
static uint32_t fl_new_handle(const struct fl_head *head)
{
	uint32_t h = 1;

	while (fl_find(head, h))
		h++;
	return h;
}

static void fl_mask_put(struct fl_head *head, struct fl_mask *mask)
{
	struct fl_mask **pp;

	if (--mask->refs)
		return;
	for (pp = &head->masks; *pp != mask; pp = &(*pp)->next)
		;
	*pp = mask->next;
	free(mask);
}

static int cls_fl_change(struct tcf_proto *tp, const struct tcf_request *req,
			 const struct tcf_env *env, char *err, size_t errlen)
{
	struct fl_head *head = tp->priv;
	struct fl_filter *old = NULL, *f, **pp;
	struct fl_mask *mask;
	struct cls_flower_key mkey;
	struct fl_opts o;
	int ret = fl_parse(req, req->protocol, &o, err, errlen);

	if (ret)
		return ret;
	if (!head) {
		head = calloc(1, sizeof(*head));
		if (!head)
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		tp->priv = head;
	}
	if (req->handle) {
		old = fl_find(head, req->handle);
		if (old && req->excl)
			return errmsg(err, errlen, -EEXIST,
				      "%s: RTNETLINK answers: File exists (Filter already exists: handle 0x%x)",
				      req->where, req->handle);
		if (!old && !req->create)
			return errmsg(err, errlen, -ENOENT,
				      "%s: RTNETLINK answers: No such file or directory (no flower filter with handle 0x%x)",
				      req->where, req->handle);
	}
	/* fl_check_assign_mask: an equal mask is shared; a replaced filter
	 * must keep the mask it had */
	for (mask = head->masks; mask && memcmp(&mask->key, &o.mask, sizeof(o.mask)); mask = mask->next)
		;
	if (old && mask != old->mask)
		return errmsg(err, errlen, -EINVAL,
			      "%s: RTNETLINK answers: Invalid argument (handle 0x%x: a flower filter cannot change its mask when replaced)",
			      req->where, req->handle);
	/* fl_ht_insert_unique: one filter per masked key in a mask */
	masked(&mkey, &o.key, &o.mask);
	for (f = head->filters; mask && !old && f; f = f->next) {
		struct cls_flower_key other;

		if (f->mask != mask)
			continue;
		masked(&other, &f->key, &mask->key);
		if (!memcmp(&other, &mkey, sizeof(mkey)))
			return errmsg(err, errlen, -EEXIST,
				      "%s: RTNETLINK answers: File exists (flower handle 0x%x has the same mask and key)",
				      req->where, f->handle);
	}
	if (old) {
		old->key = o.key;
		old->classid = o.classid;
		old->flags = o.flags;
		old->vlan_ethtype = o.vlan_ethtype;
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	if (!mask) {
		mask = calloc(1, sizeof(*mask));
		if (!mask) {
			free(f);
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		}
		mask->key = o.mask;
		mask->range = (o.mask.dport_min && o.mask.dport_max) ||
			      (o.mask.sport_min && o.mask.sport_max);
		/* list_add_tail: a new mask is tried after the older ones */
		for (struct fl_mask **mp = &head->masks;; mp = &(*mp)->next)
			if (!*mp) {
				*mp = mask;
				break;
			}
	}
	mask->refs++;
	f->mask = mask;
	f->key = o.key;
	f->classid = o.classid;
	f->flags = o.flags;
	f->vlan_ethtype = o.vlan_ethtype;
	f->handle = req->handle ? req->handle : fl_new_handle(head);
	(void)env;
	for (pp = &head->filters; *pp; pp = &(*pp)->next)
		;
	*pp = f;
	return 0;
}

static int cls_fl_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	struct fl_head *head = tp->priv;
	struct fl_filter **pp;

	for (pp = head ? &head->filters : NULL; pp && *pp; pp = &(*pp)->next)
		if ((*pp)->handle == handle) {
			struct fl_filter *f = *pp;

			*pp = f->next;
			fl_mask_put(head, f->mask);
			free(f);
			return head->filters == NULL;
		}
	return errmsg(err, errlen, -ENOENT,
		      "RTNETLINK answers: No such file or directory (no handle 0x%x)", handle);
}

/* ---- classification ---- */

static void fmt_addr(char *buf, size_t n, const uint8_t *a, int fam)
{
	if (!inet_ntop(fam == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)n))
		snprintf(buf, n, "?");
}

/* The first key of f (in the show order) that the packet's k does not
 * match, described in why; NULL when the masked keys are equal. Port
 * ranges are left to the caller (fl_lookup_range). */
static const char *fl_mismatch(const struct cls_flower_key *fk, const struct cls_flower_key *m,
			       const struct flow_fl_keys *k, char *why, size_t n)
{
	int fam = fk->addr_type;

#define NE(field, pkt) (((fk->field) & (m->field)) != ((pkt) & (m->field)))
	if (m->vlan_tpid && NE(vlan_tpid, k->vlan_tpid)) {
		snprintf(why, n, "vlan tpid 0x%04x, not 0x%04x", k->vlan_tpid, fk->vlan_tpid);
		return "vlan";
	}
	if (m->vlan_id && NE(vlan_id, k->vlan_id)) {
		snprintf(why, n, "vlan_id %u, not %u", k->vlan_id, fk->vlan_id);
		return "vlan_id";
	}
	if (m->vlan_prio && NE(vlan_prio, k->vlan_prio)) {
		snprintf(why, n, "vlan_prio %u, not %u", k->vlan_prio, fk->vlan_prio);
		return "vlan_prio";
	}
	if (m->vlan_eth_type && NE(vlan_eth_type, k->vlan_eth_type)) {
		snprintf(why, n, "vlan_ethtype 0x%04x, not 0x%04x", k->vlan_eth_type, fk->vlan_eth_type);
		return "vlan_ethtype";
	}
	for (int i = 0; i < 6; i++)
		if (NE(dst_mac[i], k->dst_mac[i])) {
			snprintf(why, n, "dst_mac %02x:%02x:%02x:%02x:%02x:%02x", k->dst_mac[0],
				 k->dst_mac[1], k->dst_mac[2], k->dst_mac[3], k->dst_mac[4], k->dst_mac[5]);
			return "dst_mac";
		}
	for (int i = 0; i < 6; i++)
		if (NE(src_mac[i], k->src_mac[i])) {
			snprintf(why, n, "src_mac %02x:%02x:%02x:%02x:%02x:%02x", k->src_mac[0],
				 k->src_mac[1], k->src_mac[2], k->src_mac[3], k->src_mac[4], k->src_mac[5]);
			return "src_mac";
		}
	if (m->n_proto && NE(n_proto, k->n_proto)) {
		snprintf(why, n, "eth_type 0x%04x, not 0x%04x", k->n_proto, fk->n_proto);
		return "eth_type";
	}
	if (m->ip_proto && NE(ip_proto, k->ip_proto)) {
		snprintf(why, n, "ip_proto %u, not %u", k->ip_proto, fk->ip_proto);
		return "ip_proto";
	}
	if (m->tos && NE(tos, k->tos)) {
		snprintf(why, n, "ip_tos 0x%02x & 0x%02x != 0x%02x", k->tos, m->tos, fk->tos & m->tos);
		return "ip_tos";
	}
	if (m->ttl && NE(ttl, k->ttl)) {
		snprintf(why, n, "ip_ttl %u, not %u", k->ttl, fk->ttl);
		return "ip_ttl";
	}
	if (m->addr_type && NE(addr_type, k->addr_type)) {
		snprintf(why, n, "not an IPv%d packet", fam);
		return "addr";
	}
	for (int d = 1; d >= 0; d--) {
		const uint8_t *fa = d ? fk->dst : fk->src, *ma = d ? m->dst : m->src;
		const uint8_t *pa = d ? k->dst : k->src;

		for (int i = 0; i < 16; i++)
			if ((fa[i] & ma[i]) != (pa[i] & ma[i])) {
				char b[64];

				fmt_addr(b, sizeof(b), pa, fam);
				snprintf(why, n, "%s %s", d ? "dst_ip" : "src_ip", b);
				return d ? "dst_ip" : "src_ip";
			}
	}
	if (m->dport && NE(dport, k->dport)) {
		snprintf(why, n, k->frag ? "dst_port: a fragment has none" : "dst_port %u, not %u",
			 k->dport, fk->dport);
		return "dst_port";
	}
	if (m->sport && NE(sport, k->sport)) {
		snprintf(why, n, k->frag ? "src_port: a fragment has none" : "src_port %u, not %u",
			 k->sport, fk->sport);
		return "src_port";
	}
	if (m->tcp_flags && NE(tcp_flags, k->tcp_flags)) {
		snprintf(why, n, "tcp_flags 0x%x & 0x%x != 0x%x", k->tcp_flags, m->tcp_flags,
			 fk->tcp_flags & m->tcp_flags);
		return "tcp_flags";
	}
	if (m->icmp_type && NE(icmp_type, k->icmp_type)) {
		snprintf(why, n, "icmp_type %u, not %u", k->icmp_type, fk->icmp_type);
		return "icmp_type";
	}
	if (m->icmp_code && NE(icmp_code, k->icmp_code)) {
		snprintf(why, n, "icmp_code %u, not %u", k->icmp_code, fk->icmp_code);
		return "icmp_code";
	}
#undef NE
	return NULL;
}

/* fl_range_port_dst_cmp / _src_cmp: the packet's ports inside f's ranges. */
static const char *fl_range_miss(const struct cls_flower_key *fk, const struct fl_mask *mask,
				 const struct flow_fl_keys *k, char *why, size_t n)
{
	if (mask->key.dport_min && mask->key.dport_max &&
	    (k->dport < fk->dport_min || k->dport > fk->dport_max)) {
		snprintf(why, n, "dst_port %u outside %u-%u", k->dport, fk->dport_min, fk->dport_max);
		return "dst_port";
	}
	if (mask->key.sport_min && mask->key.sport_max &&
	    (k->sport < fk->sport_min || k->sport > fk->sport_max)) {
		snprintf(why, n, "src_port %u outside %u-%u", k->sport, fk->sport_min, fk->sport_max);
		return "src_port";
	}
	return NULL;
}

static int same_range(const struct cls_flower_key *a, const struct cls_flower_key *b)
{
	return a->dport_min == b->dport_min && a->dport_max == b->dport_max &&
	       a->sport_min == b->sport_min && a->sport_max == b->sport_max;
}

/* fl_mask_lookup for one mask. Without ranges the hash finds the one filter
 * whose masked key equals the packet's. With ranges (fl_lookup_range) the
 * mask's filters are walked in order; the first whose ranges hold the
 * packet's ports lends its ranges to the packet's key, and the filter with
 * that whole masked key (it, or one with the same ranges) is the match. */
static struct fl_filter *fl_mask_lookup(const struct fl_head *head, const struct fl_mask *mask,
					const struct flow_fl_keys *k)
{
	char why[96];

	for (struct fl_filter *f = head->filters; f; f = f->next) {
		if (f->mask != mask)
			continue;
		if (!mask->range) {
			if (!fl_mismatch(&f->key, &mask->key, k, why, sizeof(why)))
				return f;
			continue;
		}
		if (fl_range_miss(&f->key, mask, k, why, sizeof(why)))
			continue;
		for (struct fl_filter *g = head->filters; g; g = g->next)
			if (g->mask == mask && same_range(&g->key, &f->key) &&
			    !fl_mismatch(&g->key, &mask->key, k, why, sizeof(why)))
				return g;
	}
	return NULL;
}

static int cls_fl_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
			   struct tcf_result *res)
{
	const struct fl_head *head = tp->priv;
	struct flow_fl_keys k;

	if (!head)
		return -1;
	flow_dissect_flower(skb, &k);
	for (const struct fl_mask *mask = head->masks; mask; mask = mask->next) {
		struct fl_filter *f = fl_mask_lookup(head, mask, &k);

		if (f) {
			res->classid = f->classid;
			res->handle = f->handle;
			res->ret = 0;
			f->hits++;
			return 0; /* TC_ACT_OK: no actions */
		}
	}
	return -1;
}

/* fl_classify for a traced packet: one record per filter, in the order the
 * masks are tried, saying which key failed (the first in show order). */
static int cls_fl_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
				  struct tcf_result *res, const struct tcf_tracer *tr,
				  struct tcf_trace *ft)
{
	const struct fl_head *head = tp->priv;
	struct flow_fl_keys k;

	if (!head)
		return -1;
	flow_dissect_flower(skb, &k);
	for (const struct fl_mask *mask = head->masks; mask; mask = mask->next) {
		struct fl_filter *hit = fl_mask_lookup(head, mask, &k);

		for (struct fl_filter *f = head->filters; f; f = f->next) {
			char why[80];
			const char *miss;

			if (f->mask != mask)
				continue;
			ft->has_handle = 1;
			ft->handle = f->handle;
			ft->ret = 0;
			ft->has_flowid = f->classid != 0;
			ft->flowid = f->classid;
			ft->origin = NULL;
			ft->match = f == hit;
			ft->classid = f->classid;
			miss = mask->range ? fl_range_miss(&f->key, mask, &k, why, sizeof(why)) : NULL;
			if (!miss)
				miss = fl_mismatch(&f->key, &mask->key, &k, why, sizeof(why));
			if (f == hit)
				snprintf(ft->why, sizeof(ft->why), "every key matched");
			else if (miss)
				snprintf(ft->why, sizeof(ft->why), "%s", why);
			else
				snprintf(ft->why, sizeof(ft->why),
					 "matched, but the port-range lookup took another filter first");
			tr->filter(tr->arg, ft);
			if (f == hit) {
				res->classid = f->classid;
				res->handle = f->handle;
				res->ret = 0;
				f->hits++;
				return 0;
			}
		}
	}
	return -1;
}

static void cls_fl_destroy(struct tcf_proto *tp)
{
	struct fl_head *head = tp->priv;

	if (!head)
		return;
	while (head->filters) {
		struct fl_filter *f = head->filters;

		head->filters = f->next;
		free(f);
	}
	while (head->masks) {
		struct fl_mask *m = head->masks;

		head->masks = m->next;
		free(m);
	}
	free(head);
	tp->priv = NULL;
}

/* ---- tc filter show: flower_print_opt over what fl_dump puts ---- */

/* __mask_bits: the prefix length of a contiguous mask, else -1. */
static int mask_bits(const uint8_t *m, size_t len)
{
	int bits = 0, hole = 0;

	for (size_t i = 0; i < len; i++)
		for (int j = 7; j >= 0; j--) {
			if ((m[i] >> j) & 1) {
				if (hole)
					return -1;
				bits++;
			} else if (bits) {
				hole = 1;
			} else {
				return -1;
			}
		}
	return bits;
}

static int nonzero(const uint8_t *m, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (m[i])
			return 1;
	return 0;
}

/* One key: text "\n  NAME VALUE", JSON the member NAME with the string */
static void print_key_str(struct tcprint *p, const char *name, const char *v)
{
	pr_text(p, "\n  %s ", name);
	pr_string(p, PR_ANY, name, "%s", v);
}

static void print_mac(struct tcprint *p, const char *name, const uint8_t *a, const uint8_t *m)
{
	int bits = mask_bits(m, 6);
	char s[64];
	int n = snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3],
			 a[4], a[5]);

	if (bits < 0)
		snprintf(s + n, sizeof(s) - (size_t)n, "/%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
			 m[2], m[3], m[4], m[5]);
	else if (bits < 48)
		snprintf(s + n, sizeof(s) - (size_t)n, "/%d", bits);
	print_key_str(p, name, s);
}

static void print_ip(struct tcprint *p, const char *name, const uint8_t *a, const uint8_t *m, int fam)
{
	size_t len = fam == 6 ? 16 : 4;
	int bits = mask_bits(m, len);
	char s[128], ms[64];
	size_t n;

	fmt_addr(s, sizeof(s), a, fam);
	n = strlen(s);
	if (bits < 0) {
		fmt_addr(ms, sizeof(ms), m, fam);
		snprintf(s + n, sizeof(s) - n, "/%s", ms);
	} else if ((size_t)bits < len * 8) {
		snprintf(s + n, sizeof(s) - n, "/%d", bits);
	}
	print_key_str(p, name, s);
}

/* print_masked_u8/be16: the value, and "/0x.." when the mask is not full;
 * JSON the number and NAME_mask, the mask in hex */
static void print_masked(struct tcprint *p, const char *name, unsigned v, unsigned m, unsigned full)
{
	char mname[64];

	pr_text(p, "\n  %s ", name);
	pr_uint(p, PR_ANY, name, "%u", v);
	if (m != full) {
		snprintf(mname, sizeof(mname), "%s_mask", name);
		pr_hex(p, PR_ANY, mname, "/0x%x", m);
	}
}

/* a port range: text "\n  NAME MIN-MAX", JSON {"start","end"} */
static void print_range(struct tcprint *p, const char *name, unsigned lo, unsigned hi)
{
	pr_text(p, "\n  %s ", name);
	pr_open_object(p, name);
	pr_uint(p, PR_ANY, "start", "%u", lo);
	pr_uint(p, PR_ANY, "end", "-%u", hi);
	pr_close_object(p);
}

static void fl_dump_one(const struct fl_filter *f, struct tcprint *p)
{
	const struct cls_flower_key *k = &f->key, *m = &f->mask->key;
	uint16_t eth_type = m->n_proto ? k->n_proto : 0;
	uint8_t ipp = m->ip_proto ? k->ip_proto : 0xff;
	int ports = ipp == IPPROTO_TCP_ || ipp == IPPROTO_UDP_ || ipp == IPPROTO_SCTP_;
	char s[64];

	pr_uint(p, PR_ANY, "handle", "handle 0x%x ", f->handle);
	if (f->classid) {
		tc_print_classid(s, sizeof(s), f->classid);
		pr_string(p, PR_ANY, "classid", "classid %s ", s);
	}
	pr_open_object(p, "keys");
	if (m->vlan_id) {
		pr_text(p, "\n  vlan_id ");
		pr_uint(p, PR_ANY, "vlan_id", "%u", k->vlan_id);
	}
	if (m->vlan_prio) {
		pr_text(p, "\n  vlan_prio ");
		pr_uint(p, PR_ANY, "vlan_prio", "%u", k->vlan_prio);
	}
	/* fl_dump_key: the next EtherType is dumped with n_proto only */
	if (m->vlan_eth_type && m->n_proto) {
		tc_print_protocol(s, sizeof(s), k->vlan_eth_type);
		print_key_str(p, "vlan_ethtype", s);
	}
	if (nonzero(m->dst_mac, 6))
		print_mac(p, "dst_mac", k->dst_mac, m->dst_mac);
	if (nonzero(m->src_mac, 6))
		print_mac(p, "src_mac", k->src_mac, m->src_mac);
	if (m->n_proto) {
		if (eth_type == ETH_P_IP)
			snprintf(s, sizeof(s), "ipv4");
		else if (eth_type == ETH_P_IPV6)
			snprintf(s, sizeof(s), "ipv6");
		else if (eth_type == 0x0806)
			snprintf(s, sizeof(s), "arp");
		else if (eth_type == 0x8035)
			snprintf(s, sizeof(s), "rarp");
		else
			snprintf(s, sizeof(s), "%04x", eth_type);
		print_key_str(p, "eth_type", s);
	}
	if (m->ip_proto) {
		static const struct {
			uint8_t p;
			const char *name;
		} names[] = {{6, "tcp"}, {17, "udp"}, {132, "sctp"}, {1, "icmp"}, {58, "icmpv6"}, {115, "l2tp"}};
		const char *name = NULL;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (names[i].p == ipp)
				name = names[i].name;
		if (name)
			snprintf(s, sizeof(s), "%s", name);
		else
			snprintf(s, sizeof(s), "%02x", ipp);
		print_key_str(p, "ip_proto", s);
	}
	if (m->tos)
		print_masked(p, "ip_tos", k->tos, m->tos, 0xff);
	if (m->ttl)
		print_masked(p, "ip_ttl", k->ttl, m->ttl, 0xff);
	if (m->addr_type && (eth_type == ETH_P_IP || eth_type == ETH_P_IPV6)) {
		/* flower_print_ip_addr picks the family from eth_type */
		int fam = eth_type == ETH_P_IP ? 4 : 6;

		if (fam == k->addr_type) {
			if (nonzero(m->dst, fam == 4 ? 4 : 16))
				print_ip(p, "dst_ip", k->dst, m->dst, fam);
			if (nonzero(m->src, fam == 4 ? 4 : 16))
				print_ip(p, "src_ip", k->src, m->src, fam);
		}
	}
	if (ports) {
		if (m->dport)
			print_masked(p, "dst_port", k->dport, m->dport, 0xffff);
		if (m->sport)
			print_masked(p, "src_port", k->sport, m->sport, 0xffff);
		if (m->dport_min)
			print_range(p, "dst_port", k->dport_min, k->dport_max);
		if (m->sport_min)
			print_range(p, "src_port", k->sport_min, k->sport_max);
	}
	if (m->tcp_flags) {
		snprintf(s, sizeof(s), "0x%x/%x", k->tcp_flags, m->tcp_flags);
		print_key_str(p, "tcp_flags", s);
	}
	if ((eth_type == ETH_P_IP && ipp == IPPROTO_ICMP_) || (eth_type == ETH_P_IPV6 && ipp == IPPROTO_ICMPV6_)) {
		if (m->icmp_type)
			print_masked(p, "icmp_type", k->icmp_type, m->icmp_type, 0xff);
		if (m->icmp_code)
			print_masked(p, "icmp_code", k->icmp_code, m->icmp_code, 0xff);
	}
	pr_close_object(p);
	if (f->flags & FL_SKIP_HW)
		pr_bool(p, PR_ANY, "skip_hw", "\n  skip_hw", 1);
	/* TCA_CLS_FLAGS_NOT_IN_HW: nothing is offloaded in tcsim */
	pr_bool(p, PR_ANY, "not_in_hw", "\n  not_in_hw", 1);
}

/* fl_walk: the filters by ascending handle (the idr's order). */
static const struct fl_filter *fl_nth(const struct fl_head *head, size_t i)
{
	uint32_t last = 0;
	int first = 1;

	for (;;) {
		const struct fl_filter *best = NULL;

		for (const struct fl_filter *f = head ? head->filters : NULL; f; f = f->next)
			if ((first || f->handle > last) && (!best || f->handle < best->handle))
				best = f;
		if (!best || !i--)
			return best;
		last = best->handle;
		first = 0;
	}
}

static void cls_fl_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	const struct fl_head *head = tp->priv;

	for (size_t i = 0;; i++) {
		const struct fl_filter *f = fl_nth(head, i);

		if (!f)
			break;
		d->begin(d);
		fl_dump_one(f, d->p);
		d->end(d);
	}
}

static size_t cls_fl_count(const struct tcf_proto *tp)
{
	const struct fl_head *head = tp->priv;
	size_t n = 0;

	for (const struct fl_filter *f = head ? head->filters : NULL; f; f = f->next)
		n++;
	return n;
}

static int cls_fl_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct fl_filter *f = fl_nth(tp->priv, i);

	if (!f)
		return -1;
	*handle = f->handle;
	return 0;
}

const struct tcf_proto_ops cls_flower_ops = {
	.kind = "flower",
	.change = cls_fl_change,
	.delete = cls_fl_delete,
	.classify = cls_fl_classify,
	.destroy = cls_fl_destroy,
	.dump = cls_fl_dump,
	.count = cls_fl_count,
	.handle_at = cls_fl_handle_at,
	.classify_traced = cls_fl_classify_traced,
};

/* The i-th filter for kernel-check: the masks in the order they are tried,
 * each with its filters in creation order, so that sending them in this
 * order makes the kernel's masks in the same order. */
int cls_flower_at(const struct tcf_proto *tp, size_t i, struct cls_flower_info *info)
{
	const struct fl_head *head = tp->ops == &cls_flower_ops ? tp->priv : NULL;

	for (const struct fl_mask *mask = head ? head->masks : NULL; mask; mask = mask->next)
		for (const struct fl_filter *f = head->filters; f; f = f->next) {
			if (f->mask != mask || i--)
				continue;
			memset(info, 0, sizeof(*info));
			info->handle = f->handle;
			info->classid = f->classid;
			info->flags = f->flags;
			info->vlan_ethtype = f->vlan_ethtype;
			info->key = f->key;
			info->mask = mask->key;
			return 0;
		}
	return -1;
}
