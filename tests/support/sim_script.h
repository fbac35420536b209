/* sim_script.h - a simulation for qdisc tests: one device configured by tc
 * lines, fed by a scripted train of UDP frames, with a record of what
 * happened to each packet in the order it finished (sent or dropped). */
#ifndef TCSIM_SIM_SCRIPT_H
#define TCSIM_SIM_SCRIPT_H

#include <stdint.h>

#include "sim.h"

struct script {
	uint64_t period; /* ns between packets (a regular train) */
	int n, i;
	uint32_t len;
	uint8_t tos;
	const uint16_t *sport; /* per packet, or NULL (all 40000) */
	const uint64_t *t;     /* per packet, or NULL (i * period) */
};

#define SCRIPT_MAXREC 2048
struct script_record {
	int n;
	struct sim *s;
	struct sim_observer obs;
	uint64_t id[SCRIPT_MAXREC], t[SCRIPT_MAXREC]; /* t: sent (dequeued) or dropped */
	enum pkt_drop drop[SCRIPT_MAXREC];
	uint8_t tos[SCRIPT_MAXREC];
	int csum_ok[SCRIPT_MAXREC]; /* the IPv4 header checksum still right */
};

/* s built with the tc lines (rate_bps: the device's), sc as its source and
 * rec watching: 0, or -1 with the reason in err. */
int script_setup(struct sim *s, uint64_t rate_bps, const char *tc, struct script_record *rec,
		 struct script *sc, char *err, size_t errlen);
/* `tc -s qdisc show` of device i, malloc'd */
char *script_show(struct sim *s, int dev);
/* the record index of packet id, or -1 */
int script_find(const struct script_record *rec, uint64_t id);

#endif
