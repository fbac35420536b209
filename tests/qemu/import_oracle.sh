#!/bin/sh
# import_oracle.sh - records what a kernel with cls_flower and cls_basic
# (Debian's 6.1 under qemu: ../shared/tools/qemu-oracle/run.sh) dumps for
# filters `tcsim import` reads, so that tests/cli/import_recorded.sh can
# replay the import against real dumps on any machine (this VM's kernel has
# neither classifier). One guest boot: for each template below, a veth of
# its own gets the template's tc lines, then `tc filter show` of it (lines
# "SHOW NAME ...") and the qdisc and filter dumps as the kernel sent them
# (tests/qemu/nldump.c, built here with gcc -static and carried into the
# guest in the tc script: lines "NLDUMP NAME HEX"). The result is written to
# tests/data/qemu/import.rec with --record, else compared with it.
# Then, for the flower and basic templates, the messages `tcsim
# kernel-check` sends for the same filters (tests/tools/kcmsg --raw) are
# installed on another veth by `nldump send` (explicit handles, as
# kernel-check sends them), after the template's qdisc lines, and that
# device's `tc filter show` is recorded too (lines "KSHOW NAME ..."):
# tests/cli/import_recorded.sh checks that it equals the SHOW of tc's own.
#
# Usage: sh tests/qemu/import_oracle.sh [--record]
# Root, gcc with a static libc, and the oracle needed (exit 77 otherwise).
cd "$(dirname "$0")/../.." || exit 1
SHARED=${TCSIM_SHARED:-../shared}
ORACLE=${QEMU_ORACLE:-$SHARED/tools/qemu-oracle/run.sh}
REC=tests/data/qemu/import.rec
CASES="flower-show flower-ssh flower-order flower-range flower-ipv6 flower-vlan basic basic-import matchall fw"
KCCASES="flower-show flower-ssh flower-order flower-range flower-ipv6 flower-vlan basic basic-import"
KCMSG=${KCMSG:-build/tools/kcmsg}
[ -x "$KCMSG" ] || { echo "import_oracle: SKIP: $KCMSG not built (make)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "import_oracle: SKIP: not root"; exit 77; }
[ -x "$ORACLE" ] || [ -f "$ORACLE" ] || { echo "import_oracle: SKIP: no oracle at $ORACLE"; exit 77; }
W=$(mktemp -d) || exit 1
[ -n "$KEEP" ] || trap 'rm -rf "$W"' EXIT
gcc -static -O2 -s -o "$W/nldump" tests/qemu/nldump.c 2>"$W/gcc.err" ||
	{ echo "import_oracle: SKIP: gcc -static failed: $(head -2 "$W/gcc.err")"; exit 77; }
{
	echo 'base64 -d >/tmp/nldump <<"B64"'
	base64 "$W/nldump"
	echo 'B64'
	echo 'chmod +x /tmp/nldump'
	k=0
	for name in $CASES; do
		k=$((k + 1))
		tmpl=tests/data/qemu/$name.tc
		[ "$name" = basic ] && tmpl=tests/data/qemu/basic.tc
		echo "ip link add c$k type veth peer name c${k}p"
		echo "DEV=c$k"
		grep -v '^#' "$tmpl"
		echo "tc filter show dev c$k | sed 's/^/SHOW $name /'"
		echo "/tmp/nldump $name c$k 10000"
	done
	k=0
	for name in $KCCASES; do
		k=$((k + 1))
		tmpl=tests/data/qemu/$name.tc
		sed 's/\$DEV/eth0/g' "$tmpl" >"$W/kc.tc"
		"$KCMSG" --raw --tc "$W/kc.tc" >"$W/kc.msgs" || exit 1
		echo "ip link add e$k type veth peer name e${k}p"
		echo "DEV=e$k"
		grep -v '^#' "$tmpl" | grep -v ' filter add '
		echo "/tmp/nldump send e$k <<'KC'"
		cat "$W/kc.msgs"
		echo "KC"
		echo "tc filter show dev e$k | sed 's/^/KSHOW $name /'"
	done
} >"$W/guest.sh"
# one frame is enough: nothing is classified here
bash "$ORACLE" "$W/guest.sh" scenarios/captures/icmp_5_pings.pcap --count 1 >"$W/stats" 2>"$W/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "import_oracle: FAIL: the oracle exited $rc"; tail -20 "$W/err"; exit 1
fi
sed -n -E 's/^qemu-oracle: tc script: ((SHOW|NLDUMP|KSHOW|NLSENT) .*)/\1/p' "$W/err" >"$W/rec"
for name in $CASES; do
	grep -q "^NLDUMP $name " "$W/rec" || { echo "import_oracle: FAIL: nothing dumped for $name"; exit 1; }
done
if [ "${1:-}" = --record ]; then
	cp "$W/rec" "$REC"
	echo "import_oracle: recorded $REC ($(grep -c '^NLDUMP' "$REC") messages, $(grep -c '^SHOW' "$REC") show lines)"
elif cmp -s "$W/rec" "$REC"; then
	echo "import_oracle: the kernel dumps what $REC holds"
else
	echo "import_oracle: FAIL: the kernel's dumps differ from $REC"; diff "$REC" "$W/rec" | head -20; exit 1
fi
