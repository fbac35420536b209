#!/bin/sh
# tc_script_cli.sh - tc files as admins write them (issue 16): shell
# variables ($NAME, ${NAME}, ${NAME:-WORD}, ${NAME-WORD}) from the script's
# own NAME=VALUE lines, --var and the environment; -force's going on.
. tests/support/cli.sh
CAP=scenarios/captures/icmp_5_pings.pcap

# 1. a script with variables runs exactly as its literal twin
cat >"$T_TMP/lit.tc" <<'TC'
tc qdisc add dev eth1 root handle 1: htb default 20
tc class add dev eth1 parent 1: classid 1:1 htb rate 800kbit burst 6k
tc class add dev eth1 parent 1:1 classid 1:20 htb rate 700kbit ceil 800kbit burst 6k prio 2
tc filter add dev eth1 parent 1: bpf expr 'icmp and host 10.0.0.1' flowid 1:20
TC
cat >"$T_TMP/var.tc" <<'TC'
#!/bin/sh
DEV=eth0
UPLINK=800 BURST=6k
EXPR="icmp and host 10.0.0.1"
tc qdisc del dev $DEV root 2>/dev/null || true
tc qdisc add dev $DEV root handle 1: htb default ${DEFCLASS:-20}
tc class add dev $DEV parent 1: classid 1:1 htb rate ${UPLINK}kbit burst $BURST
tc class add dev "$DEV" parent 1:1 classid 1:20 htb $RATE20 ceil ${UPLINK}kbit burst ${BURST} prio 2
tc filter add dev $DEV parent 1: bpf expr "$EXPR" flowid 1:${DEFCLASS-20}
TC
$TCSIM run --tc "$T_TMP/lit.tc" $CAP >"$T_TMP/lit.out" 2>&1 || bad "literal twin: $(cat "$T_TMP/lit.out")"
# --var beats the script's DEV=eth0; RATE20 (unquoted) splits into two words
$TCSIM run --tc "$T_TMP/var.tc" --var DEV=eth1 --var "RATE20=rate 700kbit" $CAP >"$T_TMP/var.out" 2>&1
if cmp -s "$T_TMP/lit.out" "$T_TMP/var.out"; then ok; else
	bad "variables: output differs from the literal twin"; diff "$T_TMP/lit.out" "$T_TMP/var.out" | head
fi
# the environment, below --var and the script's own lines
RATE20="rate 700kbit" DEV=eth9 $TCSIM run --tc "$T_TMP/var.tc" --var DEV=eth1 $CAP >"$T_TMP/env.out" 2>&1
if cmp -s "$T_TMP/lit.out" "$T_TMP/env.out"; then ok; else bad "environment: $(head -3 "$T_TMP/env.out")"; fi
# the script's own DEV=eth0 beats the environment's
RATE20="rate 700kbit" DEV=eth9 $TCSIM run --tc "$T_TMP/var.tc" $CAP >"$T_TMP/env2.out" 2>&1
if grep -q "^dev eth0:" "$T_TMP/env2.out" && ! grep -q "eth9" "$T_TMP/env2.out"; then ok; else bad "script over environment: $(head -3 "$T_TMP/env2.out")"; fi
# ${X:-W} takes W for an empty X, ${X-W} only for an unset one
printf 'X=\ntc qdisc add dev eth0 root handle 1: pfifo limit ${X:-7}\n' >"$T_TMP/d1.tc"
printf 'X=\ntc qdisc add dev eth0 root handle 1: pfifo limit 7${X-9}\n' >"$T_TMP/d2.tc"
for d in d1 d2; do
	if $TCSIM run --tc "$T_TMP/$d.tc" $CAP 2>&1 | grep -q '^qdisc pfifo 1: root refcnt 2 limit 7p$\|limit 7p'; then ok
	else bad "$d: $($TCSIM run --tc "$T_TMP/$d.tc" $CAP 2>&1 | head -3)"; fi
done

# 2. what is refused, in one line naming file:line
refused() { # NAME TEXT EXPECTED [OPTIONS]
	name=$1 text=$2 want=$3
	shift 3
	printf '%s\n' "$text" >"$T_TMP/r.tc"
	$TCSIM run --tc "$T_TMP/r.tc" "$@" $CAP >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && grep -qF -- "$want" "$T_TMP/err" && [ ! -s "$T_TMP/out" ]; then ok
	else bad "$name: exit $rc: $(cat "$T_TMP/err")"; fi
}
refused unset 'tc qdisc add dev $NOPE root pfifo' 'r.tc:1: $NOPE is not set: give --var NOPE=VALUE (or set it in the script or the environment)'
refused positional 'tc qdisc add dev $1 root pfifo' 'r.tc:1: "$1": tcsim runs no shell: only $NAME, ${NAME}, ${NAME:-WORD} and ${NAME-WORD} are expanded'
refused command-subst 'tc qdisc add dev $(ip link | head -1) root pfifo' '"$(ip": tcsim runs no shell'
refused arithmetic 'tc class add dev eth0 rate $((9*8))kbit' '"$((9*8))kbit": tcsim runs no shell'
refused assign-prefix 'DEV=eth0 tc qdisc add dev eth0 root pfifo' 'r.tc:1: "DEV=eth0": tcsim runs no shell: an assignment goes on a line of its own'
refused other-form 'tc qdisc add dev ${DEV:=eth0} root pfifo' '"${DEV:=eth0}": tcsim runs no shell'
# a Lua scenario's tc text has no variables (Lua builds its strings)
cat >"$T_TMP/v.lua" <<'LUA'
local sim = tcsim.sim{}
sim:tc("tc qdisc add dev $DEV root pfifo")
LUA
DEV=eth0 $TCSIM "$T_TMP/v.lua" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
if [ $rc -ne 0 ] && grep -q '"\$DEV": a shell variable, which only a tc file run with --var NAME=VALUE expands' "$T_TMP/err"; then ok
else bad "lua: exit $rc: $(cat "$T_TMP/err")"; fi
# --var takes NAME=VALUE with a shell name
$TCSIM run --tc "$T_TMP/lit.tc" --var 1X=2 $CAP >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "^tcsim run: --var '1X=2': not a valid value" "$T_TMP/err"; then ok; else bad "--var 1X=2: exit $rc: $(cat "$T_TMP/err")"; fi

