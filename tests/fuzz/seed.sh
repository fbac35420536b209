#!/bin/sh
# seed.sh NAME DIR [--repo-only]: fills DIR with the seed corpus of fuzz
# target NAME: the repository's own files of that kind and, unless
# --repo-only or absent, the captures of ../shared/pcaps. Large captures
# are cut to their first 64 KiB: the fuzzer mutates records, not volume.
name=$1 dir=$2 only=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared/pcaps
[ -n "$name" ] && [ -n "$dir" ] || { echo "usage: seed.sh NAME DIR [--repo-only]" >&2; exit 2; }
mkdir -p "$dir" || exit 1

put() { # file [bytes [prefix]]: the prefix, octal escapes, is the
	# target's parameter bytes before the file
	[ -f "$1" ] || return 0
	out="$dir/$(echo "$1" | sed "s|^$root/../shared/|shared_|; s|^$root/||; s|[/ ]|_|g")$4"
	{ [ -z "$3" ] || printf "$3"; if [ -n "$2" ]; then head -c "$2" "$1"; else cat "$1"; fi; } > "$out"
}
each() { # bytes, files...
	b=$1; shift
	for f in "$@"; do put "$f" "$b" "$prefix"; done
}
prefix=""

case $name in
capture)
	# two parameter bytes (tests/fuzz/fuzz_capture.c): the defaults
	prefix='\000\000'
	each 65536 "$root"/scenarios/captures/*.pcap "$root"/tests/data/*/*.pcap
	# the same traced, and told by explain (packet 1)
	for f in "$root"/scenarios/captures/*.pcap; do
		put "$f" 65536 '\000\001' .traced
		put "$f" 65536 '\000\003' .explained
	done
	[ "$only" = --repo-only ] || [ ! -d "$shared" ] || each 65536 "$shared"/*.pcap "$shared"/*.pcapng ;;
pcapng)
	[ "$only" = --repo-only ] || [ ! -d "$shared" ] || each 65536 "$shared"/*.pcapng
	each 65536 "$root"/tests/data/*/*.pcapng ;;
bytecode)
	each "" "$root"/scenarios/filters/*.bpf "$root"/tests/data/*/*.bpf ;;
asm)
	each "" "$root"/scenarios/filters/*.ops "$root"/tests/data/*/*.ops ;;
tc)
	each "" "$root"/scenarios/*.tc "$root"/tests/data/*/*.tc ;;
expr)
	# expressions as policies and --trace-filter write them
	i=0
	for e in "tcp port 22" "icmp" "udp and dst port 53" "ip6 and tcp[tcpflags] & tcp-syn != 0" \
		"vlan 10 and ip" "ether proto 0x88cc" "net 10.0.0.0/8 or host 192.168.1.1" \
		"ip[1] & 0xfc == 0x10" "len > 1000" "not arp and not (tcp port 80 or 443)" \
		"portrange 6000-6063" "ip proto 47" "pppoes and ip" "mpls 5 and ip" "ether[0] & 1 = 1"; do
		i=$((i + 1)); printf '%s' "$e" > "$dir/expr$i"
	done ;;
json)
	each "" "$root"/tests/golden/*.json "$root"/tests/data/*/*.json ;;
lua)
	each "" "$root"/scenarios/*.lua "$root"/tests/data/lua/*.lua ;;
nlimport)
	# one file per dump recorded in tests/data/qemu/import.rec or crafted in
	# tests/fuzz/nlimport.rec (the lines "NLDUMP TAG HEX",
	# tests/tools/nlimport.c): the options byte, then the tag's messages
	# one after another
	for rec in "$root"/tests/data/qemu/import.rec "$root"/tests/fuzz/nlimport.rec; do
	for tag in $(sed -n 's/^NLDUMP \([^ ]*\) .*/\1/p' "$rec" | sort -u); do
		out=$dir/${rec##*/}_$tag
		printf '\000' > "$out"
		awk -v want="$tag" '$1 == "NLDUMP" && $2 == want {
			s = ""
			for (i = 1; i < length($3); i += 2) {
				v = (index("0123456789abcdef", substr($3, i, 1)) - 1) * 16 + index("0123456789abcdef", substr($3, i + 1, 1)) - 1
				s = s sprintf("\\%03o", v)
			}
			print s
		}' "$rec" | while read -r line; do printf "$line" >> "$out"; done
		# the same with --filters-only
		{ printf '\001'; tail -c +2 "$out"; } > "$out.filters-only"
	done
	done
	for f in "$root"/tests/fuzz/regress/nlimport/*; do put "$f"; done ;;
*)
	for f in "$root"/tests/fuzz/regress/"$name"/*; do put "$f"; done ;;
esac
exit 0
