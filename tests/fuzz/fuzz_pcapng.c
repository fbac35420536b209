/* fuzz_pcapng.c - the capture reader alone (cap_open, cap_next to the end),
 * seeded with pcapng files: section and interface blocks, options, several
 * interfaces and byte orders, each packet turned into the frame an egress
 * device carries. A packet must never claim more bytes than it holds. */
#include "fuzz.h"

#include "capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture *c;
	struct cap_pkt pkt;
	char path[64], err[1024];
	int fd = fuzz_file(data, size, path, sizeof(path)), r;
	uint64_t n = 0;
	volatile uint8_t sink = 0;

	if (!cap_open(&c, path, err, sizeof(err))) {
		(void)cap_linktype(c);
		while ((r = cap_next(c, &pkt, err, sizeof(err))) == 1) {
			if (pkt.caplen > pkt.len && !pkt.reject)
				abort();
			/* every byte it claims is readable (ASan checks) */
			for (uint32_t i = 0; i < pkt.caplen; i++)
				sink ^= pkt.data[i];
			if (pkt.index != ++n)
				abort();
		}
		if (r < 0 && !err[0])
			abort();
		cap_close(c);
	} else if (!err[0]) {
		abort();
	}
	(void)sink;
	close(fd);
	return 0;
}
