# tests/kernel/lib.sh - what the root-only kernel differential tests share.
# Sourced (POSIX sh), not run: tests/run_all.sh leaves it out. A script sets
# TMP= and its own names (NS, DEV, PEER) first, then sources this file.
#
#   skip MSG...          prints "SKIP: MSG" and exits 77 (run_all.sh's skip)
#   cleanup              deletes every namespace kt_netns made, and $TMP
#   kt_root [MSG]        skip (MSG, default "not root") unless root
#   kt_tools TOOL...     skip "TOOL not installed" for the first one missing
#   kt_tcsim             FAIL (exit 1) unless $TCSIM is executable; makes
#                        it an absolute path
#   kt_modprobe MOD...   loads the modules, quietly, where modprobe exists
#   kt_tmp [TEMPLATE]    cleanup on exit (INT and TERM exit 130 through it),
#                        TMP=$(mktemp -d [TEMPLATE]) or skip
#   kt_netns NS          a fresh namespace NS (an old one deleted first),
#                        IPv6 off before any link exists; 1 if it cannot be
#                        made. NS is remembered for cleanup before it exists.
#   kt_veth NS DEV PEER [OPT...]
#                        `ip link add DEV OPT... type veth peer name PEER`
#                        in NS; 2 on failure
#   kt_quiet NS OPTS DEV...
#                        ARP and multicast off on each DEV (nothing sent of
#                        the kernel's own), with OPTS ("mtu 65535 ...") too
#                        where the kernel takes them
#   kt_up NS DEV...      each DEV up, in order; 2 on failure
#   kt_setup NS DEV PEER OPTS
#                        all four for one namespace, skipping with the
#                        reason when a step fails
#   kt_skip_rc RC        skip with the reason kt_netns (1) or kt_veth (2)
#                        returned; nothing for 0
#   kt_eth0 NS           a fresh NS with a veth pair eth0 (one transmit
#                        queue: tc then says "refcnt 2" for the root, as for
#                        tcsim's devices) and eth0p, quiet and up; 1 or 2
#                        as kt_netns and kt_veth, 2 if it cannot be brought up
#   kt_tc_both FILE      FILE's tc lines run one by one by sh in $NS (their
#                        output in $TMP/kernel.out), and FILE run by tcsim
#                        with one packet of $CAP (its text before the
#                        report in $TMP/tcsim.out, stderr in $TMP/tcsim.err)
#   kt_htb_drain DEV     waits (5 s at most) until the htb root of DEV in $NS
#                        holds nothing; its `tc -s qdisc show` left in $TMP/kq
#   nsx CMD...           CMD inside $NS

KT_NETNS=

skip() {
	echo "SKIP: $*"
	exit 77
}

cleanup() {
	for kt_n in $KT_NETNS; do
		ip netns del "$kt_n" 2>/dev/null
	done
	[ -n "$TMP" ] && rm -rf "$TMP"
}

kt_root() {
	[ "$(id -u)" = 0 ] || skip "${1:-not root}"
}

kt_tools() {
	for kt_t in "$@"; do
		command -v "$kt_t" >/dev/null 2>&1 || skip "$kt_t not installed"
	done
}

kt_tcsim() {
	[ -x "$TCSIM" ] || { echo "FAIL: tcsim binary '$TCSIM' not found (set TCSIM)"; exit 1; }
	case $TCSIM in /*) ;; *) TCSIM=$(pwd)/$TCSIM ;; esac
}

kt_modprobe() {
	command -v modprobe >/dev/null 2>&1 || return 0
	for kt_m in "$@"; do
		modprobe -q "$kt_m" 2>/dev/null
	done
	return 0
}

kt_tmp() {
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	TMP=$(mktemp -d ${1:+"$1"}) || skip "mktemp failed"
}

kt_netns() {
	case " $KT_NETNS " in *" $1 "*) ;; *) KT_NETNS="$KT_NETNS $1" ;; esac
	ip netns del "$1" 2>/dev/null
	ip netns add "$1" 2>/dev/null || return 1
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1
	ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
	return 0
}

kt_veth() {
	kt_ns=$1 kt_dev=$2 kt_peer=$3
	shift 3
	ip netns exec "$kt_ns" ip link add "$kt_dev" "$@" type veth peer name "$kt_peer" 2>/dev/null || return 2
}

kt_quiet() {
	kt_ns=$1 kt_opts=$2
	shift 2
	for kt_d in "$@"; do
		# shellcheck disable=SC2086 # OPTS are words for ip link
		ip netns exec "$kt_ns" ip link set "$kt_d" $kt_opts arp off multicast off 2>/dev/null ||
			{ [ -n "$kt_opts" ] && ip netns exec "$kt_ns" ip link set "$kt_d" arp off multicast off 2>/dev/null; }
	done
	return 0
}

kt_up() {
	kt_ns=$1
	shift
	for kt_d in "$@"; do
		ip netns exec "$kt_ns" ip link set "$kt_d" up 2>/dev/null || return 2
	done
}

kt_setup() {
	kt_netns "$1" || skip "cannot create a network namespace"
	kt_veth "$1" "$2" "$3" || skip "cannot create a veth pair"
	kt_quiet "$1" "$4" "$2" "$3"
	kt_up "$1" "$3" "$2" || skip "cannot bring the veth pair up"
}

kt_skip_rc() {
	case $1 in
	1) skip "cannot create a network namespace" ;;
	2) skip "cannot create a veth pair" ;;
	esac
}

kt_eth0() {
	kt_netns "$1" || return 1
	kt_veth "$1" eth0 eth0p numtxqueues 1 || return 2
	kt_quiet "$1" "" eth0p eth0
	kt_up "$1" eth0p eth0
}

kt_tc_both() {
	: >"$TMP/kernel.out"
	sed -e 's/#.*//' "$1" | while IFS= read -r kt_line; do
		case $kt_line in *[![:space:]]*) ;; *) continue ;; esac
		nsx sh -c "$kt_line" >>"$TMP/kernel.out" 2>/dev/null
	done
	"$TCSIM" run --tc "$1" --limit 1 "$CAP" 2>"$TMP/tcsim.err" |
		sed '/^tcsim: [0-9]* device/,$d' >"$TMP/tcsim.out"
}

nsx() { ip netns exec "$NS" "$@"; }

kt_htb_drain() {
	kt_tries=0
	while :; do
		nsx tc -s qdisc show dev "$1" >"$TMP/kq"
		awk '/^qdisc htb/ {h = 1; next} /^qdisc/ {h = 0} h && /backlog/ {print $2, $3}' "$TMP/kq" |
			grep -q '^0b 0p$' && break
		kt_tries=$((kt_tries + 1))
		[ "$kt_tries" -gt 50 ] && break
		sleep 0.1
	done
}
