/* ns3_prio.cc - the peer of `make bench-peers`: ns-3's PrioQueueDisc over a capture.
 *
 * usage: ns3_prio [--direct] CAPTURE.pcap [PRIOMAP]
 *
 * Every frame of the capture (libpcap, nanosecond timestamps) arrives at its
 * timestamp, shifted so the first one arrives at 0 (a timestamp earlier than
 * the one before it arrives with that one, as in tcsim), at a
 * PointToPointNetDevice of 10 Mbit/s with no propagation delay, through the
 * node's TrafficControlLayer and a PrioQueueDisc root: 2 bands, each a
 * FifoQueueDisc of 1000 packets, priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1 (the
 * bench's tc script; PRIOMAP replaces it, e.g. all 1 for the FIFO control). A
 * frame's SocketPriorityTag is what a Linux router gives a forwarded IPv4 packet,
 * from its TOS (Socket::IpTos2Priority: the kernel's table for the TOS values
 * the capture holds), so PrioQueueDisc's priomap picks the band tcsim's prio does.
 *
 * The queued item is the whole Ethernet frame (tcsim's qdisc_pkt_len); the device
 * adds its 2-byte PPP header, so a frame of L bytes holds the wire for
 * (L + 2) * 800 ns, as `tcsim run --overhead 2` does (an 802.1Q tag would count
 * here, where tcsim offloads it; the bench's capture has none). The device's own
 * transmit queue is one packet, the least ns-3 allows; the queue disc stops while
 * it is full, so ns-3 hands the device the next packet as soon as the wire starts
 * the current one (a one-packet driver ring), where tcsim dequeues when the wire
 * frees.
 *
 * --direct, a control: the same PrioQueueDisc tree outside the traffic control
 * layer, dequeued by this program when the wire frees (the device's queue stays
 * empty), as tcsim does; its delays must be tcsim's to the nanosecond.
 *
 * Prints, one "key value" per line: packets read, then per band the packets
 * sent and dropped, the mean queueing delay (arrival to the start of the
 * transmission, tcsim's queue delay) and the mean sojourn in the queue disc
 * (arrival to the queue disc's dequeue); and the wall time of the run and of the
 * whole program (reading, setting up, simulating), in ns. Exit 1 with one line
 * on stderr when the capture cannot be read or sent + dropped != read; 2 for usage.
 *
 * ns-3 is GPL-2.0: this program links it, and is built only by `make bench-peers`;
 * tcsim itself neither links nor ships it. */
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

/* after ns-3: its PcapHelper names enumerators as libpcap names its DLT_ macros */
#include <pcap.h>

using namespace ns3;

namespace {

const int NBANDS = 2;
const char *PRIOMAP = "1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1"; /* the default; argv[2] replaces it */

/* A queued frame: the packet is the whole frame, so nothing to add on the way out. */
class FrameItem : public QueueDiscItem {
      public:
	FrameItem(Ptr<Packet> p, const Address &addr, uint16_t protocol) : QueueDiscItem(p, addr, protocol) {}
	void AddHeader() override {}
	bool Mark() override { return false; }
};

struct BandStats {
	uint64_t sent = 0, dropped = 0;
	int64_t queue_sum_ns = 0, sojourn_sum_ns = 0;
};

struct Peer {
	pcap_t *pc = nullptr;
	Ptr<NetDevice> dev;
	Ptr<TrafficControlLayer> tc; /* null with --direct */
	Ptr<QueueDisc> prio;
	bool busy = false; /* --direct: the wire is sending */
	int64_t t0 = 0, last = 0;
	bool started = false, read_error = false;
	uint64_t packets = 0;
	uint64_t uid0 = 0;
	std::vector<int64_t> arrival; /* by packet uid - uid0 */
	std::vector<int8_t> band;     /* the band that dequeued it */
	BandStats bands[NBANDS];
	bool Next();
	void Arrive(Ptr<Packet> p, uint8_t priority);
	void Kick();
};

Peer peer;

/* The IPv4 TOS of an Ethernet frame (VLAN tags skipped), or -1. */
int FrameTos(const u_char *d, uint32_t caplen)
{
	uint32_t off = 12;
	while (off + 2 <= caplen && (d[off] << 8 | d[off + 1]) == 0x8100)
		off += 4;
	if (off + 4 > caplen || (d[off] << 8 | d[off + 1]) != 0x0800 || (d[off + 2] >> 4) != 4)
		return -1;
	return d[off + 3];
}

/* Reads the next frame and schedules its arrival; false at the end. */
bool Peer::Next()
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int r = pcap_next_ex(pc, &h, &d);
	if (r != 1) {
		if (r == PCAP_ERROR) {
			fprintf(stderr, "ns3_prio: %s\n", pcap_geterr(pc));
			read_error = true;
		}
		return false;
	}
	int64_t ts = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec; /* nanosecond pcap */
	if (!started) {
		t0 = ts;
		started = true;
	}
	int64_t t = ts - t0;
	if (t < last)
		t = last;
	last = t;
	int tos = FrameTos(d, h->caplen);
	uint8_t prio = tos < 0 ? 0 : Socket::IpTos2Priority((uint8_t)tos);
	Ptr<Packet> p = Create<Packet>(d, h->caplen);
	if (h->len > h->caplen)
		p->AddPaddingAtEnd(h->len - h->caplen);
	Simulator::Schedule(NanoSeconds(t) - Simulator::Now(), &Peer::Arrive, this, p, prio);
	return true;
}

