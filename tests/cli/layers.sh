#!/bin/sh
# layers.sh - the layering holds: a file includes headers of its own layer
# and the layers below it only, and no header includes itself round a
# circle. The table is the order of docs/HACKING.md and the Makefile's
# LAYERS; a new folder joins both.
. tests/support/cli.sh

# layer folders, lowest first: each may use those before it
LAYERS="base classifier qdisc sim tc report kernel lua cmd"

# check ROOT: prints one line per upward include, per circle of headers,
# and per quoted include that names no header of any layer; exits 1 if
# it printed anything.
check() {
	root=$1
	for l in $LAYERS; do
		[ -d "$root/$l" ] || continue
		for f in "$root/$l"/*.c "$root/$l"/*.h; do
			[ -f "$f" ] || continue
			sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
				while read -r h; do printf '%s %s %s\n' "$l" "${f#"$root"/}" "$h"; done
		done
	done >"$T_TMP/edges"
	for l in $LAYERS; do
		for h in "$root/$l"/*.h; do [ -f "$h" ] && printf '%s %s\n' "$(basename "$h")" "$l"; done
	done >"$T_TMP/headers"
	awk -v order="$LAYERS" '
		BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
		FNR == NR { if ($1 in where) { print "header " $1 " is in both " where[$1] "/ and " $2 "/"; bad = 1 }
			    where[$1] = $2; next }
		{
			layer = $1; file = $2; h = $3; base = h; sub(/.*\//, "", base)
			if (h ~ /\.c$/ || h ~ /_loop\.h$/) {   # a body included twice (bpf_run_loop.h): same folder
				next
			}
			if (!(base in where)) { print file ": includes \"" h "\", no header of any layer"; bad = 1; next }
			if (rank[where[base]] > rank[layer]) {
				print file " (" layer ") includes " where[base] "/" base " (" where[base] "): a lower layer may not use a higher one"
				bad = 1
			}
			if (file ~ /\.h$/) { f = file; sub(/.*\//, "", f); edge[f] = edge[f] " " base }
		}
		function visit(x,   i, k, e) {
			state[x] = 1; stack[++depth] = x
			k = split(edge[x], e, " ")
			for (i = 1; i <= k; i++) {
				if (state[e[i]] == 1) {
					path = e[i]
					for (j = depth; j >= 1 && stack[j] != e[i]; j--) path = stack[j] " -> " path
					print "circle of includes: " e[i] " -> " path; bad = 1
				} else if (!state[e[i]]) visit(e[i])
			}
			depth--; state[x] = 2
		}
		END {
			for (x in edge) if (!state[x]) visit(x)
			exit bad
		}' "$T_TMP/headers" "$T_TMP/edges"
}

# The Makefile builds the same folders in the same order.
mk=$(sed -n 's/^LAYERS *:= *//p' Makefile)
[ "$mk" = "$LAYERS" ] && ok || bad "Makefile LAYERS '$mk' is not the test's '$LAYERS'"

# The tree itself.
out=$(check .) && ok || { bad "the tree breaks its layering:"; printf '%s\n' "$out" | head -30; }

# calls BUILD: what the includes cannot show, the objects do. Every symbol
# an object of a layer uses must be defined in its own layer or a lower
# one (a function declared by hand, or called through a header-less
# extern, still shows here). Prints one line per upward call.
calls() {
	b=$1
	for l in $LAYERS; do
		for o in "$b/$l"/*.o; do
			# an object whose source is gone (a stale build) says nothing
			[ -f "$o" ] && { [ "$b" != "${BUILD:-build}" ] || [ -f "$l/$(basename "$o" .o).c" ]; } || continue
			nm --defined-only -g "$o" | awk -v l="$l" -v f="${o#"$b"/}" 'NF == 3 { print "D", $3, l, f }'
			nm -u "$o" | awk -v l="$l" -v f="${o#"$b"/}" '{ print "U", $NF, l, f }'
		done
	done | awk -v order="$LAYERS" '
		BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
		$1 == "D" { def[$2] = $3; deff[$2] = $4; next }
		{ use[++k] = $0 }
		END {
			for (i = 1; i <= k; i++) {
				split(use[i], u, " ")
				if ((u[2] in def) && rank[def[u[2]]] > rank[u[3]]) {
					print u[4] " (" u[3] ") calls " u[2] "() of " deff[u[2]] " (" def[u[2]] ")"
					bad = 1
				}
			}
			exit bad
		}'
}

if command -v nm >/dev/null 2>&1 && [ -d "${BUILD:-build}/sim" ]; then
	out=$(calls "${BUILD:-build}") && ok || { bad "a lower layer calls a higher one:"; printf '%s\n' "$out" | head -30; }
else
	echo "layers.sh: no objects in ${BUILD:-build} or no nm: the call check is skipped"
fi

# The check can fail: an upward include, a circle and a missing header in
# a made-up tree are each named.
fake=$T_TMP/fake
mkdir -p "$fake/base" "$fake/sim" "$fake/report"
printf '#include "trace.h"\n' >"$fake/sim/sim.c"
printf '#include "b.h"\n' >"$fake/base/a.h"
printf '#include "a.h"\n' >"$fake/base/b.h"
printf '#include "nowhere.h"\n' >"$fake/base/c.c"
: >"$fake/report/trace.h"
out=$(check "$fake") && bad "a broken made-up tree passed" || ok
expect_line() { # what, pattern
	printf '%s\n' "$out" | grep -q -- "$2" && ok || { bad "$1 not reported:"; printf '%s\n' "$out"; }
}
expect_line "the upward include" "sim/sim.c (sim) includes report/trace.h (report)"
expect_line "the circle" "circle of includes: "
expect_line "the missing header" 'base/c.c: includes "nowhere.h", no header of any layer'

# ... and so can the call check: base calling into sim.
if command -v nm >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1; then
	fb=$T_TMP/fake-build
	mkdir -p "$fb/base" "$fb/sim"
	printf 'void up(void);\nvoid low(void) { up(); }\n' >"$T_TMP/low.c"
	printf 'void up(void) {}\n' >"$T_TMP/up.c"
	"${CC:-cc}" -c -o "$fb/base/low.o" "$T_TMP/low.c" && "${CC:-cc}" -c -o "$fb/sim/up.o" "$T_TMP/up.c"
	out=$(calls "$fb") && bad "an upward call in a made-up build passed" || ok
	expect_line "the upward call" "base/low.o (base) calls up() of sim/up.o (sim)"
fi
finish
