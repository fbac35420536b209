/* pcapsend.c - sends each frame of a capture once out of a network device
 * (an AF_PACKET socket, through the device's qdiscs), counting the frames
 * the qdisc dropped (ENOBUFS) where tcpreplay would retry them for ever:
 * the kernel tests compare drops. Root; use only on devices of a private
 * network namespace. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pcapsend DEVICE CAPTURE [LIMIT]\n"
		   "  sends the first LIMIT frames (all by default) as captured, once each;\n"
		   "  prints: sent N bytes B dropped D dropped_bytes DB failed F\n"
		   "  (dropped: the qdisc refused it; failed: the device could not take it)\n");
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	unsigned long long limit = ~0ull, n = 0, sent = 0, bytes = 0, dropped = 0, dbytes = 0,
			   failed = 0;
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	struct pcap_pkthdr *h;
	const unsigned char *data;
	pcap_t *p;
	int fd, r;

	if (argc < 3 || argc > 4) {
		usage(stderr);
		return 2;
	}
	if (argc == 4)
		limit = strtoull(argv[3], NULL, 10);
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "pcapsend: %s: no such device\n", argv[1]);
		return 1;
	}
	p = pcap_open_offline(argv[2], errbuf);
	if (!p) {
		fprintf(stderr, "pcapsend: %s: %s\n", argv[2], errbuf);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0); /* sends only: receives nothing */
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "pcapsend: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (n < limit && (r = pcap_next_ex(p, &h, &data)) == 1) {
		n++;
		if (send(fd, data, h->caplen, 0) == (ssize_t)h->caplen) {
			sent++;
			bytes += h->caplen;
		} else if (errno == ENOBUFS) {
			dropped++;
			dbytes += h->caplen;
		} else {
			failed++;
		}
	}
	printf("sent %llu bytes %llu dropped %llu dropped_bytes %llu failed %llu\n", sent, bytes,
	       dropped, dbytes, failed);
	close(fd);
	pcap_close(p);
	return 0;
}
