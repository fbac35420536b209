#!/bin/sh
# completion_cli.sh - the bash completion (contrib/bash-completion/tcsim)
# offers the commands, each command's options as the binary's --help lists
# them, and the words of the options that take words.
. tests/support/cli.sh
command -v bash >/dev/null 2>&1 || { echo "completion_cli: no bash here; skipped"; exit 77; }
mkdir -p "$T_TMP/bin" && ln -s "$(cd "$(dirname "$TCSIM")" && pwd)/$(basename "$TCSIM")" "$T_TMP/bin/tcsim"
comp() { # words...: what completing the last word offers
	comp_file=$(pwd)/contrib/bash-completion/tcsim
	# in an empty folder: the first word also completes file names
	(cd "$T_TMP/bin" && PATH=$T_TMP/bin:$PATH bash -c '. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tcsim
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$comp_file" tcsim "$@")
}
expect_out "commands" "run " comp r
expect_out "bpf subcommands" "asm check disasm run " comp bpf ""
expect_out "run's sfq options" "--sfq-allot --sfq-hash " comp run --sfq
expect_out "an option's words" "random tuple " comp run --sfq-hash ""
expect_out "kernel versions" "3.13 current " comp lint --tc x.tc --kernel ""
expect_out "check's options" "--expect " comp check scenarios/ssh_http.lua --exp
# every long option of run's --help is offered after run -
want=$("$TCSIM" run --help | grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ')
expect_out "all of run's options" "$want" comp run --
finish
