#!/bin/sh
# htb_cli.sh - htb at the command line, exact output:
#  1. tc qdisc/class/filter show of htb trees, with -s and -d (the text
#     tests/kernel/kernel_htb_show.sh compares with the running kernel);
#  2. a shaped run's whole report (goldens beside the tc files);
#  3. the kernel's quantum warnings on stderr, naming the tc line;
#  4. refusals: one line naming the file, line and rule, nothing on stdout.
# The files are tests/data/htb/NAME.tc and NAME.txt (NAME.json). HTB_CLI_UPDATE=1
# rewrites the goldens instead of comparing: read every number first.
. tests/support/cli.sh
D=tests/data/htb
PINGS=scenarios/captures/icmp_5_pings.pcap
HYDRA=scenarios/captures/ssh_hydra.pcap

# golden NAME CAPTURE [OPTION...]: `tcsim run --tc $D/NAME.tc` prints $D/NAME.txt
golden() {
	g_name=$1 g_cap=$2; shift 2
	if [ -n "$HTB_CLI_UPDATE" ]; then
		$TCSIM run --tc "$D/$g_name.tc" "$@" "$g_cap" >"$D/$g_name.txt" 2>/dev/null &&
			echo "wrote $D/$g_name.txt: read it" || bad "$g_name: update failed"
		return
	fi
	expect_file "$g_name" "$D/$g_name.txt" $TCSIM run --tc "$D/$g_name.tc" "$@" "$g_cap"
}

# 1. the show commands (the run's one packet comes after them)
golden show_tree "$PINGS" --limit 1
golden show_changes "$PINGS" --limit 1
golden show_rates "$PINGS" --limit 1

