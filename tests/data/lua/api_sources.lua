-- api_sources.lua - per-source statistics: with one source a device's
-- source row is its classes together; a second source added mid-run
-- starts its own row and the first keeps everything it had.
local sim = tcsim.sim{ seed = 5 }
local eth0 = sim:dev("eth0", { rate = "1mbit" })
eth0:tc("qdisc add dev eth0 root handle 1: pfifo limit 1000")
-- 1000-byte frames (8 ms each) at 150/s: a queue builds
sim:traffic{ name = "a", pps = 150, count = 150, size = 1000, proto = "udp" }
sim:run_until(0.5)
local st = eth0:stats()
local a, c = st.sources.a, st.classes["1:"]
expect_eq(a.packets, c.packets, "one source: its row is the device's")
expect_eq(a.delay_ns.total.max, c.delay_ns.total.max, "one source: same delays")
expect_eq(a.delay_ns.queue.p90, c.delay_ns.queue.p90, "one source: same percentiles")

sim:traffic{ name = "b", pps = 50, count = 25, size = 200, proto = "udp", dport = 53 }
sim:run()
st = eth0:stats()
a, c = st.sources.a, st.classes["1:"]
local b = st.sources.b
expect_eq(a.arrived, 150, "a: every packet arrived")
expect_eq(b.arrived, 25, "b: every packet arrived")
expect_eq(a.packets + b.packets, c.packets, "the two rows add up to the class")
expect_eq(a.bytes + b.bytes, c.bytes, "and so do their bytes")
expect_eq(math.max(a.delay_ns.total.max, b.delay_ns.total.max), c.delay_ns.total.max,
  "the class's longest delay is one of the sources'")
expect_eq(math.min(a.delay_ns.queue.min, b.delay_ns.queue.min), c.delay_ns.queue.min,
  "the class's shortest wait is one of the sources'")
expect_near(a.delay_ns.total.mean * a.packets + b.delay_ns.total.mean * b.packets,
  c.delay_ns.total.mean * c.packets, 1e-6, "the means weigh up to the class's")
expect_gt(b.delay_ns.queue.mean, 0, "b queued behind a's backlog")
expect_eq(#st.sources, 2, "two source rows")
