/* test_src.h - sources and frames for tests: a source driven by a
 * callback, and hand-built Ethernet/IPv4/UDP and TCP frames. */
#ifndef TCSIM_TEST_SRC_H
#define TCSIM_TEST_SRC_H

#include <stdint.h>

#include "source.h"

/* gen fills p (data may point into the source's 64 KiB frame buffer,
 * `buf`) and returns 1, or 0 at the end. */
typedef int (*test_gen)(void *arg, uint8_t *buf, struct src_packet *p);
struct source *test_src_new(test_gen gen, void *arg);

/* An Ethernet/IPv4/UDP frame of `len` bytes (>= 42) into buf. */
uint32_t test_frame_udp(uint8_t *buf, uint32_t len, uint32_t saddr, uint32_t daddr,
			uint16_t sport, uint16_t dport, uint8_t tos);
/* An Ethernet/IPv4/TCP frame of `len` bytes (>= 54). */
uint32_t test_frame_tcp(uint8_t *buf, uint32_t len, uint32_t saddr, uint32_t daddr,
			uint16_t sport, uint16_t dport, uint8_t tos);

#endif
