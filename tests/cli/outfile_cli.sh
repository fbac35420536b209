#!/bin/sh
# outfile_cli.sh - every output tcsim writes whole through a temporary file
# renamed into place (base/outfile.c) is written in place when its path is
# not a regular file: `--trace /dev/null` must not replace the device with
# a file. Each output gets a symlink to /dev/null (safe to test: were the
# file renamed onto it, the link, not /dev/null, would be replaced) and
# must leave it a link to a character device, exit 0 and no temporary.
. tests/support/cli.sh
TC=scenarios/ssh_http.tc
CAP=scenarios/captures/icmp_5_pings.pcap
L=$T_TMP/null

still_dev() { # what
	if [ -L "$L" ] && [ -c "$L" ] && [ -z "$(ls "$T_TMP" | grep '\.tmp\.')" ]; then ok; else
		bad "$1: $L is no longer a link to /dev/null: $(ls -l "$L" 2>&1)"
		rm -f "$L"
	fi
}
try() { # what, command...
	what=$1; shift
	rm -f "$L" && ln -s /dev/null "$L"
	if "$@" >"$T_TMP/out" 2>"$T_TMP/err"; then still_dev "$what"; else
		bad "$what: exit $?: $(head -1 "$T_TMP/err")"
	fi
}

try "run --trace" "$TCSIM" run --tc $TC --rate 1mbit --trace "$L" $CAP
try "run --json" "$TCSIM" run --tc $TC --rate 1mbit --json "$L" $CAP
try "scenario --json" "$TCSIM" scenarios/ssh_http.lua --json "$L"
try "check --write-golden" "$TCSIM" check scenarios/ssh_http.lua --write-golden "$L"
cat >"$T_TMP/save.lua" <<LUA
tcsim.traffic{ pps = 100, count = 3, proto = "udp", dport = 53, size = 80, seed = 7 }:save("$L")
local sim = tcsim.sim{}
sim:tc("tc qdisc add dev eth0 root pfifo")
sim:run()
sim:report{json = "$L"}
local tr = tcsim.sim{}
tr:tc("tc qdisc add dev eth0 root pfifo")
tr:trace{file = "$L"}
tr:run()
LUA
try "Lua save and report{json}" "$TCSIM" "$T_TMP/save.lua"
finish