# 3. --force: each failing line said, the rest built and run, exit 1 at the end
cat >"$T_TMP/f.tc" <<'TC'
tc qdisc add dev eth0 root handle 1: prio
tc qdisc add dev eth0 parent 1:1 handle 10: bogus
tc qdisc add dev eth0 parent 1:2 handle 20: sfq
tc qdisc add dev eth0 parent 1:2 handle 30: sfq
TC
$TCSIM run --tc "$T_TMP/f.tc" --force $CAP >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$T_TMP/err")" -eq 3 ] &&
	grep -q '^tcsim: .*f.tc:2: .*"bogus").* (--force: going on)$' "$T_TMP/err" &&
	grep -q '^tcsim: .*f.tc:4: .* (--force: going on)$' "$T_TMP/err" &&
	grep -q '^tcsim run: 2 tc commands failed and were passed over (--force)$' "$T_TMP/err" &&
	grep -q '^qdisc sfq 20: parent 1:2' "$T_TMP/out" && grep -q '^qdisc prio 1: root' "$T_TMP/out"; then ok
else bad "--force: exit $rc: $(cat "$T_TMP/err") / $(grep '^qdisc' "$T_TMP/out")"; fi
# without it the first failure stops the run, with nothing printed
$TCSIM run --tc "$T_TMP/f.tc" $CAP >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -s "$T_TMP/out" ] && grep -q 'f.tc:2:' "$T_TMP/err"; then ok; else bad "no --force: exit $rc"; fi
# explain and lint take both
$TCSIM lint --tc "$T_TMP/var.tc" --var DEV=eth1 --var "RATE20=rate 700kbit" >"$T_TMP/out" 2>&1 && ok || bad "lint --var: $(cat "$T_TMP/out")"
$TCSIM explain --tc "$T_TMP/f.tc" --force --packet 1 $CAP >"$T_TMP/out" 2>&1 && ok || bad "explain --force: $(head -3 "$T_TMP/out")"
# tc -force on a line, as router scripts write it: a no-op without -batch,
# as in tc; -batch itself is not modelled
printf 'tc -force qdisc add dev eth0 root handle 1: prio\ntc -f qdisc add dev eth0 parent 1:1 sfq\n' >"$T_TMP/force.tc"
$TCSIM run --tc "$T_TMP/force.tc" $CAP >"$T_TMP/out" 2>"$T_TMP/err" && grep -q '^qdisc sfq 8001: parent 1:1' "$T_TMP/out" && ok || bad "tc -force: $(cat "$T_TMP/err")"
printf 'tc -batch cmds.txt\n' >"$T_TMP/batch.tc"
$TCSIM run --tc "$T_TMP/batch.tc" $CAP >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
[ $rc -eq 2 ] || [ $rc -eq 1 ]; grep -q 'tc option "-batch" is not modelled' "$T_TMP/err" && ok || bad "tc -batch: exit $rc: $(cat "$T_TMP/err")"
# every kind tcsim does not model, 20 qdiscs and 5 filters: one line each,
# naming its line of the script and what is modelled
n=0; : >"$T_TMP/kinds.tc"
for k in cake hfsc cbq red choke sfb gred drr qfq ets fq fq_pie pie hhf multiq taprio cbs etf skbprio plug; do
	n=$((n + 1)); echo "tc qdisc add dev eth0 root $k" >>"$T_TMP/kinds.tc"
done
for k in route flow cgroup rsvp tcindex; do echo "tc filter add dev eth0 parent 1: $k" >>"$T_TMP/kinds.tc"; done
$TCSIM run --tc "$T_TMP/kinds.tc" --force $CAP >/dev/null 2>"$T_TMP/err"
n=0
for k in cake hfsc cbq red choke sfb gred drr qfq ets fq fq_pie pie hhf multiq taprio cbs etf skbprio plug; do
	n=$((n + 1))
	grep -qx "tcsim: .*kinds.tc:$n: qdisc \"$k\" is not modelled by tcsim (modelled: prio, sfq, .*) (--force: going on)" "$T_TMP/err" && ok || bad "not modelled: $k at line $n: $(grep "kinds.tc:$n:" "$T_TMP/err")"
done
for k in route flow cgroup rsvp tcindex; do
	n=$((n + 1))
	grep -qx "tcsim: .*kinds.tc:$n: filter \"$k\" is not modelled by tcsim (modelled: bpf, u32, matchall, fw, flower, basic) (--force: going on)" "$T_TMP/err" && ok || bad "not modelled: $k at line $n: $(grep "kinds.tc:$n:" "$T_TMP/err")"
done
finish
