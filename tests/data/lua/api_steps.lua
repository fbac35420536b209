-- api_steps.lua - stepping, reading state mid-run, changing the policy
-- and the link mid-run, against values computed by hand.
-- 1000-byte frames at 100 packets/s on a 1 Mbit/s link: each takes 8 ms
-- on the wire and the next arrives 10 ms after the previous one, so no
-- packet ever queues: queue delay 0, total delay exactly 8 ms.
local sim = tcsim.sim{ seed = 7, rate = "1mbit" }
local eth0 = sim:dev("eth0")
expect_eq(tostring(eth0), "tcsim.dev eth0 of sim1", "a device prints its name")
eth0:tc("qdisc add dev eth0 root handle 1: prio")
sim:traffic{ dev = eth0, pps = 100, count = 50, size = 1000, proto = "udp" }

-- arrivals at 0, 10, ..., 250 ms: 26; packet i leaves at 10 i + 8 ms
expect_eq(sim:run_until("0.25s"), 250000000, "run_until returns the clock")
local st = eth0:stats()
expect_eq(st.totals.arrived, 26, "26 arrivals by 250 ms (inclusive)")
expect_eq(st.totals.sent, 25, "25 sent by 250 ms")
expect_eq(st.totals.queued, 1, "one on the wire")
local bytes, pkts = eth0:backlog()
expect_eq(pkts, 0, "the root qdisc is empty (the packet is on the wire)")
expect_eq(bytes, 0, "no bytes queued")
-- unclassified: default priomap, priority 0 (forward, TOS 0) -> band 1
expect_eq(st.verdicts.unclassified, 26, "no filters: the priomap decides")
expect_eq(eth0:class("1:2").packets, 25, "priority 0 -> priomap[0] = band 1 -> 1:2")
expect_eq(eth0:class("1:2").delay_ns.total.max, 8000000, "8 ms on the wire, no queueing")

-- from 250 ms on, a filter sends everything to 1:3
eth0:tc("filter add dev eth0 parent 1: pref 10 bpf bytecode '1,6 0 0 65539' flowid 1:1")
sim:run{ duration = "100ms" }
expect_eq(sim:now(), 350000000, "run{duration} advances the clock by exactly that")
st = eth0:stats()
expect_eq(st.verdicts["1:3"], 10, "arrivals at 260..350 ms took the filter's classid 1:3 (65539)")
expect_eq(st.filters[1].pref, 10, "the filter is listed")
expect_eq(st.filters[1].packets, 10, "and counted its hits")

-- halve the link rate: 16 ms per frame, 10 ms apart: a queue builds
eth0:set{ rate = "500kbit" }
sim:run()
st = eth0:stats()
expect_eq(st.totals.sent, 50, "all sent in the end")
expect_eq(st.totals.queued, 0, "and nothing left")
expect_gt(eth0:class("1:3").delay_ns.queue.max, 0, "at the lower rate packets queue")
expect_eq(st.qdiscs["1:"].kind, "prio", "qdiscs are keyed by handle")
expect_eq(st.classes["1:3"].classid, "1:3", "classes are keyed by classid")

-- time and rate helpers use tc's units; bare numbers are seconds
expect_eq(tcsim.time("1.5ms"), 1500000, "tcsim.time('1.5ms')")
expect_eq(tcsim.time(2), 2000000000, "tcsim.time(2) is 2 s")
expect_eq(tcsim.rate("1mbps"), 8000000, "tc's trap: mbps is megabytes per second")
expect_eq(tcsim.ms(2500000), 2.5, "tcsim.ms")
