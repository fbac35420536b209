# prio_lib.sh - helpers shared by tests/qemu/prio_oracle.sh (the live kernel
# under qemu) and tests/cli/prio_recorded.sh (its recorded numbers): the
# case list, captures, running tcsim the way the oracle runs the kernel, and
# reading both sides' per-class counts. Sourced from the repository root;
# needs SHARED (../shared) and TCSIM set.

PQ_DATA=tests/data/qemu
PQ_DEV=eth0

# pq_cases [NAME...]: the case lines of cases.txt (all, or the named ones),
# comments and blank lines removed: "name template capture priority [flags]".
pq_cases() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PQ_DATA/cases.txt" |
		awk -v names=" $* " 'names == "  " || index(names, " " $1 " ")'
}

# pq_has_flag FLAGS FLAG: FLAGS (comma- or space-separated) includes FLAG.
pq_has_flag() {
	case ",$(echo "$1" | tr ' ' ','),"  in *",$2,"*) return 0 ;; esac
	return 1
}

# pq_capture SPEC DIR: prints the path of the case's capture. A+B+... is
# made in DIR from A's header and every file's records, in that order
# (all must share the byte order/timestamp magic and the link type).
# Returns 1, printing the path of a file that is absent (or unlike the first).
pq_capture() {
	case $1 in
	*+*) ;;
	*)
		if [ -r "$SHARED/pcaps/$1" ]; then echo "$SHARED/pcaps/$1"; return 0; fi
		echo "$SHARED/pcaps/$1"
		return 1
		;;
	esac
	head=""
	for f in $(echo "$1" | tr '+' ' '); do
		p=$SHARED/pcaps/$f
		[ -r "$p" ] || { echo "$p"; return 1; }
		key="$(od -An -tx1 -N4 "$p") $(od -An -tx1 -j20 -N4 "$p")"
		[ -z "$head" ] && head=$key
		if [ "$key" != "$head" ]; then
			echo "$p (magic or link type unlike the first file's)"
			return 1
		fi
	done
	out=$2/$(echo "$1" | tr '+' '_')
	if [ ! -s "$out" ]; then
		first=1
		for f in $(echo "$1" | tr '+' ' '); do
			if [ $first = 1 ]; then cat "$SHARED/pcaps/$f"; else tail -c +25 "$SHARED/pcaps/$f"; fi
			first=0
		done >"$out.tmp" && mv "$out.tmp" "$out"
	fi
	echo "$out"
}

# pq_tcsim_script TEMPLATE OUT: the template's lines for tcsim ($DEV -> eth0).
pq_tcsim_script() {
	sed 's/\$DEV/'"$PQ_DEV"'/g' "$PQ_DATA/$1" >"$2"
}

# pq_run CMD...: CMD under a time limit of PQ_TIMEOUT seconds (default 60)
# when coreutils' timeout is there, so a simulation that never ends fails
# the case (exit 124, with a line on stderr) instead of the whole test run.
pq_run() {
	if command -v timeout >/dev/null 2>&1; then
		timeout "${PQ_TIMEOUT:-60}" "$@"
		r=$?
		[ $r -eq 124 ] && echo "did not finish within ${PQ_TIMEOUT:-60} s (killed)" >&2
		return $r
	fi
	"$@"
}

# pq_tcsim TEMPLATE CAPTURE PRIORITY DIR [FLAGS]: runs tcsim as the oracle runs
# the kernel: a line rate nothing queues at (veth transmits at once), VLAN
# tags kept in the frame as the injector sends them, a fixed priority (or
# forward for "tos"), paced so that the capture's own timestamps (years apart
# in joined captures) do not matter: FLAGS' pps=N is the oracle's --pps N
# (the injector's fixed pace, which shaping cases need mirrored; else 10000,
# and the unpaced oracle does not queue), mtu=N its --mtu N (the veth's MTU:
# sfq's default quantum, and frames over MTU+14 are refused there),
# mark=M its --mark M (skb->mark of every frame: SO_MARK there, --mark here).
# Leaves DIR/tcsim.json, .out (the text report), .err; returns tcsim's exit
# status.
pq_tcsim() {
	pq_tcsim_script "$1" "$4/tcsim.tc"
	p=$3
	[ "$p" = tos ] && p=forward
	pps=$(pq_flag_value "$5" pps)
	mtu=$(pq_flag_value "$5" mtu)
	mark=$(pq_flag_value "$5" mark)
	rm -f "$4/tcsim.json"
	pq_run "$TCSIM" run --tc "$4/tcsim.tc" --rate 100gbit --mtu "${mtu:-1500}" --vlan inline \
		--pps "${pps:-10000}" --priority "$p" --mark "${mark:-0}" \
		--json "$4/tcsim.json" "$2" >"$4/tcsim.out" 2>"$4/tcsim.err" </dev/null
}

