#!/bin/sh
# valgrind.sh [all|ci]: tcsim under valgrind's memcheck, leaks included:
# a scenario, tcsim check both ways, tcsim run with every output, and an
# error path of each command. Each row gives the exit code the command
# itself must end with; a memcheck error or a leak ends it with 99 instead
# (--error-exitcode=99: 1 is an exit code tcsim's error paths use).
# `ci` runs the rows marked ci, which keep .ci/run within its time.
: "${TCSIM:=build/tcsim}"
set=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: valgrind is not installed (apt-get install valgrind)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
printf '4,40 0 0 12,21 0 1 2048,6 0 0 65537,6 0 0 0\n' > "$tmp/ok.bpf"
head -c 3000 scenarios/captures/ssh_hydra.pcap > "$tmp/cut.pcap"
printf 'qdisc add dev eth0 root handle 1: prio bands 3\nqdisc add dev eth0 parent 1:9 sfq\n' > "$tmp/bad.tc"
printf 'local sim = tcsim.sim{}\nsim:dev("eth0"):tc("qdisc add dev eth0 root pfifo limit 0x")\n' > "$tmp/bad.lua"
printf '{"tcsim": 1, "simulations": []}\n' > "$tmp/other.json"
printf 'qdisc add dev eth0 root bfifo limit 100mb\n' > "$tmp/bfifo.tc"

# which  expected-exit  [VAR=VALUE...] command (words split by the shell;
# $tmp expands; leading assignments go to its environment)
rows=$(cat <<'ROWS'
ci  0 scenarios/ssh_http.lua
ci  0 check scenarios/ssh_http.lua --expect tests/golden/ssh_http.json --quiet
ci  0 check scenarios/filter_chain.lua --write-golden $tmp/golden.json --quiet
ci  0 run --tc scenarios/ssh_http.tc --rate 256kbit --json $tmp/r.json --pcap-out $tmp/pcaps --plot $tmp/plots --trace $tmp/t.trace scenarios/captures/ssh_hydra.pcap scenarios/captures/icmp_5_pings.pcap
ci  0 run --tc scenarios/ssh_http.tc --rate 64kbit --pcap-format pcapng --pcap-out $tmp/ngs scenarios/captures/ssh_hydra.pcap scenarios/captures/icmp_5_pings.pcap
ci  0 TCSIM_SPILL_AFTER=8 run --tc $tmp/bfifo.tc --topspeed --loop 3 --json $tmp/s.json --pcap-out $tmp/spcaps --trace $tmp/s.trace scenarios/captures/ssh_hydra.pcap scenarios/captures/icmp_5_pings.pcap
all 0 TCSIM_SPILL_AFTER=1 scenarios/htb_router.lua
ci  0 explain scenarios/ssh_http_tcpdump.lua --packet 5
ci  0 lint scenarios/ssh_http.lua
ci  0 bpf run -a scenarios/filters/ssh.ops scenarios/captures/ssh_hydra.pcap
all 0 bpf disasm -e tcp\ port\ 22
all 0 bpf check -F $tmp/ok.bpf
all 0 scenarios/starvation.lua
all 0 scenarios/sfq_fairness.lua
ci  1 check scenarios/ssh_http.lua --expect $tmp/other.json --quiet
ci  1 run --tc $tmp/bad.tc --json $tmp/no.json scenarios/captures/ssh_hydra.pcap
ci  1 run --tc scenarios/ssh_http.tc --json $tmp/no.json --pcap-out $tmp/nopcap $tmp/cut.pcap
ci  1 run --tc scenarios/ssh_http.tc --pcap-format pcapng --pcap-out $tmp/nopcapng $tmp/cut.pcap
all 1 run --tc scenarios/ssh_http.tc /nonexistent.pcap
ci  1 $tmp/bad.lua
all 1 tests/data/lua/api_fail.lua
all 1 check $tmp/bad.lua --write-golden $tmp/no-golden.json
all 1 explain scenarios/ssh_http.lua --packet 999999
all 2 lint --tc $tmp/bad.tc
all 0 lint --tc tests/data/lint/vlan.tc scenarios/captures/ssh_hydra.pcap
all 2 lint --tc tests/data/lint/vlan.tc /nonexistent.pcap
all 1 import dev nosuchdev0
all 0 import dev lo
all 2 kernel-check --tc /nonexistent.tc scenarios/captures/ssh_hydra.pcap
ci  1 bpf check -b 1,6\ 0\ 0\ 0,6\ 0\ 0\ 0
all 1 bpf asm /nonexistent.ops
all 1 bpf run -e tcp\ port CAPTURE
all 2 run --rate
ROWS
)
echo "$rows" | while read -r which want args; do
	[ -n "$which" ] || continue
	[ "$set" = all ] || [ "$which" = ci ] || continue
	eval "set -- $args"
	envs=""
	while case $1 in [A-Z]*=*) true ;; *) false ;; esac; do envs="$envs $1"; shift; done
	env $envs valgrind -q --leak-check=full --error-exitcode=99 --log-file="$tmp/vg.log" \
		"$TCSIM" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && ! [ -s "$tmp/vg.log" ]; then
		echo "ok   $want $args"
		echo pass >> "$tmp/count"
	else
		echo "FAIL (exit $rc, wanted $want) tcsim $args"
		head -30 "$tmp/vg.log"; tail -3 "$tmp/err"
		echo fail >> "$tmp/count"
	fi
	rm -f "$tmp/vg.log"
done
pass=$(grep -c pass "$tmp/count" 2>/dev/null); fail=$(grep -c fail "$tmp/count" 2>/dev/null)
echo "valgrind: ${pass:-0} passed, ${fail:-0} failed"
[ "${fail:-0}" -eq 0 ]
