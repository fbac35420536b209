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
	# one parameter byte (tests/fuzz/fuzz_capture.c): the defaults
	prefix='\000'
	each 65536 "$root"/scenarios/captures/*.pcap "$root"/tests/data/*/*.pcap
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
json)
	each "" "$root"/tests/golden/*.json "$root"/tests/data/*/*.json ;;
lua)
	each "" "$root"/scenarios/*.lua "$root"/tests/data/lua/*.lua ;;
*)
	for f in "$root"/tests/fuzz/regress/"$name"/*; do put "$f"; done ;;
esac
exit 0
