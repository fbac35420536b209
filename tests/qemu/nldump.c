/* nldump.c - prints a device's qdisc and filter dumps as the kernel sends
 * them, one netlink message per line in hex ("NLDUMP TAG HEX"), for
 * tests/qemu/import_oracle.sh: it runs in the qemu oracle's guest (Debian's
 * kernel, which has cls_flower and cls_basic), built with `gcc -static`
 * (no libnl there), and tests/tools/nlimport feeds the recorded messages
 * to `tcsim import`'s parser. Plain sockets, no library.
 *
 *   nldump TAG DEV PARENT   PARENT the filters' parent, hex (10000 = 1:)
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

int main(int argc, char **argv)
{
	int fd, ifindex, rc;
	unsigned parent;

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