# 2. shaping ssh_hydra at ten times its pace: 1:10 (ssh) borrows up to the
# parent's 1 Mbit/s; its pfifo of 100 overflows
golden shaped "$HYDRA" --speed 10
expect_file "shaped json" "$D/shaped.json" $TCSIM run --tc "$D/shaped.tc" --speed 10 --json - "$HYDRA"
# the books: arrived = sent + dropped; the qdisc's drops and overlimits are
# its classes' (htb counts a drop where its leaf refused the packet)
sums=$(awk '
	/^ arrived / { a = $2; s = $4; d = $6; q = $8; r = $10 }
	/^qdisc htb/ { h = 1; next }
	h && /^ Sent / { sub(",", "", $7); hd = $7; ho = $9; h = 0 }
	/^class htb/ { c = 1; next }
	c && /^ Sent / { sub(",", "", $7); cd += $7; co += $9; c = 0 }
	END {
		if (a != s + d + q + r) print "arrived " a " != " s " + " d " + " q " + " r
		if (hd != cd) print "qdisc drops " hd " != class drops " cd
		if (ho != co) print "qdisc overlimits " ho " != class overlimits " co
	}' "$D/shaped.txt")
if [ -n "$sums" ]; then bad "shaped sums: $sums"; else ok; fi

# 3. warnings: the run goes on; stderr has the kernel's words and the line
printf '%s\n' "tc qdisc add dev eth0 root handle 1: htb" \
	"tc class add dev eth0 parent 1: classid 1:1 htb rate 100mbit" \
	"tc class add dev eth0 parent 1: classid 1:2 htb rate 10kbit" \
	"tc class add dev eth0 parent 1: classid 1:3 htb rate 10kbit quantum 1500" >"$T_TMP/warn.tc"
$TCSIM run --tc "$T_TMP/warn.tc" --limit 1 "$PINGS" >/dev/null 2>"$T_TMP/warn.err"
want="tcsim: $T_TMP/warn.tc:2: Warning: sch_htb: quantum of class 10001 is big. Consider r2q change.
tcsim: $T_TMP/warn.tc:3: Warning: sch_htb: quantum of class 10002 is small. Consider r2q change."
if [ "$(cat "$T_TMP/warn.err")" = "$want" ]; then ok; else
	bad "warnings: got '$(cat "$T_TMP/warn.err")'"; fi

# 4. refusals: NAME, the failing line (after a tree of 1: 1:1 1:10 1:20 and
# a filter on 1: naming 1:10), the pattern of the one line on stderr
TREE='tc qdisc add dev eth0 root handle 1: htb default 20
tc class add dev eth0 parent 1: classid 1:1 htb rate 1mbit
tc class add dev eth0 parent 1:1 classid 1:10 htb rate 500kbit
tc class add dev eth0 parent 1:1 classid 1:20 htb rate 500kbit
tc filter add dev eth0 parent 1: protocol all pref 1 bpf bytecode "1,6 0 0 4294967295" flowid 1:10'
refuse() {
	r_name=$1 r_line=$2 r_pat=$3
	printf '%s\n%s\n' "$TREE" "$r_line" >"$T_TMP/$r_name.tc"
	expect_err "$r_name" "^tcsim: $T_TMP/$r_name.tc:6: $r_pat" $TCSIM run --tc "$T_TMP/$r_name.tc" "$PINGS"
}
refuse no_rate "tc class add dev eth0 parent 1:1 classid 1:30 htb ceil 1mbit" '"rate" is required\.$'
refuse zero_rate "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 0" '"rate" is required\.$'
refuse what "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit frob 2" 'What is "frob"\? Usage: \.\.\. class add \.\.\. htb rate R1 '
refuse double_rate "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit rate 2mbit" 'Double "rate" spec$'
refuse bad_prio "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit prio x" 'Illegal "prio" '
refuse bad_burst "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit burst 1k/3" 'Illegal "burst" '
refuse percent "tc class add dev eth0 parent 1:1 classid 1:30 htb rate 10%" 'tcsim: "rate 10%": a rate in percent of the device.s speed is not modelled$'
refuse incomplete "tc class add dev eth0 parent 1:1 classid 1:30 htb rate" 'Command line is not complete\. Try option "help"$'
refuse exists "tc class add dev eth0 parent 1:1 classid 1:20 htb rate 1mbit" 'RTNETLINK answers: File exists \(The class exists: 1:20\)$'
refuse change_none "tc class change dev eth0 classid 1:30 htb rate 1mbit" 'RTNETLINK answers: No such file or directory \(No such class: htb 1: has no class 1:30\)$'
refuse del_none "tc class del dev eth0 classid 1:30" 'RTNETLINK answers: No such file or directory '
refuse other_major "tc class add dev eth0 parent 1: classid 2:3 htb rate 1mbit" 'RTNETLINK answers: Invalid argument \(The classid and the parent name two qdiscs: 2:3 and 1:\)$'
refuse no_qdisc "tc class add dev eth0 classid 2:3 htb rate 1mbit" 'RTNETLINK answers: No such file or directory \(No qdisc with the class.s major: 2:\)$'
refuse no_options "tc class add dev eth0 parent 1:1 classid 1:30" 'RTNETLINK answers: Invalid argument \(No options for the class: 1:30 needs htb.s words\)$'
refuse in_use_children "tc class del dev eth0 classid 1:1" 'RTNETLINK answers: Device or resource busy \(HTB class in use: 1:1 has children\)$'
refuse in_use_filter "tc class del dev eth0 classid 1:10" 'RTNETLINK answers: Device or resource busy \(HTB class in use: 1:10 has a filter whose flowid names it\)$'
refuse graft_inner "tc qdisc add dev eth0 parent 1:1 handle 5: pfifo" 'RTNETLINK answers: Invalid argument \(htb class 1:1 is not a leaf: qdiscs go below leaves\)$'
refuse del_inner "tc qdisc del dev eth0 parent 1:1" 'RTNETLINK answers: No such file or directory \(Cannot find qdisc with specified classid: 1:1 is an inner class\)$'
refuse graft_none "tc qdisc add dev eth0 parent 1:77 handle 5: pfifo" 'RTNETLINK answers: No such file or directory \(Specified class not found: 1:77\)$'
refuse filter_none "tc filter add dev eth0 parent 1:77 protocol all pref 2 bpf bytecode \"1,6 0 0 0\"" "RTNETLINK answers: No such file or directory \\(Specified class doesn't exist: 1:77\\)\$"
refuse qdisc_change "tc qdisc change dev eth0 root handle 1: htb default 10" 'RTNETLINK answers: Invalid argument \(Change operation not supported by specified qdisc: htb\)$'
refuse qdisc_replace "tc qdisc replace dev eth0 root handle 1: htb" 'RTNETLINK answers: Invalid argument \(Change operation not supported by specified qdisc: htb\)$'
refuse r2q "tc qdisc add dev eth0 parent 1:20 handle 5: htb r2q x" 'Illegal "r2q" Usage: \.\.\. qdisc add \.\.\. htb '
refuse offload "tc qdisc add dev eth0 parent 1:20 handle 5: htb offload" 'tcsim: htb "offload" is not modelled \(no hardware\)$'
refuse classless "tc class add dev eth0 parent 1:1 classid 1:30 pfifo limit 5" 'Error: Qdisc "pfifo" is classless\.$'
refuse handle_word "tc class add dev eth0 parent 1:1 handle 1:30 htb rate 1mbit" 'Error: try "classid" instead of "handle"$'
refuse fixed "tc class add dev eth0 parent 1:1 classid 1:30 prio" 'tcsim: "tc class add" is not modelled \(prio and sfq classes have no parameters\)$'
# eight levels at most: 1:1 (level 7) down to a leaf under level 1
DEEP="tc class add dev eth0 parent 1:20 classid 1:21 htb rate 1mbit"
for i in 2 3 4 5 6; do DEEP="$DEEP
tc class add dev eth0 parent 1:2$((i - 1)) classid 1:2$i htb rate 1mbit"; done
printf '%s\n%s\n%s\n' "$TREE" "$DEEP" "tc class add dev eth0 parent 1:26 classid 1:27 htb rate 1mbit" >"$T_TMP/deep.tc"
expect_err "too deep" "^tcsim: $T_TMP/deep.tc:12: RTNETLINK answers: Invalid argument \(sch_htb: tree is too deep: 1:27 would be a level below the 8 there are\)$" \
	$TCSIM run --tc "$T_TMP/deep.tc" "$PINGS"
finish