void Peer::Arrive(Ptr<Packet> p, uint8_t priority)
{
	SocketPriorityTag tag;
	tag.SetPriority(priority);
	p->AddPacketTag(tag);
	if (packets == 0)
		uid0 = p->GetUid();
	uint64_t i = p->GetUid() - uid0;
	if (i >= arrival.size()) {
		size_t n = std::max<size_t>(i + 1, 2 * arrival.size());
		arrival.resize(n, -1);
		band.resize(n, -1);
	}
	arrival[i] = Simulator::Now().GetNanoSeconds();
	packets++;
	Ptr<QueueDiscItem> item = Create<FrameItem>(p, dev->GetBroadcast(), 0x0800);
	if (tc) {
		tc->Send(dev, item);
	} else {
		prio->Enqueue(item);
		Kick();
	}
	Next();
}

/* --direct: the device takes a packet from the queue disc when its wire is free. */
void Peer::Kick()
{
	if (busy)
		return;
	Ptr<QueueDiscItem> item = prio->Dequeue();
	if (!item)
		return;
	busy = true;
	dev->Send(item->GetPacket(), item->GetAddress(), item->GetProtocol());
}

/* --direct: the wire is free; ask the queue disc once the device has finished
 * with the packet sent (it clears it after this trace). */
void TxEnd(Ptr<const Packet> p)
{
	peer.busy = false;
	Simulator::ScheduleNow(&Peer::Kick, &peer);
}

void BandDequeue(int b, Ptr<const QueueDiscItem> item)
{
	uint64_t i = item->GetPacket()->GetUid() - peer.uid0;
	peer.band[i] = (int8_t)b;
	peer.bands[b].sojourn_sum_ns += Simulator::Now().GetNanoSeconds() - peer.arrival[i];
}

void BandDrop(int b, Ptr<const QueueDiscItem> item)
{
	peer.bands[b].dropped++;
}

void TxBegin(Ptr<const Packet> p)
{
	uint64_t i = p->GetUid() - peer.uid0;
	int b = peer.band[i];
	peer.bands[b].sent++;
	peer.bands[b].queue_sum_ns += Simulator::Now().GetNanoSeconds() - peer.arrival[i];
}

/* 16 bands separated by blanks, each below NBANDS (ns-3's parser would abort). */
bool PriomapOk(const char *s)
{
	int n = 0;
	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s)
			return n == 16;
		if (*s < '0' || *s >= '0' + NBANDS || (s[1] && s[1] != ' ') || ++n > 16)
			return false;
		s++;
	}
}

int64_t Mean(int64_t sum, uint64_t n)
{
	return n ? (int64_t)((sum + (int64_t)n / 2) / (int64_t)n) : 0;
}

} // namespace

