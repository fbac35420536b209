-- tbf_six.lua with timer_latency = "5us": the watchdog fires 5 us after
-- the time tbf asked for. #4 leaves at 8.005 ms, 5 us of tokens to spare;
-- #5, throttled when the wire frees at 8.013 ms with 13 us, needs 8 ms:
-- it waits for 16 ms (until=16000000) and leaves at 16.005 ms,
-- #6 at 24.005 ms: each late by the latency, none by more (the tokens
-- kept count of the time).
local sim = tcsim.sim{ timer_latency = "5us" }
local eth0 = sim:dev("eth0", { rate = "1gbit" })
eth0:tc("qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000")
sim:trace{ file = "-" }
sim:traffic{ count = 6, pps = 1000000000, size = 1000 }
sim:run()