# pq_tcsim_filters TEMPLATE CAPTURE DIR: tcsim's `tc filter show` after the
# template's commands (the template plus one show line, one packet; with
# --json - the text report, whose "filter hits:" line would mix in, is not
# printed), to DIR/tcsim.filters.
pq_tcsim_filters() {
	pq_tcsim_script "$1" "$3/tcsim_f.tc"
	echo "tc filter show dev $PQ_DEV" >>"$3/tcsim_f.tc"
	pq_run "$TCSIM" run --tc "$3/tcsim_f.tc" --rate 100gbit --limit 1 --json - "$2" \
		>"$3/tcsim_f.out" 2>"$3/tcsim_f.err" </dev/null || return 1
	# tcsim prints the tc file's show output on stderr under --json -
	# with the lines a kind continues an entry on (matchall's "  not_in_hw",
	# and the blank line tc prints after a basic filter's tree)
	awk '/^filter / { f = 1; print; next } f && (/^  / || /^$/) { print; next } { f = 0 }' \
		"$3/tcsim_f.err" >"$3/tcsim.filters"
}

# pq_section WORD FILE: the `tc -s WORD show` part of the oracle's output
# (WORD = qdisc, class or filter): each header line and the lines under it.
pq_section() {
	awk -v w="$1" '/^(qdisc|class|filter) / { s = $1 } s == w' "$2"
}

# pq_kclasses FILE: "classid packets bytes" for each `class prio` of a
# `tc -s class show` text, in the kernel's order.
pq_kclasses() {
	awk '$1 == "class" && $2 == "prio" { id = $3; next }
	     id != "" && $1 == "Sent" { print id, $4, $2; id = "" }' "$1"
}

# pq_tclasses FILE: the same from tcsim's JSON report (one class a line).
pq_tclasses() {
	sed -n 's/.*{"classid": "\([^"]*\)", "packets": \([0-9]*\), "bytes": \([0-9]*\),.*/\1 \2 \3/p' "$1"
}

# pq_filters FILE: "PREF->FLOWID, ..." for the filter entries (the lines with a
# handle) of a `tc filter show` text, in dump order ("-" when no flowid).
pq_filters() {
	awk '/^filter / && / handle / {
		pref = "-"; flow = "-"
		for (i = 1; i < NF; i++) {
			if ($i == "pref") pref = $(i + 1)
			if ($i == "flowid" || $i == "classid") flow = $(i + 1)
		}
		out = out (out == "" ? "" : ", ") pref "->" flow
	}
	END { print out }' "$1"
}

# pq_compare KERNEL TCSIM: compares "classid packets bytes" lists of the
# prio 1: classes. A class missing on one side counts as 0/0. Prints
# "1:1 770/164926 1:2 ..." (the kernel's numbers) and returns 0 when they
# agree; else prints each difference and returns 1.
pq_compare() {
	awk 'function f(v) { split(v, a, " "); return a[1] " pkt/" a[2] " B" }
	     FNR == NR { if ($1 ~ /^1:/) { k[$1] = $2 " " $3; ids[++n] = $1 }; next }
	     $1 ~ /^1:/ { t[$1] = $2 " " $3 }
	     END {
		for (i = 1; i <= n; i++) {
			id = ids[i]; tv = (id in t) ? t[id] : "0 0"
			if (tv != k[id]) bad = bad " " id ": kernel " f(k[id]) ", tcsim " f(tv) ";"
		}
		for (id in t) if (!(id in k) && t[id] != "0 0")
			bad = bad " " id ": kernel none, tcsim " f(t[id]) ";"
		if (n == 0) bad = " the kernel listed no prio class;"
		if (bad != "") { print substr(bad, 2); exit 1 }
		out = ""
		for (i = 1; i <= n; i++) { split(k[ids[i]], a, " "); out = out " " ids[i] " " a[1] "/" a[2] }
		print substr(out, 2)
	     }' "$1" "$2"
}

# pq_elapsed T0: seconds since T0 (date +%s.%N), one decimal.
pq_elapsed() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# ---- shaping cases (flag "shaping"): htb/tbf trees with prio/sfq below

# pq_flag_value FLAGS KEY: the N of a KEY=N flag (empty when absent).
pq_flag_value() {
	echo "$1" | tr ' ,' '\n\n' | sed -n "s/^$2=//p" | tail -1
}

# pq_kstats FILE: "qdisc|class KIND ID packets bytes drops" for every qdisc
# and class of a `tc -s qdisc show` + `tc -s class show` text (the kernel's
# record, or tcsim's text report, which prints the same lines), sorted so
# that the two sides' dump orders do not matter. htb's direct_packets_stat
# (on its header line) is an entry of its own, "qdisc htb ID/direct N 0 0".
# Overlimits, requeues, lended/borrowed and tokens are left out: they depend
# on timing.
pq_kstats() {
	awk '($1 == "qdisc" || $1 == "class") && NF >= 3 {
		key = $1 " " $2 " " $3; dps = ""
		for (i = 4; i < NF; i++) if ($i == "direct_packets_stat") dps = $(i + 1)
		next
	     }
	     key != "" && $1 == "Sent" {
		d = $7; sub(/,$/, "", d)
		print key, $4, $2, d
		if (dps != "") print key "/direct", dps, 0, 0
		key = ""
	     }' "$1" | sort
}

