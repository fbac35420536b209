#!/bin/sh
# build_cli.sh - the build as a fresh machine and a packager see it:
#  1. make -j4 in an empty build tree checks the dependencies before it
#     compiles anything (every object is order-only after the check), and
#     `make` needs no test tool;
#  2. make install DESTDIR=D PREFIX=/usr lays out the binary, docs and
#     scenarios, and the installed binary runs an installed scenario from
#     another folder; make uninstall takes all of it away.
. tests/support/cli.sh
: "${BUILD:=build}"
root=$PWD

# 1. order: the stamp of the dependency check comes before the first compiler line
plan=$(make -n -j4 BUILD="$T_TMP/fresh" all 2>&1)
stamp=$(echo "$plan" | grep -n 'touch .*\.deps-build' | head -1 | cut -d: -f1)
first_cc=$(echo "$plan" | grep -n ' -c -o ' | head -1 | cut -d: -f1)
if [ -n "$stamp" ] && [ -n "$first_cc" ] && [ "$stamp" -lt "$first_cc" ]; then ok; else
	bad "make -j4: the dependency check (line ${stamp:-none}) does not come before the first compile (line ${first_cc:-none})"
fi
if echo "$plan" | grep -q '\.deps-test'; then bad "make (all) asks for the test tools"; else ok; fi
plan=$(make -n -j4 BUILD="$T_TMP/fresh" check 2>&1)
tstamp=$(echo "$plan" | grep -n 'touch .*\.deps-test' | head -1 | cut -d: -f1)
unit_cc=$(echo "$plan" | grep -n ' -c -o .*tests/unit/' | head -1 | cut -d: -f1)
if [ -n "$tstamp" ] && [ -n "$unit_cc" ] && [ "$tstamp" -lt "$unit_cc" ]; then ok; else
	bad "make -j4 check: the test-tool check (line ${tstamp:-none}) does not precede the unit tests' compile (line ${unit_cc:-none})"
fi

# 2. install, run from elsewhere, uninstall
D=$T_TMP/dest
if make -s install DESTDIR="$D" PREFIX=/usr BUILD="$BUILD" >"$T_TMP/inst.log" 2>&1; then ok; else
	bad "make install failed: $(tail -3 "$T_TMP/inst.log")"
fi
for f in usr/bin/tcsim usr/share/doc/tcsim/README.md usr/share/doc/tcsim/lua-api.md \
	usr/share/doc/tcsim/trace.md usr/share/man/man1/tcsim.1 usr/share/bash-completion/completions/tcsim usr/share/doc/tcsim/LICENSE usr/share/tcsim/scenarios/ssh_http.lua \
	usr/share/tcsim/scenarios/ssh_http.tc usr/share/tcsim/scenarios/filters/ssh.ops \
	usr/share/tcsim/scenarios/captures/ssh_interactive.pcap; do
	[ -f "$D/$f" ] && ok || bad "make install: $f missing"
done
[ -x "$D/usr/bin/tcsim" ] && ok || bad "make install: usr/bin/tcsim not executable"
out=$(cd "$T_TMP" && "$D/usr/bin/tcsim" "$D/usr/share/tcsim/scenarios/ssh_http.lua" 2>&1) && ok ||
	bad "the installed tcsim cannot run the installed ssh_http.lua from elsewhere: $(echo "$out" | tail -2)"
echo "$out" | grep -q '^expectations: 9 passed, 0 failed$' && ok || bad "installed ssh_http.lua: $(echo "$out" | tail -1)"
make -s uninstall DESTDIR="$D" PREFIX=/usr BUILD="$BUILD" >/dev/null 2>&1
left=$(find "$D" -type f | sed "s|^$D/||")
[ -z "$left" ] && ok || bad "make uninstall left: $left"
cd "$root" || exit 1
finish