int main(int argc, char **argv)
{
	auto w0 = std::chrono::steady_clock::now();
	bool direct = argc > 1 && !strcmp(argv[1], "--direct");
	argc -= direct;
	argv += direct;
	if (argc < 2 || argc > 3 || (argc == 3 && !PriomapOk(argv[2]))) {
		fprintf(stderr, "usage: ns3_prio [--direct] CAPTURE.pcap [PRIOMAP: 16 bands, each 0 to %d]\n", NBANDS - 1);
		return 2;
	}
	const char *priomap = argc == 3 ? argv[2] : PRIOMAP;
	char errbuf[PCAP_ERRBUF_SIZE];
	peer.pc = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!peer.pc) {
		fprintf(stderr, "ns3_prio: %s\n", errbuf);
		return 1;
	}
	if (pcap_datalink(peer.pc) != DLT_EN10MB) {
		fprintf(stderr, "ns3_prio: %s: not an Ethernet capture\n", argv[1]);
		return 1;
	}

	NodeContainer nodes;
	nodes.Create(2);
	PointToPointHelper p2p;
	p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
	p2p.SetChannelAttribute("Delay", StringValue("0s"));
	p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
	NetDeviceContainer devs = p2p.Install(nodes);
	peer.dev = devs.Get(0);
	if (!direct) {
		peer.tc = CreateObject<TrafficControlLayer>();
		nodes.Get(0)->AggregateObject(peer.tc);
		TrafficControlHelper tch;
		uint16_t root = tch.SetRootQueueDisc("ns3::PrioQueueDisc", "Priomap", StringValue(priomap));
		TrafficControlHelper::ClassIdList cls = tch.AddQueueDiscClasses(root, NBANDS, "ns3::QueueDiscClass");
		for (int b = 0; b < NBANDS; b++)
			tch.AddChildQueueDisc(root, cls[b], "ns3::FifoQueueDisc", "MaxSize", StringValue("1000p"));
		peer.prio = tch.Install(peer.dev).Get(0);
	} else {
		/* the same tree, outside the traffic control layer: only Kick dequeues */
		peer.prio = CreateObjectWithAttributes<PrioQueueDisc>("Priomap", StringValue(priomap));
		for (int b = 0; b < NBANDS; b++) {
			Ptr<QueueDiscClass> c = CreateObject<QueueDiscClass>();
			c->SetQueueDisc(CreateObjectWithAttributes<FifoQueueDisc>("MaxSize", StringValue("1000p")));
			peer.prio->AddQueueDiscClass(c);
		}
		peer.prio->Initialize();
		peer.dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&TxEnd));
	}
	Ptr<QueueDisc> prio = peer.prio;
	nodes.Get(0)->Initialize(); /* the traffic control layer finds the device's queue */

	for (int b = 0; b < NBANDS; b++) {
		Ptr<QueueDisc> child = prio->GetQueueDiscClass(b)->GetQueueDisc();
		child->TraceConnectWithoutContext("Dequeue", MakeBoundCallback(&BandDequeue, b));
		child->TraceConnectWithoutContext("Drop", MakeBoundCallback(&BandDrop, b));
	}
	peer.dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TxBegin));

	peer.Next();
	auto r0 = std::chrono::steady_clock::now();
	Simulator::Run();
	auto r1 = std::chrono::steady_clock::now();
	Simulator::Destroy();
	pcap_close(peer.pc);

	uint64_t sent = 0, dropped = 0;
	printf("packets %" PRIu64 "\n", peer.packets);
	for (int b = 0; b < NBANDS; b++) {
		const BandStats &s = peer.bands[b];
		printf("band%d_sent %" PRIu64 "\n", b, s.sent);
		printf("band%d_dropped %" PRIu64 "\n", b, s.dropped);
		printf("band%d_queue_mean_ns %" PRId64 "\n", b, Mean(s.queue_sum_ns, s.sent));
		printf("band%d_sojourn_mean_ns %" PRId64 "\n", b, Mean(s.sojourn_sum_ns, s.sent));
		sent += s.sent;
		dropped += s.dropped;
	}
	auto w1 = std::chrono::steady_clock::now();
	printf("run_wall_ns %" PRId64 "\n", (int64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(r1 - r0).count());
	printf("wall_ns %" PRId64 "\n", (int64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(w1 - w0).count());
	if (peer.read_error)
		return 1;
	if (sent + dropped != peer.packets) {
		fprintf(stderr, "ns3_prio: %" PRIu64 " packets read, %" PRIu64 " sent + %" PRIu64 " dropped\n",
			peer.packets, sent, dropped);
		return 1;
	}
	return 0;
}
