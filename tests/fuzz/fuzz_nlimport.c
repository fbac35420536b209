/* fuzz_nlimport.c - `tcsim import`'s parser and writer (nl_import_parse,
 * nl_import_write: kernel/nl_dump.c and the readers it calls, netem,
 * basic and its ematch trees among them) fed with a fuzzed dump, as
 * tests/tools/nlimport.c feeds a recorded one. The first input byte picks
 * the options (bit 0: --filters-only; bit 1: no link information); the
 * rest is a sequence of netlink messages, each framed by its own
 * nlmsg_len: a length past the input's end is cut to what is left, one
 * shorter than a header ends the sequence, and each message is handed over
 * in an exact-size copy whose nlmsg_len says its size, so a read past it
 * is an ASan report. A refused message ends the dump like nlimport's
 * error exit; the model is written out either way. At most 256 messages. */
#include <linux/netlink.h>

#include "fuzz.h"

#include "nl_import.h"

#define MAX_MSGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_import_model m;
	struct nl_import_opts o = {.kernel = "fuzz"};
	char err[512], *text = NULL, *omitted = NULL;
	uint8_t param;
	int r, n = 0;

	fuzz_take(&data, &size, &param, 1);
	o.filters_only = param & 1;
	nl_import_model_init(&m, "eth0", 0);
	m.has_link = !(param & 2);
	m.mtu = 1500;
	m.txqueuelen = 1000;
	while (size >= sizeof(struct nlmsghdr) && n < MAX_MSGS) {
		struct nlmsghdr h;
		uint8_t *msg;
		size_t len;

		memcpy(&h, data, sizeof(h));
		len = h.nlmsg_len;
		if (len < sizeof(h))
			break;
		if (len > size)
			len = size;
		msg = malloc(len);
		if (!msg)
			abort();
		memcpy(msg, data, len);
		((struct nlmsghdr *)msg)->nlmsg_len = (uint32_t)len;
		err[0] = '\0';
		r = nl_import_parse(&m, (const struct nlmsghdr *)msg, err, sizeof(err));
		free(msg);
		if (r < 0) {
			if (!err[0])
				abort(); /* an error says what it is */
			break;
		}
		if (r > 1)
			abort();
		n++;
		len = NLMSG_ALIGN(len);
		if (len > size)
			len = size;
		data += len;
		size -= len;
	}
	err[0] = '\0';
	r = nl_import_write(&m, &o, &text, &omitted, err, sizeof(err));
	nl_import_model_free(&m);
	if (r < 0) {
		if (!err[0] || text || omitted)
			abort(); /* nothing allocated on an error */
		return 0;
	}
	if (!text || !omitted)
		abort();
	/* one line per omission, each ending in '\n' */
	if (r > 0 && (!omitted[0] || omitted[strlen(omitted) - 1] != '\n'))
		abort();
	free(text);
	free(omitted);
	return 0;
}