# pq_scompare KERNEL TCSIM [PCT [dup]]: compares two pq_kstats lists (with PCT, the
# drops within PCT % of the packets that reached each entry: see same(); with
# PCT and dup, netem's copies: see dup below). An entry on one
# side only is a difference too. Prints a one-line summary of the kernel's
# numbers (leaf classes and qdiscs that sent or dropped anything) and returns
# 0 when they agree; else prints each difference and returns 1.
pq_scompare() {
	awk -v tol="$3" -v dup="$4" 'function f(v) { split(v, a, " "); return a[1] "p/" a[2] "B/" a[3] "d" }
	     # aqm=PCT: codel decides by time, and the guest clock is not the
	     # model clock: a qdisc must see the same packets (sent + dropped),
	     # its drops may differ by PCT % of them; a class (whose drops are
	     # in its leaf qdisc) may send PCT % more or fewer; the bytes follow
	     function same(id, x, y,   a, b, m) {
		if (tol == "") return x == y
		split(x, a, " "); split(y, b, " ")
		m = (a[1] + a[3]) * tol / 100
		if (id ~ /^class /) return a[1] - b[1] <= m && b[1] - a[1] <= m
		if (a[1] + a[3] != b[1] + b[3]) return 0
		return a[3] - b[3] <= m && b[3] - a[3] <= m
	     }
	     FNR == NR { k[$1 " " $2 " " $3] = $4 " " $5 " " $6; ids[++n] = $1 " " $2 " " $3; next }
	     { t[$1 " " $2 " " $3] = $4 " " $5 " " $6 }
	     END {
		for (i = 1; i <= n; i++) {
			id = ids[i]
			if (!(id in t)) bad = bad " " id ": kernel " f(k[id]) ", tcsim none;"
			else if (dup != "") {
				# dup=PCT: the copies of a netem come from prandom there and
				# from --seed here. No drops; every entry the copies
				# pass (the root, the class, the netem) is off by the
				# same number of packets D, the others not at all, and
				# |D| is within PCT % of the packets of each such entry
				split(k[id], a, " "); split(t[id], b, " ")
				dp = b[1] - a[1]
				if (a[3] != b[3] || (dp != 0 && ((dseen && dp != D) || (dp < 0 ? -dp : dp) > a[1] * tol / 100)))
					bad = bad " " id ": kernel " f(k[id]) ", tcsim " f(t[id]) (dp != 0 && dseen && dp != D ? " (copies " dp ", elsewhere " D ")" : "") ";"
				if (dp != 0 && !dseen) { D = dp; dseen = 1 }
			}
			else if (!same(id, k[id], t[id])) bad = bad " " id ": kernel " f(k[id]) ", tcsim " f(t[id]) ";"
		}
		for (id in t) if (!(id in k)) bad = bad " " id ": kernel none, tcsim " f(t[id]) ";"
		if (n == 0) bad = " the kernel listed nothing;"
		if (bad != "") { print substr(bad, 2); exit 1 }
		out = ""
		for (i = 1; i <= n; i++) {
			split(ids[i], w, " "); split(k[ids[i]], a, " ")
			if (a[1] == 0 && a[3] == 0) continue
			out = out " " substr(w[1], 1, 1) ":" w[3] " " a[1] (a[3] ? "/" a[3] "d" : "")
		}
		print n " entries:" out
	     }' "$1" "$2"
}

# pq_kcounts FLAGS FILE, pq_tcounts FLAGS DIR, pq_ccompare FLAGS KERNEL TCSIM:
# a case's counts, by kind: the prio 1: classes (pq_kclasses of the record,
# pq_tclasses of tcsim's JSON, pq_compare), or for "shaping" cases every
# qdisc and class with drops (pq_kstats of the record and of tcsim's text
# report, pq_scompare).
pq_kcounts() {
	if pq_has_flag "$1" shaping; then pq_kstats "$2"; else pq_kclasses "$2"; fi
}
pq_tcounts() {
	if pq_has_flag "$1" shaping; then pq_kstats "$2/tcsim.out"; else pq_tclasses "$2/tcsim.json"; fi
}
pq_ccompare() {
	if [ -n "$(pq_flag_value "$1" dup)" ]; then pq_scompare "$2" "$3" "$(pq_flag_value "$1" dup)" dup; return; fi
	if pq_has_flag "$1" shaping; then pq_scompare "$2" "$3" "$(pq_flag_value "$1" aqm)"; else pq_compare "$2" "$3"; fi
}

# pq_expect FLAGS ORACLE_OUT: what a case records as NAME.expect from the
# oracle's output: the class dump, and for "shaping" cases the qdisc dump
# before it (the qdiscs' own sent/dropped counts).
pq_expect() {
	pq_has_flag "$1" shaping && pq_section qdisc "$2"
	pq_section class "$2"
}

# pq_filter_text FILE: a `tc filter show` text as both sides can give it:
# the kernel's is `tc -s filter show` after the replay, tcsim's is taken
# before any packet, so matchall's " (rule hit N)" is left out (the hits
# are the packets of its flowid's class, which the counts compare).
pq_filter_text() {
	sed 's/ (rule hit [0-9]*)$//' "$1"
}
