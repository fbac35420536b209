#!/bin/sh
# man_cli.sh - docs/tcsim.1 renders without a warning, and names exactly
# the long options the command line's parsers accept: every option in the
# getopt tables and strcmp chains of the sources is in the page, and every
# option the page names is one of them (--help aside); and the top level:
# --version, help CMD, an unknown command.
. tests/support/cli.sh
MAN=docs/tcsim.1

if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww "$MAN" >/dev/null 2>"$T_TMP/groff.err"
	if [ -s "$T_TMP/groff.err" ]; then bad "groff -man -ww: $(head -3 "$T_TMP/groff.err")"; else ok; fi
else
	echo "man_cli: groff is not installed (groff-base); the rendering check is skipped"
fi

{
	grep -ho '{"[a-z][a-z-]*", *\(no\|required\|optional\)_argument' base/*.c classifier/*.c qdisc/*.c sim/*.c tc/*.c report/*.c kernel/*.c lua/*.c cmd/*.c | sed 's/{"\([^"]*\)".*/--\1/'
	grep -ho 'strcmp([^,]*, "--[a-z][a-z-]*")' base/*.c classifier/*.c qdisc/*.c sim/*.c tc/*.c report/*.c kernel/*.c lua/*.c cmd/*.c | grep -o -- '--[a-z][a-z-]*'
} | grep -v '^--help$' | sort -u >"$T_TMP/parsed"
sed 's/\\-/-/g' "$MAN" | grep -o -- '--[a-z][a-z-]*' | grep -v '^--help$' | sort -u >"$T_TMP/man"
[ -s "$T_TMP/parsed" ] && ok || bad "found no options in the sources: the extraction is broken"
missing=$(comm -23 "$T_TMP/parsed" "$T_TMP/man" | tr '\n' ' ')
extra=$(comm -13 "$T_TMP/parsed" "$T_TMP/man" | tr '\n' ' ')
[ -z "$missing" ] && ok || bad "options the parsers take that $MAN does not document: $missing"
[ -z "$extra" ] && ok || bad "options $MAN names that no parser takes: $extra"

# the top level: --version, help CMD = CMD --help, an unknown command
v=$("$TCSIM" --version) && echo "$v" | grep -Eq '^tcsim [0-9]+\.[0-9]+\.[0-9]+' && ok || bad "--version: $v"
expect_out "help run" "$("$TCSIM" run --help)" "$TCSIM" help run
expect_out "help check" "$("$TCSIM" check --help)" "$TCSIM" help check
expect_err "unknown command" "'frobnicate' is not a tcsim command.*tcsim help" "$TCSIM" frobnicate
"$TCSIM" frobnicate 2>/dev/null; [ $? -eq 2 ] && ok || bad "an unknown command does not exit 2"
expect_err "help of an unknown command" "'nosuch' is not a tcsim command" "$TCSIM" help nosuch
finish
