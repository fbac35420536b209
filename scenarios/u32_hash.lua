-- u32_hash.lua - per-host shaping with a u32 hash table, as router guides
-- write it: one htb class per host at equal rates, and instead of one
-- filter per host asked in turn, a 256-bucket table indexed by the last
-- byte of the source address, so each packet is matched in one bucket.
--
--   ./tcsim scenarios/u32_hash.lua
--
-- The tree (a 4 Mbit/s uplink shared by four hosts, 10.0.0.1 .. .4):
--   1:   htb
--   1:1  rate 4mbit                      the whole uplink
--   1:11 .. 1:14 rate 1mbit ceil 4mbit   one per host, sfq leaves
-- The filters:
--   handle 2: u32 divisor 256            table 2:, 256 buckets
--   ht 2:1: .. ht 2:4:                   bucket N holds host 10.0.0.N (N = 1..4)
--   ht 800:: ... hashkey mask 0x000000ff at 12 link 2:
--       in the root table 800:, every 10.0.0.0/24 source jumps to table
--       2:, bucket = the source's last byte (byte 15 of the IP header).
-- A host without a bucket entry (10.0.0.9 below) matches nothing in 2:
-- and htb, with no `default`, sends it straight to the root: unshaped.
--
-- What to look at: the class rows (each host's frames, in its own class)
-- and the "rates" line (four equal shares of 4 Mbit/s). Things to change:
--  * the loop to `for h = 1, 3`: host 4 is idle, and the three others
--    borrow its share up to their ceils: 1.33 Mbit/s each.
--  * the hashkey mask to 0x0000ff00: the bucket is then the third byte,
--    0 for every host; bucket 0 is empty, nothing matches, and all
--    15104 frames go unclassified to the root, unshaped (rates 0).
--  * `match ip src 10.0.0.0/24` to 10.0.1.0/24: no packet reaches the
--    link; the same as above.

local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "100mbit" })

eth0:tc[[
  qdisc add dev eth0 root handle 1: htb
  class add dev eth0 parent 1:  classid 1:1  htb rate 4mbit
  class add dev eth0 parent 1:1 classid 1:11 htb rate 1mbit ceil 4mbit
  class add dev eth0 parent 1:1 classid 1:12 htb rate 1mbit ceil 4mbit
  class add dev eth0 parent 1:1 classid 1:13 htb rate 1mbit ceil 4mbit
  class add dev eth0 parent 1:1 classid 1:14 htb rate 1mbit ceil 4mbit
  qdisc add dev eth0 parent 1:11 handle 11: sfq perturb 10
  qdisc add dev eth0 parent 1:12 handle 12: sfq perturb 10
  qdisc add dev eth0 parent 1:13 handle 13: sfq perturb 10
  qdisc add dev eth0 parent 1:14 handle 14: sfq perturb 10
  filter add dev eth0 parent 1:0 prio 5 handle 2: protocol ip u32 divisor 256
  filter add dev eth0 parent 1:0 prio 5 protocol ip u32 ht 2:1: match ip src 10.0.0.1 flowid 1:11
  filter add dev eth0 parent 1:0 prio 5 protocol ip u32 ht 2:2: match ip src 10.0.0.2 flowid 1:12
  filter add dev eth0 parent 1:0 prio 5 protocol ip u32 ht 2:3: match ip src 10.0.0.3 flowid 1:13
  filter add dev eth0 parent 1:0 prio 5 protocol ip u32 ht 2:4: match ip src 10.0.0.4 flowid 1:14
  filter add dev eth0 parent 1:0 prio 5 protocol ip u32 ht 800:: match ip src 10.0.0.0/24 hashkey mask 0x000000ff at 12 link 2:
  filter show dev eth0
]]

-- Four greedy hosts, each offering 3 Mbit/s (12 in all, three times the
-- uplink) for 10 s, and 100 frames from a host with no bucket entry.
for h = 1, 4 do
  sim:traffic{ name = "host" .. h, src = "10.0.0." .. h, dst = "192.0.2.1",
               proto = "udp", dport = 5000 + h, size = 1000,
               rate = "3mbit", duration = "10s" }
end
sim:traffic{ name = "stranger", src = "10.0.0.9", dst = "192.0.2.1", proto = "udp",
             dport = 6000, size = 100, count = 100, pps = 10 }

-- Measure the shares over 2 s .. 10 s, when all four are busy.
sim:run_until(2)
local b0 = {}
for h = 1, 4 do b0[h] = eth0:class("1:1" .. h).bytes end
sim:run_until(10)
local rates = {}
for h = 1, 4 do rates[h] = (eth0:class("1:1" .. h).bytes - b0[h]) * 8 / 8 end
sim:run()
sim:report()
print(string.format("rates 2..10 s (bit/s): %d %d %d %d", rates[1], rates[2], rates[3], rates[4]))

local st = eth0:stats()
for h = 1, 4 do
  local s = st.sources["host" .. h]
  -- 3 Mbit/s of 1000-byte frames is 375 per second: 3751 in 10 s (an
  -- arrival at exactly 10 s included); u32 sent every one to 1:1h.
  expect_eq(st.verdicts["1:1" .. h], 3751, "host " .. h .. ": all 3751 frames classified 1:1" .. h)
  -- Every frame host h sent went through its own class: its class sent
  -- exactly what the host sent, the other classes none of it.
  expect_eq(st.classes["1:1" .. h].packets, s.packets, "1:1" .. h .. " carried exactly host " .. h .. "'s frames")
  -- Equal rates, all greedy: each gets 4mbit / 4 = 1 Mbit/s, within 2%.
  -- 1 Mbit/s for 10 s is 1250 frames of 1000 bytes; after 10 s the class
  -- drains its sfq (127 frames, the limit); htb's buckets add a frame or two.
  expect_between(s.packets, 1250 + 127, 1250 + 127 + 3, "host " .. h .. ": 10 s at 1 Mbit/s and a full sfq")
  expect_between(rates[h], 980000, 1020000, "host " .. h .. " gets 1 Mbit/s (+-2%) of the 4")
end
-- The host without a bucket entry: unclassified, sent by the root, none lost.
expect_eq(st.sources.stranger.packets, 100, "10.0.0.9: all 100 frames sent, unshaped")
expect_eq(st.verdicts.unclassified, 100, "10.0.0.9: no bucket entry, unclassified")
