-- api_save.lua - a synthetic source saved to a pcap and replayed gives
-- the very same packets: same counts, bytes, verdicts and delays.
local out = arg[1] or error("give the output pcap path as the first argument")
local spec = { arrivals = "poisson", pps = 400, duration = "2s", proto = "tcp",
               src = "192.0.2.1", dst = "198.51.100.7", sport = 40000, dport = 22,
               flows = 3, size = { 64, 600, 1500 }, weights = { 5, 2, 1 }, tos = 0x10 }
local policy = [[
  qdisc add dev eth0 root handle 1: prio
  qdisc add dev eth0 parent 1:1 handle 10: sfq
  filter add dev eth0 parent 1: pref 1 bpf bytecode-file ../../../scenarios/filters/ssh.bpf flowid 1:1
]]
local a = tcsim.sim{ seed = 3 }
a:dev("eth0", { rate = "2mbit" }):tc(policy)
local t = a:traffic(spec)
local n = t:save(out)
a:run()

local b = tcsim.sim{ seed = 3 }
b:dev("eth0", { rate = "2mbit" }):tc(policy)
b:replay(out)
b:run()

local sa, sb = a:stats().devices.eth0, b:stats().devices.eth0
expect_eq(n, sa.totals.arrived, "save wrote every packet the source yields")
expect_gt(n, 600, "about 800 packets in 2 s at 400/s")
expect_lt(n, 1000, "about 800 packets in 2 s at 400/s")
for _, k in ipairs{ "arrived", "sent", "sent_bytes", "dropped" } do
  expect_eq(sb.totals[k], sa.totals[k], "replayed: same " .. k)
end
expect_eq(sb.classes["1:1"].packets, n, "every packet is ssh (tcp/22) to the filter")
expect_eq(sb.classes["1:1"].delay_ns.total.p99, sa.classes["1:1"].delay_ns.total.p99,
  "replayed: same p99")
expect_eq(sb.classes["1:1"].delay_ns.queue.mean, sa.classes["1:1"].delay_ns.queue.mean,
  "replayed: same mean queueing delay")
