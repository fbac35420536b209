-- priomap_tos.lua - where prio puts traffic that no filter classifies.
--
--   ./tcsim scenarios/priomap_tos.lua
--
-- Without filters, prio_classify (net/sched/sch_prio.c) looks only at
-- skb->priority:
--  * if its major number is prio's handle ("1:3" for "1:"), the minor
--    names the class: band = minor - 1, and a minor beyond the bands
--    falls back to priomap[0];
--  * otherwise (a priority with another major counts as 0) the band is
--    priomap[priority & 15]. The default priomap is
--        priority: 0 1 2 3 4 5 6 7 8 ... 15
--        band:     1 2 2 2 1 2 0 0 1 ... 1
--
-- Who sets skb->priority? A local socket, with SO_PRIORITY: a number
-- (above 6 only with CAP_NET_ADMIN), or a classid such as 0x10003 for
-- "1:3". A router forwarding IPv4 sets it from the TOS byte: ip_forward
-- does skb->priority = rt_tos2priority(tos), the table ip_tos2prio
-- (net/ipv4/route.c) indexed by the TOS bits 0x1e:
--     0x00 best effort -> 0 (TC_PRIO_BESTEFFORT)
--     0x08 throughput  -> 2 (TC_PRIO_BULK)
--     0x10 low delay   -> 6 (TC_PRIO_INTERACTIVE)
--     0x18 both        -> 4 (TC_PRIO_INTERACTIVE_BULK)
-- DSCP is the TOS byte's top six bits, so a DSCP lands wherever its bits
-- 0x1e happen to fall: EF (46 = TOS 0xb8) is "both" -> band 1, not 0.
-- IPv6 forwarding sets no priority: it stays 0.
--
-- Each row below is its own small simulation: five frames of one kind
-- through a prio with no filters; the table shows the class they reached.

local cases = {
  -- label, the traffic's marking, the class we expect (worked out above)
  { "TOS 0x00 best effort",    { tos = 0x00 },            "1:2" }, -- 0 -> band 1
  { "TOS 0x10 low delay",      { tos = 0x10 },            "1:1" }, -- 6 -> band 0
  { "TOS 0x08 throughput",     { tos = 0x08 },            "1:3" }, -- 2 -> band 2
  { "TOS 0x04 reliability",    { tos = 0x04 },            "1:2" }, -- 0 -> band 1
  { "TOS 0x18 delay+thruput",  { tos = 0x18 },            "1:2" }, -- 4 -> band 1
  { "DSCP 46 EF (voice)",      { dscp = 46 },             "1:2" }, -- 0xb8: 4 -> band 1
  { "DSCP 34 AF41 (video)",    { dscp = 34 },             "1:3" }, -- 0x88: 2 -> band 2
  { "DSCP 48 CS6 (routing)",   { dscp = 48 },             "1:2" }, -- 0xc0: 0 -> band 1
  { "IPv6, class 0x10",        { tos = 0x10, src = "2001:db8::1", dst = "2001:db8::2" }, "1:2" },
  -- SO_PRIORITY: the number is used as is; the TOS no longer matters.
  { "SO_PRIORITY 7, TOS 0x08", { priority = 7, tos = 0x08 }, "1:1" }, -- priomap[7] = 0
  { "SO_PRIORITY 22",          { priority = 22 },         "1:1" }, -- 22 & 15 = 6 -> band 0
  { "SO_PRIORITY 1:3",         { priority = "1:3", tos = 0x10 }, "1:3" }, -- names the class
  { "SO_PRIORITY 1:9",         { priority = "1:9" },      "1:2" }, -- no band 9: priomap[0]
  { "SO_PRIORITY 2:1",         { priority = "2:1" },      "1:2" }, -- not prio 1: -> as 0
  -- The cure for EF: a priomap that sends priority 4 to band 0.
  { "DSCP 46, priomap[4] = 0", { dscp = 46 },             "1:1",
    priomap = "1 2 2 2 0 2 0 0 1 1 1 1 1 1 1 1" },
}

local function run_case(case)
  local sim = tcsim.sim{ seed = 1 }
  local eth0 = sim:dev("eth0", { rate = "10mbit" })
  eth0:tc("qdisc add dev eth0 root handle 1: prio" ..
          (case.priomap and " priomap " .. case.priomap or ""))
  local t = { proto = "udp", size = 200, pps = 100, count = 5 }
  for k, v in pairs(case[2]) do t[k] = v end
  sim:traffic(t)   -- priority defaults to "forward": a router's TOS table
  sim:run()
  local st = eth0:stats()
  local where = {}
  for _, c in ipairs(st.classes) do
    if c.packets > 0 then where[#where + 1] = c.classid .. " (" .. c.packets .. ")" end
  end
  return table.concat(where, " "), next(st.verdicts), eth0
end

local results = {}
print(string.format("%-26s %-10s %s", "traffic", "class", "verdict"))
for i, case in ipairs(cases) do
  local class, verdict, eth0 = run_case(case)
  results[i] = { class = class, verdict = verdict }
  print(string.format("%-26s %-10s %s", case[1], class, verdict))
  if i == #cases then eth0:tc("qdisc show dev eth0") end   -- the changed priomap
end

for i, case in ipairs(cases) do
  expect_eq(results[i].class, case[3] .. " (5)", case[1] .. ": all five frames in " .. case[3])
  -- A priority naming a class of prio is reported as that verdict (even
  -- 1:9, which then falls back to priomap[0]); the rest was decided by
  -- the priomap alone ("unclassified").
  local p = case[2].priority
  local named = type(p) == "string" and p:sub(1, 2) == "1:"
  expect_eq(results[i].verdict, named and p or "unclassified", case[1] .. ": verdict")
end
