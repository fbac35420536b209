#!/bin/sh
# tc_json_cli.sh - tc's JSON in tc scripts and tcsim run --tc-json, exact
# output:
#  1. the kinds this VM's kernel lacks (prio, sfq, codel, fq_codel, netem,
#     matchall, fw, flower, basic, u32's mark): each tests/data/tcjson/
#     {q,n,f}NN_KIND.tc prints exactly NN_KIND.json, the lines Debian 12's
#     tc (iproute2 6.1) printed for the same commands under the qemu oracle
#     (qemu_6.1_run*.txt hold the whole recordings, qemu_6.1_run*.sh the
#     scripts). fw and basic, where 6.1 writes text inside its JSON, expect
#     tcsim's valid form (README, tc's JSON); the kinds with a kernel here
#     are in tests/kernel/kernel_tc_json.sh;
#  2. -p's layout, -j with class show (text, as 6.1), several devices in
#     one array, an empty filter list;
#  3. --tc-json: one object, whole or nothing, refused with '-'; -g is
#     still refused as not modelled.
# The netem cases also compare tc qdisc show's text with the recording.
. tests/support/cli.sh
D=tests/data/tcjson
CAP=scenarios/captures/icmp_5_pings.pcap

# what a tc file's shows print (the run's one packet comes after them)
shows() { $TCSIM run --tc "$1" --limit 1 $CAP 2>"$T_TMP/err" | sed '/^tcsim: [0-9]* device/,$d'; }

# 1. recorded kernel JSON
n=0
for f in "$D"/[qnf][0-9][0-9]_*.tc; do
	name=$(basename "$f" .tc)
	n=$((n + 1))
	shows "$f" >"$T_TMP/got"
	if cmp -s "$D/$name.json" "$T_TMP/got"; then
		ok
	else
		bad "$name: differs from $D/$name.json (< iproute2 6.1, > tcsim)"
		diff "$D/$name.json" "$T_TMP/got" | head -6
		cat "$T_TMP/err"
	fi
done
[ "$n" -ge 20 ] || bad "only $n recorded cases found in $D"

# 2. layouts
cat >"$T_TMP/p.tc" <<'X'
tc qdisc add dev v0 root handle 1: prio
tc qdisc add dev v1 root handle 2: pfifo limit 3
tc -j -p qdisc show
tc -j qdisc show
tc -j filter show dev v1
tc -j -p filter show dev v1
tc -s -j class show dev v0
tc -json -pretty qdisc show dev v1
X
cat >"$T_TMP/p.want" <<'X'
[ {
        "kind": "prio",
        "handle": "1:",
        "dev": "v0",
        "root": true,
        "refcnt": 2,
        "options": {
            "bands": 3,
            "priomap": [ 1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1 ],
            "multiqueue": false
        }
    },{
        "kind": "pfifo",
        "handle": "2:",
        "dev": "v1",
        "root": true,
        "refcnt": 2,
        "options": {
            "limit": 3
        }
    } ]
[{"kind":"prio","handle":"1:","dev":"v0","root":true,"refcnt":2,"options":{"bands":3,"priomap":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"multiqueue":false}},{"kind":"pfifo","handle":"2:","dev":"v1","root":true,"refcnt":2,"options":{"limit":3}}]
[]
[ ]
class prio 1:1 parent 1: 
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
class prio 1:2 parent 1: 
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
class prio 1:3 parent 1: 
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
[ {
        "kind": "pfifo",
        "handle": "2:",
        "root": true,
        "refcnt": 2,
        "options": {
            "limit": 3
        }
    } ]
X
shows "$T_TMP/p.tc" >"$T_TMP/p.got"
if cmp -s "$T_TMP/p.want" "$T_TMP/p.got"; then ok; else
	bad "layouts: -p, several devices, empty lists, class show differ"
	diff "$T_TMP/p.want" "$T_TMP/p.got" | head -20
fi

# 3. --tc-json
cat >"$T_TMP/r.tc" <<'X'
tc qdisc add dev eth0 root handle 1: htb default 20
tc class add dev eth0 parent 1: classid 1:20 htb rate 1mbit
tc filter add dev eth0 parent 1: protocol all pref 1 matchall classid 1:20
X
if $TCSIM run --tc "$T_TMP/r.tc" --tc-json "$T_TMP/r.json" $CAP >/dev/null 2>"$T_TMP/err"; then
	want='{"qdisc":[{"kind":"htb","handle":"1:","dev":"eth0","root":true,"refcnt":2,"options":{"r2q":10,"default":"0x20","direct_packets_stat":0,"direct_qlen":1000},"bytes":980,"packets":10,"drops":0,"overlimits":0,"requeues":0,"backlog":0,"qlen":0}],"class":[{"class":"htb","handle":"1:20","dev":"eth0","root":true,"prio":0,"rate":125000,"ceil":125000,"burst":1600,"cburst":1600,"stats":{"bytes":980,"packets":10,"drops":0,"overlimits":0,"requeues":0,"backlog":0,"qlen":0,"lended":10,"borrowed":0,"giants":0,"tokens":187750,"ctokens":187750}}],"filter":[{"dev":"eth0","parent":"1:","protocol":"all","pref":1,"kind":"matchall","chain":0},{"dev":"eth0","parent":"1:","protocol":"all","pref":1,"kind":"matchall","chain":0,"options":{"handle":1,"flowid":"1:20","not_in_hw":true,"rule_hit":10}}]}'
	if [ "$(cat "$T_TMP/r.json")" = "$want" ]; then ok; else
		bad "--tc-json: the file differs"; printf 'want %s\ngot  %s\n' "$want" "$(cat "$T_TMP/r.json")"
	fi
else
	bad "--tc-json: exit $?: $(cat "$T_TMP/err")"
fi
# whole or nothing: a failing run leaves no file
rm -f "$T_TMP/x.json"
$TCSIM run --tc "$T_TMP/r.tc" --tc-json "$T_TMP/x.json" "$T_TMP/missing.pcap" >/dev/null 2>&1
if [ ! -e "$T_TMP/x.json" ]; then ok; else bad "--tc-json: a failed run left $T_TMP/x.json"; fi
expect_err "--tc-json -" "^tcsim run: --tc-json needs a FILE" \
	$TCSIM run --tc "$T_TMP/r.tc" --tc-json - $CAP
echo 'tc -g qdisc show' >"$T_TMP/g.tc"
expect_err "tc -g" "g.tc:1: tcsim: tc option \"-g\" is not modelled" \
	$TCSIM run --tc "$T_TMP/g.tc" $CAP

finish
