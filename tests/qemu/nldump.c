/* nldump.c - prints a device's qdisc and filter dumps as the kernel sends
 * them, one netlink message per line in hex ("NLDUMP TAG HEX"), for
 * tests/qemu/import_oracle.sh: it runs in the qemu oracle's guest (Debian's
 * kernel, which has cls_flower and cls_basic), built with `gcc -static`
 * (no libnl there), and tests/tools/nlimport feeds the recorded messages
 * to `tcsim import`'s parser. Plain sockets, no library.
 *
 *   nldump TAG DEV PARENT   PARENT the filters' parent, hex (10000 = 1:)
 *   nldump send DEV          sends the messages of stdin's "KCMSG HEX" lines
 *                            (tests/tools/kcmsg --raw: what `tcsim
 *                            kernel-check` sends) to DEV, each acknowledged;
 *                            exit 1 at the first the kernel refuses
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int dump(int fd, int type, int ifindex, unsigned parent, const char *tag)
{
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req;
	static char buf[1 << 16];
	static unsigned seq = 1;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = sizeof(req);
	req.n.nlmsg_type = (unsigned short)type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.n.nlmsg_seq = ++seq;
	req.t.tcm_family = AF_UNSPEC;
	req.t.tcm_ifindex = ifindex;
	req.t.tcm_parent = parent;
	if (send(fd, &req, sizeof(req), 0) < 0) {
		perror("nldump: send");
		return 1;
	}
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (len < 0) {
			perror("nldump: recv");
			return 1;
		}
		for (; NLMSG_OK(h, (unsigned)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				fprintf(stderr, "nldump: the kernel answered an error\n");
				return 1;
			}
			/* 6.1 dumps every device's qdiscs: this device's only */
			if (((struct tcmsg *)NLMSG_DATA(h))->tcm_ifindex != ifindex)
				continue;
			printf("NLDUMP %s ", tag);
			for (unsigned i = 0; i < h->nlmsg_len; i++)
				printf("%02x", ((unsigned char *)h)[i]);
			printf("\n");
		}
	}
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int send_all(const char *dev)
{
	static char line[1 << 17];
	static unsigned char msg[1 << 16], ack[1 << 16];
	int ifindex = (int)if_nametoindex(dev), fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	unsigned seq = 100, n = 0;

	if (!ifindex || fd < 0) {
		fprintf(stderr, "nldump: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct nlmsghdr *h = (struct nlmsghdr *)msg, *a = (struct nlmsghdr *)ack;
		size_t len = 0;
		ssize_t got;

		if (strncmp(line, "KCMSG ", 6))
			continue;
		for (const char *p = line + 6; hexval(p[0]) >= 0 && hexval(p[1]) >= 0 && len < sizeof(msg); p += 2)
			msg[len++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		if (len < NLMSG_LENGTH(sizeof(struct tcmsg)) || h->nlmsg_len != len) {
			fprintf(stderr, "nldump: a message of %zu bytes that says otherwise\n", len);
			return 1;
		}
		((struct tcmsg *)NLMSG_DATA(h))->tcm_ifindex = ifindex;
		h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		h->nlmsg_seq = ++seq;
		h->nlmsg_pid = 0;
		if (send(fd, msg, len, 0) < 0 || (got = recv(fd, ack, sizeof(ack), 0)) < 0) {
			perror("nldump: send");
			return 1;
		}
		if (a->nlmsg_type == NLMSG_ERROR && ((struct nlmsgerr *)NLMSG_DATA(a))->error) {
			fprintf(stderr, "nldump: message %u: the kernel refused it: %s\n", n + 1,
				strerror(-((struct nlmsgerr *)NLMSG_DATA(a))->error));
			return 1;
		}
		n++;
	}
	printf("NLSENT %s %u\n", dev, n);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, ifindex, rc;
	unsigned parent;

	if (argc == 3 && !strcmp(argv[1], "send"))
		return send_all(argv[2]);
	if (argc != 4) {
		fprintf(stderr, "usage: nldump TAG DEV PARENT\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[2]);
	parent = (unsigned)strtoul(argv[3], NULL, 16);
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (!ifindex || fd < 0) {
		fprintf(stderr, "nldump: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	rc = dump(fd, RTM_GETQDISC, ifindex, 0, argv[1]) ||
	     dump(fd, RTM_GETTFILTER, ifindex, parent, argv[1]);
	close(fd);
	fflush(stdout);
	return rc;
}
