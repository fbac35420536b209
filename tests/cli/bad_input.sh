#!/bin/sh
# bad_input.sh - every kind of input tcsim reads (capture, tc line,
# bytecode, assembly, tcpdump expression, JSON golden, Lua scenario,
# command-line option) against every class of badness (truncated,
# oversized, wrong magic, directory, FIFO, /dev/null, nonexistent,
# unreadable, numbers at 0/-1/2^32/2^64, empty words, NUL bytes, invalid
# UTF-8, CRLF), one row each.
#
# A row: kind | badness | exit | pattern | command. The command is
# `tcsim` without its name, eval'd (so $B, $CAP, $(mk ...) expand; mk
# NAME TEXT writes printf's TEXT to $B/NAME and prints the path). A row
# with a non-zero exit asserts: that exit status (run's: 2 for a bad
# option, 1 for bad input; bpf's and check's: 2 usage, 1 input), within
# 10 s (a FIFO must not hang the reader), exactly one line on stderr
# matching the grep -E pattern (the file, line or instruction, and the
# rule), nothing on stdout, no sanitizer report, and nothing left in $O:
# every `run` row also gets --json $O/out.json --pcap-out $O/pcap
# --plot $O/plot. A row with exit 0 documents input tcsim accepts on
# purpose (CRLF, numbers the kernel takes): no stderr at all.
# "unreadable" rows run as nobody (setpriv) when this runs as root, for
# whom chmod 000 reads anyway; without setpriv they skip, saying so.
# BAD_INPUT_VERBOSE=1 prints the message of every row that passes.
. tests/support/cli.sh
B=$T_TMP/bad # the bad files, readable by nobody for the unreadable rows
O=$T_TMP/outputs # where run rows are told to write; must stay empty
mkdir -p "$B" "$O"
chmod 755 "$T_TMP" "$B"
chmod 777 "$O"
CAP=$PWD/scenarios/captures/ssh_hydra.pcap
OK=$PWD/tests/data/run/pfifo.tc
OPS=$PWD/scenarios/filters/ssh.ops

mk() { printf "$2" >"$B/$1" && echo "$B/$1"; }

# --- the bad files the rows share
mkfifo "$B/fifo" "$B/fifo.lua"
mkdir "$B/dir" "$B/dir.lua"
for f in cap.pcap tc.tc prog.ops prog.bpf golden.json s.lua; do
	echo x >"$B/unreadable.$f" && chmod 000 "$B/unreadable.$f"
done
# captures: cut at every part of the format, and headers that lie
: >"$B/empty.pcap"
: >"$B/empty.bpf" # the bytecode-file of a tc row
head -c 10 "$CAP" >"$B/cut_filehdr.pcap"
head -c 32 "$CAP" >"$B/cut_rechdr.pcap"
head -c 1000 "$CAP" >"$B/cut_body.pcap"
{ printf 'XXXX'; tail -c +5 "$CAP"; } >"$B/magic.pcap"
# LE classic header: magic, 2.4, zone 0, sigfigs 0, SNAPLEN, Ethernet
pcap_hdr() { printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000'"$1"'\001\000\000\000'; }
# a record header: sec 1, usec 0, CAPLEN, LEN
rec_hdr() { printf '\001\000\000\000\000\000\000\000'"$1$2"; }
FRAME60='\000\000\000\000\000\002\000\000\000\000\000\001\010\000'
{ pcap_hdr '\377\377\000\000'; rec_hdr '\377\377\377\377' '\074\000\000\000'; printf "$FRAME60"; } >"$B/caplen_2p32.pcap"
{ pcap_hdr '\377\377\000\000'; rec_hdr '\000\000\001\000' '\000\000\001\000'; printf "$FRAME60"; } >"$B/caplen_64k_cut.pcap"
{ pcap_hdr '\377\377\377\377'; rec_hdr '\016\000\000\000' '\016\000\000\000'; printf "$FRAME60"; } >"$B/snaplen_2p32.pcap"
{ pcap_hdr '\000\000\000\000'; rec_hdr '\016\000\000\000' '\016\000\000\000'; printf "$FRAME60"; } >"$B/snaplen_0.pcap"
# goldens: a small scenario's own, then broken copies
cat >"$B/s.lua" <<EOF
local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "1mbit" })
eth0:tc[[qdisc add dev eth0 root pfifo]]
sim:replay("$CAP", { limit = 20 })
sim:run()
EOF
$TCSIM check "$B/s.lua" --write-golden "$B/g.json" --quiet >/dev/null 2>&1 || bad "no golden for the golden rows"
G=$B/g.json
: >"$B/empty.json"
head -c "$(($(grep -bo '"rate_bps"' "$G" | head -1 | cut -d: -f1) + 4))" "$G" >"$B/cut.json" # inside a string
printf '%0300d' 0 | tr 0 '[' >"$B/deep.json"
sed 's/"name": "eth0"/"name": "eth\x00"/' "$G" >"$B/nul.json"
sed 's/"name": "eth0"/"name": "eth\xff"/' "$G" >"$B/utf8.json"
sed 's/$/\r/' "$G" >"$B/crlf.json"
printf '\357\273\277' | cat - "$G" >"$B/bom.json"
# Lua scenarios (their run-time errors are scenario_cli.sh's)
printf 'local x = = 1\n' >"$B/syntax.lua"
printf 'local x = 1\0\nprint(x)\n' >"$B/nul.lua"

# --- the table
ROWS=$(cat <<'EOF'
# kind  | badness     | exit | pattern                                             | tcsim ...
capture | nonexistent | 1 | nope\.pcap: not a readable capture: No such file       | run --tc $OK $B/nope.pcap
capture | directory   | 1 | /dir: not a readable capture: .*directory               | run --tc $OK $B/dir
capture | FIFO        | 1 | /fifo: not a readable capture: a FIFO                   | run --tc $OK $B/fifo
capture | /dev/null   | 1 | /dev/null: not a readable capture: a character device   | run --tc $OK /dev/null
capture | unreadable  | 1 | unreadable\.cap\.pcap: not a readable capture: Permission denied | run --tc $OK $B/unreadable.cap.pcap
capture | empty       | 1 | empty\.pcap: not a readable capture: .*truncated        | run --tc $OK $B/empty.pcap
capture | truncated   | 1 | cut_filehdr\.pcap: not a readable capture: .*truncated  | run --tc $OK $B/cut_filehdr.pcap
capture | truncated   | 1 | cut_rechdr\.pcap: packet 1: .*truncated                 | run --tc $OK $B/cut_rechdr.pcap
capture | truncated   | 1 | cut_body\.pcap: packet [0-9]+: .*truncated              | run --tc $OK $B/cut_body.pcap
capture | truncated   | 1 | cut_body\.pcap: packet [0-9]+: .*truncated              | bpf run -a $OPS $B/cut_body.pcap
capture | wrong magic | 1 | magic\.pcap: not a readable capture: unknown file format | run --tc $OK $B/magic.pcap
capture | wrong magic | 1 | magic\.pcap: not a readable capture: unknown file format | bpf run -a $OPS $B/magic.pcap
capture | caplen 2^32 | 1 | caplen_2p32\.pcap: packet 1: .*4294967295               | run --tc $OK $B/caplen_2p32.pcap
capture | caplen 64k, file cut | 1 | caplen_64k_cut\.pcap: packet 1: .*truncated     | run --tc $OK $B/caplen_64k_cut.pcap
capture | snaplen 2^32 | 0 | -                                                      | bpf run -a $OPS $B/snaplen_2p32.pcap
capture | snaplen 0   | 0 | -                                                       | bpf run -a $OPS $B/snaplen_0.pcap
capture | FIFO        | 1 | /fifo: not a readable capture: a FIFO                   | bpf run -a $OPS $B/fifo
capture | two, second bad | 1 | cut_body\.pcap: packet [0-9]+: .*truncated          | run --tc $OK $CAP $B/cut_body.pcap
capture | truncated, with --trace | 1 | cut_body\.pcap: packet [0-9]+: .*truncated    | run --tc $OK --trace $O/trace.txt $B/cut_body.pcap
tc | nonexistent | 1 | nope\.tc: cannot open: No such file                           | run --tc $B/nope.tc $CAP
tc | directory   | 1 | /dir: cannot open: .*directory                                | run --tc $B/dir $CAP
tc | FIFO        | 1 | /fifo: cannot open: a FIFO                                    | run --tc $B/fifo $CAP
tc | FIFO        | 2 | /fifo: cannot open: a FIFO                                    | lint --tc $B/fifo
tc | FIFO        | 1 | /fifo: cannot open: a FIFO                                    | explain --tc $B/fifo --packet 1 $CAP
tc | FIFO        | 2 | kernel-check: .*/fifo: cannot open: a FIFO                    | kernel-check --tc $B/fifo $CAP
tc | /dev/null   | 1 | /dev/null: cannot open: a character device                    | run --tc /dev/null $CAP
tc | unreadable  | 1 | unreadable\.tc\.tc: cannot open: Permission denied            | run --tc $B/unreadable.tc.tc $CAP
tc | empty file  | 1 | empty\.tc: configures no device                               | run --tc $(mk empty.tc '') $CAP
tc | truncated   | 1 | cut\.tc:1: "limit" needs a value                                   | run --tc $(mk cut.tc 'qdisc add dev eth0 root pfifo limit') $CAP
tc | truncated   | 1 | quote\.tc:2: unterminated " quote                             | run --tc $(mk quote.tc 'qdisc add dev eth0 root pfifo\nfilter add dev eth0 parent 1: bpf bytecode "1,6 0 0 0') $CAP
tc | truncated   | 1 | bs\.tc:1: "limit" needs a value                                    | run --tc $(mk bs.tc 'qdisc add dev eth0 root pfifo limit \\') $CAP
tc | oversized   | 1 | longdev\.tc:1: .*not a valid device name \(1\.\.15 characters\)                                   | run --tc $(mk longdev.tc "qdisc add dev $(printf '%0100d' 0) root pfifo") $CAP
tc | oversized   | 1 | longline\.tc:1: .*"x{40}                                      | run --tc $(mk longline.tc "qdisc add dev eth0 root pfifo $(printf '%0200000d' 0 | tr 0 x)") $CAP
tc | limit 0     | 0 | -                                                             | run --tc $(mk lim0.tc 'qdisc add dev eth0 root pfifo limit 0') $CAP
tc | limit -1    | 1 | lim-1\.tc:1: .*"-1"                                           | run --tc $(mk lim-1.tc 'qdisc add dev eth0 root pfifo limit -1') $CAP
tc | limit 2^32  | 1 | lim2p32\.tc:1: .*"4294967296"                                 | run --tc $(mk lim2p32.tc 'qdisc add dev eth0 root pfifo limit 4294967296') $CAP
tc | limit 2^64  | 1 | lim2p64\.tc:1: .*"18446744073709551616"                       | run --tc $(mk lim2p64.tc 'qdisc add dev eth0 root pfifo limit 18446744073709551616') $CAP
tc | bfifo limit 2^64 | 1 | blim\.tc:1: .*"18446744073709551616"                     | run --tc $(mk blim.tc 'qdisc add dev eth0 root bfifo limit 18446744073709551616') $CAP
tc | sfq limit 0 | 1 | slim0\.tc:1: .*limit                                          | run --tc $(mk slim0.tc 'qdisc add dev eth0 root sfq limit 0') $CAP
tc | sfq limit -1 | 1 | slim-1\.tc:1: .*limit                                        | run --tc $(mk slim-1.tc 'qdisc add dev eth0 root sfq limit -1') $CAP
tc | sfq limit 2^32 | 1 | slim2p32\.tc:1: sfq: Illegal "limit"                             | run --tc $(mk slim2p32.tc 'qdisc add dev eth0 root sfq limit 4294967296') $CAP
tc | quantum 0   | 0 | -                                                           | run --tc $(mk q0.tc 'qdisc add dev eth0 root sfq quantum 0') $CAP
tc | quantum -1  | 1 | q-1\.tc:1: sfq: Illegal "limit"                                             | run --tc $(mk q-1.tc 'qdisc add dev eth0 root sfq quantum -1') $CAP
tc | quantum 2^32 | 1 | q2p32\.tc:1: sfq: Illegal "limit"                                  | run --tc $(mk q2p32.tc 'qdisc add dev eth0 root sfq quantum 4294967296') $CAP
tc | quantum 2^64 | 1 | q2p64\.tc:1: sfq: Illegal "limit"                        | run --tc $(mk q2p64.tc 'qdisc add dev eth0 root sfq quantum 18446744073709551616') $CAP
tc | perturb 0   | 0 | -                                                             | run --tc $(mk p0.tc 'qdisc add dev eth0 root sfq perturb 0') $CAP
tc | perturb -1  | 1 | p-1\.tc:1: .*perturb                                          | run --tc $(mk p-1.tc 'qdisc add dev eth0 root sfq perturb -1') $CAP
tc | perturb 2^32 | 1 | p2p32\.tc:1: sfq: Illegal "perturb"                                  | run --tc $(mk p2p32.tc 'qdisc add dev eth0 root sfq perturb 4294967296') $CAP
tc | perturb 2^64 | 1 | p2p64\.tc:1: sfq: Illegal "perturb"                        | run --tc $(mk p2p64.tc 'qdisc add dev eth0 root sfq perturb 18446744073709551616') $CAP
tc | bands 0     | 1 | b0\.tc:1: .*bands 0                                           | run --tc $(mk b0.tc 'qdisc add dev eth0 root prio bands 0') $CAP
tc | bands -1    | 1 | b-1\.tc:1: .*"-1"                                             | run --tc $(mk b-1.tc 'qdisc add dev eth0 root prio bands -1') $CAP
tc | bands 2^32  | 1 | b2p32\.tc:1: .*"4294967296"                                   | run --tc $(mk b2p32.tc 'qdisc add dev eth0 root prio bands 4294967296') $CAP
tc | bands 2^64  | 1 | b2p64\.tc:1: .*"18446744073709551616"                         | run --tc $(mk b2p64.tc 'qdisc add dev eth0 root prio bands 18446744073709551616') $CAP
tc | priomap -1  | 1 | pm-1\.tc:1: .*"-1"                                            | run --tc $(mk pm-1.tc 'qdisc add dev eth0 root prio priomap -1') $CAP
tc | priomap 2^32 | 1 | pm2p32\.tc:1: .*"4294967296"                                 | run --tc $(mk pm2p32.tc 'qdisc add dev eth0 root prio priomap 4294967296') $CAP
tc | priomap 2^64 | 1 | pm2p64\.tc:1: .*"18446744073709551616"                       | run --tc $(mk pm2p64.tc 'qdisc add dev eth0 root prio priomap 18446744073709551616') $CAP
tc | priomap 17 entries | 1 | pm17\.tc:1: .*priomap                                  | run --tc $(mk pm17.tc 'qdisc add dev eth0 root prio priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0') $CAP
tc | pref 0      | 0 | -                                                             | run --tc $(mk pref0.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 0 bpf bytecode "1,6 0 0 0" flowid 1:1') $CAP
tc | pref -1     | 1 | pref-1\.tc:2: .*"-1"                                          | run --tc $(mk pref-1.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref -1 bpf bytecode "1,6 0 0 0" flowid 1:1') $CAP
tc | pref 2^32   | 1 | pref2p32\.tc:2: .*"4294967296"                                | run --tc $(mk pref2p32.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 4294967296 bpf bytecode "1,6 0 0 0" flowid 1:1') $CAP
tc | pref 2^64   | 1 | pref2p64\.tc:2: .*"18446744073709551616"                      | run --tc $(mk pref2p64.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 18446744073709551616 bpf bytecode "1,6 0 0 0" flowid 1:1') $CAP
tc | handle 0:   | 0 | -                                                             | run --tc $(mk h0.tc 'qdisc add dev eth0 root handle 0: pfifo') $CAP
tc | handle -1:  | 1 | h-1\.tc:1: .*"-1:"                                            | run --tc $(mk h-1.tc 'qdisc add dev eth0 root handle -1: pfifo') $CAP
tc | handle 2^32 | 1 | h2p32\.tc:1: .*"100000000:"                                   | run --tc $(mk h2p32.tc 'qdisc add dev eth0 root handle 100000000: pfifo') $CAP
tc | handle 2^64 | 1 | h2p64\.tc:1: .*"10000000000000000:"                           | run --tc $(mk h2p64.tc 'qdisc add dev eth0 root handle 10000000000000000: pfifo') $CAP
tc | filter handle 2^32 | 1 | fh\.tc:2: Illegal "handle"                               | run --tc $(mk fh.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 handle 4294967296 bpf bytecode "1,6 0 0 0" flowid 1:1') $CAP
tc | classid 0:0 | 0 | -                                                             | run --tc $(mk c0.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode "1,6 0 0 -1" classid 0:0') $CAP
tc | classid -1  | 1 | c-1\.tc:2: .*"-1"                                             | run --tc $(mk c-1.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode "1,6 0 0 0" classid -1') $CAP
tc | classid 2^32 | 1 | c2p32\.tc:2: .*"100000000"                                   | run --tc $(mk c2p32.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode "1,6 0 0 0" classid 100000000') $CAP
tc | classid 1:2^64 | 1 | c2p64\.tc:2: .*"1:10000000000000000"                      | run --tc $(mk c2p64.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode "1,6 0 0 0" flowid 1:10000000000000000') $CAP
tc | empty dev   | 1 | edev\.tc:1: .*dev                                             | run --tc $(mk edev.tc 'qdisc add dev "" root pfifo') $CAP
tc | newline in a quoted word | 1 | nl\.tc:1: "a\\nb" is not a valid device name     | run --tc $(mk nl.tc 'qdisc add dev "a\nb" root pfifo') $CAP
tc | '/' in a dev name | 1 | slash\.tc:1: "a/b" is not a valid device name .*'/'        | run --tc $(mk slash.tc 'qdisc add dev a/b root pfifo') $CAP
tc | empty kind  | 1 | ekind\.tc:1: .*""                                             | run --tc $(mk ekind.tc "qdisc add dev eth0 root ''") $CAP
tc | empty word  | 1 | eword\.tc:1: .*""                                             | run --tc $(mk eword.tc "qdisc '' add dev eth0 root pfifo") $CAP
tc | empty bytecode | 1 | ebc\.tc:2: .*bytecode                                     | run --tc $(mk ebc.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode "" flowid 1:1') $CAP
tc | empty bytecode-file | 1 | ebf\.tc:2: bpf: .*empty\.bpf: bytecode must start                           | run --tc $(mk ebf.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode-file empty.bpf flowid 1:1') $CAP
tc | bytecode-file FIFO | 1 | bff\.tc:2: .*/fifo: .*a FIFO                          | run --tc $(mk bff.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf bytecode-file fifo flowid 1:1') $CAP
tc | asm-file FIFO | 1 | aff\.tc:2: .*/fifo: .*a FIFO                               | run --tc $(mk aff.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf asm-file fifo flowid 1:1') $CAP
tc | asm-file directory | 1 | afd\.tc:2: .*/dir: .*directory                       | run --tc $(mk afd.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf asm-file dir flowid 1:1') $CAP
tc | NUL byte    | 1 | nul\.tc:2: a NUL byte                                         | run --tc $(mk nul.tc 'qdisc add dev eth0 root pfifo\n# a comment\0 hiding\nqdisc del dev eth0 root\n') $CAP
tc | NUL byte in a word | 1 | nulw\.tc:1: a NUL byte                               | run --tc $(mk nulw.tc 'qdisc add dev eth0 root pfifo limit 1\0000\n') $CAP
tc | invalid UTF-8 dev | 1 | u8dev\.tc:1: .*not a valid device name \(not UTF-8\)                                    | run --tc $(mk u8dev.tc 'qdisc add dev eth\377 root pfifo') $CAP
tc | invalid UTF-8 kind | 1 | u8kind\.tc:1: .*kind is unknown: "pfifo                          | run --tc $(mk u8kind.tc 'qdisc add dev eth0 root pfifo\377') $CAP
tc | CRLF        | 0 | -                                                             | run --tc $(mk crlf.tc 'qdisc add dev eth0 root handle 1: prio\r\nqdisc add dev eth0 parent 1:1 pfifo \\\r\n  limit 5\r\n') $CAP
tc | CRLF, error line | 1 | crlf2\.tc:3: .*"bogus"                                | run --tc $(mk crlf2.tc 'qdisc add dev eth0 root handle 1: prio\r\n\r\nqdisc add dev eth0 parent 1:1 pfifo bogus\r\n') $CAP
bytecode | empty string | 1 | bytecode: .*instruction count                             | bpf check -b ''
bytecode | empty file  | 1 | empty\.bpf: .*instruction count                             | bpf check -F $(mk empty.bpf '')
bytecode | nonexistent | 1 | nope\.bpf: No such file                                     | bpf check -F $B/nope.bpf
bytecode | directory   | 1 | /dir: .*directory                                           | bpf check -F $B/dir
bytecode | FIFO        | 1 | /fifo: a FIFO                                               | bpf check -F $B/fifo
bytecode | /dev/null   | 1 | /dev/null: a character device                               | bpf check -F /dev/null
bytecode | unreadable  | 1 | unreadable\.prog\.bpf: Permission denied                    | bpf check -F $B/unreadable.prog.bpf
bytecode | truncated   | 1 | instruction 1: expected four numbers                        | bpf check -b '2,6 0 0 0,6 0'
bytecode | truncated   | 1 | count says 3 instructions but 1 follow                      | bpf check -b '3,6 0 0 0'
bytecode | truncated file | 1 | cut\.bpf: .*instruction 1: expected four numbers         | bpf check -F $(mk cut.bpf '2,6 0 0 0,6 0')
bytecode | count 0     | 1 | instruction count 0                                         | bpf check -b '0,6 0 0 0'
bytecode | count -1    | 1 | bytecode: .*count                                           | bpf check -b '-1,6 0 0 0'
bytecode | count 4097  | 1 | bytecode: .*4097                                            | bpf check -b '4097,6 0 0 0'
bytecode | count 2^32  | 1 | bytecode: .*4294967296                                      | bpf check -b '4294967296,6 0 0 0'
bytecode | count 2^64  | 1 | bytecode: .*18446744073709551616                            | bpf check -b '18446744073709551616,6 0 0 0'
bytecode | code 2^32   | 1 | instruction 0: code is out of range                         | bpf check -b '1,4294967296 0 0 0'
bytecode | code -1     | 1 | instruction 0: code                                         | bpf check -b '1,-1 0 0 0'
bytecode | jt -1       | 1 | instruction 0: jt                                           | bpf check -b '1,6 -1 0 0'
bytecode | jf 2^64     | 1 | instruction 0: jf                                           | bpf check -b '1,6 0 18446744073709551616 0'
bytecode | k 2^32      | 1 | instruction 0: k is out of range                            | bpf check -b '1,6 0 0 4294967296'
bytecode | k 2^64      | 1 | instruction 0: k                                            | bpf check -b '1,6 0 0 18446744073709551616'
bytecode | k -1        | 0 | -                                                           | bpf check -b '1,6 0 0 -1'
bytecode | empty fields | 1 | bytecode: .*instruction 0                                  | bpf check -b '1,,6 0 0 0'
bytecode | junk after a field | 1 | bytecode: instruction 0: "junk" after its four numbers | bpf check -b '1,6 0 0 0 junk'
bytecode | oversized file | 1 | big\.bpf: too long                                       | bpf check -F $(mk big.bpf "$(printf '%0300000d' 0)")
bytecode | NUL byte    | 1 | nul\.bpf:1: a NUL byte                                       | bpf check -F $(mk nul.bpf '1,6 0 0 0\0,6 0 0 0')
bytecode | invalid UTF-8 | 1 | bytecode: .*instruction 0                                 | bpf check -b "1,6 0 0 0$(printf '\377')"
bytecode | CRLF file   | 0 | -                                                           | bpf check -F $(mk crlf.bpf '2\r\n40 0 0 12\r\n6 0 0 0\r\n')
assembly | empty file  | 1 | empty\.ops:1: empty program                                 | bpf asm $(mk empty.ops '')
assembly | nonexistent | 1 | nope\.ops: No such file                                     | bpf asm $B/nope.ops
assembly | directory   | 1 | /dir: .*directory                                           | bpf asm $B/dir
assembly | FIFO        | 1 | /fifo: a FIFO                                               | bpf asm $B/fifo
assembly | FIFO        | 1 | /fifo: a FIFO                                               | bpf run -a $B/fifo $CAP
assembly | /dev/null   | 1 | /dev/null: a character device                               | bpf asm /dev/null
assembly | unreadable  | 1 | unreadable\.prog\.ops: Permission denied                    | bpf asm $B/unreadable.prog.ops
assembly | truncated   | 1 | cut\.ops:2: .*                                              | bpf asm $(mk cut.ops 'ldh [12]\njeq #1,')
assembly | truncated   | 1 | cut2\.ops:1: .*                                             | bpf asm $(mk cut2.ops 'ldh [12')
assembly | truncated comment | 1 | cut3\.ops:2: .*comment                              | bpf asm $(mk cut3.ops 'ret #0\n/* never closed\n')
assembly | oversized   | 1 | long\.ops:4097: more than 4096 instructions                                          | bpf asm $(mk long.ops "$(printf 'ld #1\n%.0s' $(seq 4097))\nret a\n")
assembly | imm 0       | 0 | -                                                           | bpf asm $(mk i0.ops 'ret #0')
assembly | imm -1      | 0 | -                                                           | bpf asm $(mk i-1.ops 'ret #-1')
assembly | imm 2^32    | 1 | i2p32\.ops:1: number does not fit in 32 bits                | bpf asm $(mk i2p32.ops 'ret #4294967296')
assembly | imm 2^64    | 1 | i2p64\.ops:1: number does not fit in 32 bits                | bpf asm $(mk i2p64.ops 'ret #18446744073709551616')
assembly | offset -1   | 1 | rejected: .*o-1\.ops: instruction 0: unknown ancillary offset                                  | bpf check -a $(mk o-1.ops 'ldb [-1]\nret a')
assembly | offset 2^32 | 1 | o2p32\.ops:1: number does not fit in 32 bits                | bpf asm $(mk o2p32.ops 'ldb [4294967296]\nret a')
assembly | M[16]       | 1 | m16\.ops: the kernel would reject this program: instruction 0: .*M\[16\]                                      | bpf asm $(mk m16.ops 'st M[16]\nret a')
assembly | M[-1]       | 1 | m-1\.ops: .*instruction 0: .*M\[4294967295\]                                           | bpf asm $(mk m-1.ops 'st M[-1]\nret a')
assembly | jump 2^32   | 1 | j2p32\.ops:1: .*                                            | bpf asm $(mk j2p32.ops 'ja 4294967296\nret a')
assembly | jump to self | 1 | jself\.ops:1: .*                                           | bpf asm $(mk jself.ops 'l0: ja l0\nret a')
assembly | empty label | 1 | elab\.ops:1: .*                                             | bpf asm $(mk elab.ops ': ret #0')
assembly | NUL byte    | 1 | nul\.ops:2: a NUL byte                                      | bpf asm $(mk nul.ops 'ldh [12]\nret\0 #0\n')
assembly | invalid UTF-8 label | 1 | u8\.ops:1: .*                                     | bpf asm $(mk u8.ops 'l\377b: ret #0')
assembly | CRLF        | 0 | -                                                           | bpf asm $(mk crlf.ops 'ldh [12]\r\njeq #0x800, a1, a2\r\na1: ret #-1\r\na2: ret #0\r\n')
assembly | CRLF, error line | 1 | crlf2\.ops:3: .*bogus                                  | bpf asm $(mk crlf2.ops 'ldh [12]\r\n\r\nbogus #1\r\nret #0\r\n')
expression | syntax    | 1 | expression 'tcp port': .*syntax error                      | bpf check -e 'tcp port'
expression | empty     | 0 | -                                                           | bpf check -e ''
expression | port -1   | 1 | expression 'tcp port -1': .*                               | bpf check -e 'tcp port -1'
expression | port 2^32 | 1 | expression 'tcp port 4294967296': .*                       | bpf check -e 'tcp port 4294967296'
expression | len 2^64  | 1 | expression 'len > 18446744073709551616': .*                | bpf check -e 'len > 18446744073709551616'
expression | oversized number | 1 | expression 'len > 9+\.\.\.': number 9+ | bpf check -e "len > $(printf '9%.0s' $(seq 300))"
expression | invalid UTF-8 | 1 | expression 'host .*': .*syntax error                               | bpf check -e "host $(printf '\377')"
expression | in a tc line | 1 | expr\.tc:2: bpf: expression 'tcp port': .*syntax error         | run --tc $(mk expr.tc 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: pref 1 bpf expr "tcp port" flowid 1:1') $CAP
golden | nonexistent | 2 | nope\.json: No such file                                    | check $B/s.lua --quiet --expect $B/nope.json
golden | directory   | 2 | /dir: .*directory                                           | check $B/s.lua --quiet --expect $B/dir
golden | FIFO        | 2 | /fifo: a FIFO                                               | check $B/s.lua --quiet --expect $B/fifo
golden | /dev/null   | 2 | /dev/null: a character device                               | check $B/s.lua --quiet --expect /dev/null
golden | unreadable  | 2 | unreadable\.golden\.json: Permission denied                 | check $B/s.lua --quiet --expect $B/unreadable.golden.json
golden | empty       | 2 | empty\.json: line 1, column 1: expected a value             | check $B/s.lua --quiet --expect $B/empty.json
golden | truncated   | 2 | cut\.json: line [0-9]+, column [0-9]+: unterminated string       | check $B/s.lua --quiet --expect $B/cut.json
golden | NUL byte    | 2 | nul\.json: line [0-9]+, column [0-9]+: control character U\+0000               | check $B/s.lua --quiet --expect $B/nul.json
golden | invalid UTF-8 | 2 | utf8\.json: line [0-9]+, column [0-9]+: .*UTF-8          | check $B/s.lua --quiet --expect $B/utf8.json
golden | CRLF        | 0 | -                                                           | check $B/s.lua --quiet --expect $B/crlf.json
golden | byte-order mark | 2 | bom\.json: line 1, column 1: .*                       | check $B/s.lua --quiet --expect $B/bom.json
golden | oversized: 300 nested arrays | 2 | deep\.json: line 1, column 257: nesting deeper than 256 | check $B/s.lua --quiet --expect $B/deep.json
lua | nonexistent | 1 | nope\.lua: .*No such file                                     | $B/nope.lua
lua | directory   | 1 | /dir\.lua: .*directory                                        | $B/dir.lua
lua | FIFO        | 1 | /fifo\.lua: .*a FIFO                                          | $B/fifo.lua
lua | syntax      | 1 | syntax\.lua:1: .*                                             | $B/syntax.lua
lua | NUL byte    | 1 | nul\.lua:1: .*                                                | $B/nul.lua
lua | syntax, check | 1 | syntax\.lua:1: .*                                           | check $B/syntax.lua --expect $G
option | --rate 0    | 0 | -                                                           | run --tc $OK --rate 0 $CAP
option | --rate -1   | 2 | --rate '-1'                                                 | run --tc $OK --rate -1 $CAP
option | --rate 2^32 | 0 | -                                                           | run --tc $OK --rate 4294967296 $CAP
option | --rate 2^64 | 2 | --rate '18446744073709551616'                               | run --tc $OK --rate 18446744073709551616 $CAP
option | --rate empty | 2 | --rate ''                                                  | run --tc $OK --rate '' $CAP
option | --rate UTF-8 | 2 | --rate '10.*bit': not a valid value                                           | run --tc $OK --rate "10$(printf '\377')bit" $CAP
option | --mtu 0     | 2 | --mtu '0'                                                   | run --tc $OK --mtu 0 $CAP
option | --mtu -1    | 2 | --mtu '-1'                                                  | run --tc $OK --mtu -1 $CAP
option | --mtu 2^32  | 2 | --mtu '4294967296'                                          | run --tc $OK --mtu 4294967296 $CAP
option | --mtu 2^64  | 2 | --mtu '18446744073709551616'                                | run --tc $OK --mtu 18446744073709551616 $CAP
option | --txqueuelen 0 | 0 | -                                                        | run --tc $OK --txqueuelen 0 $CAP
option | --txqueuelen -1 | 2 | --txqueuelen '-1'                                      | run --tc $OK --txqueuelen -1 $CAP
option | --txqueuelen 2^32 | 2 | --txqueuelen '4294967296'                            | run --tc $OK --txqueuelen 4294967296 $CAP
option | --txqueuelen 2^64 | 2 | --txqueuelen '18446744073709551616'                  | run --tc $OK --txqueuelen 18446744073709551616 $CAP
option | --loop 0 alone | 1 | ssh_hydra\.pcap: loop 0                                  | run --tc $OK --loop 0 $CAP
option | --loop -1   | 2 | --loop '-1'                                                 | run --tc $OK --loop -1 $CAP
option | --loop 2^32 | 0 | -                                                           | run --tc $OK --loop 4294967296 --limit 5 $CAP
option | --loop 2^64 | 2 | --loop '18446744073709551616'                               | run --tc $OK --loop 18446744073709551616 $CAP
option | --limit 0   | 2 | --limit '0'                                                 | run --tc $OK --limit 0 $CAP
option | --limit -1  | 2 | --limit '-1'                                                | run --tc $OK --limit -1 $CAP
option | --limit 2^64 | 2 | --limit '18446744073709551616'                             | run --tc $OK --limit 18446744073709551616 $CAP
option | --seed 0    | 0 | -                                                           | run --tc $OK --seed 0 $CAP
option | --seed -1   | 2 | --seed '-1'                                                 | run --tc $OK --seed -1 $CAP
option | --seed 2^64 | 2 | --seed '18446744073709551616'                               | run --tc $OK --seed 18446744073709551616 $CAP
option | --seed empty | 2 | --seed ''                                                  | run --tc $OK --seed '' $CAP
option | --speed 0   | 2 | --speed '0'                                                 | run --tc $OK --speed 0 $CAP
option | --speed -1  | 2 | --speed '-1'                                                | run --tc $OK --speed -1 $CAP
option | --speed 2^64 | 0 | -                                                          | run --tc $OK --speed 18446744073709551616 $CAP
option | --speed nan | 2 | --speed 'nan'                                               | run --tc $OK --speed nan $CAP
option | --speed inf | 2 | --speed 'inf'                                               | run --tc $OK --speed inf $CAP
option | --pps 0     | 2 | --pps '0'                                                   | run --tc $OK --pps 0 $CAP
option | --pps -1    | 2 | --pps '-1'                                                  | run --tc $OK --pps -1 $CAP
option | --pps 2^64  | 2 | --pps '18446744073709551616'                                                     | run --tc $OK --pps 18446744073709551616 $CAP
option | --pps 1e-300 | 2 | --pps '1e-300'                                             | run --tc $OK --pps 1e-300 $CAP
option | --mbps 1e-300 | 2 | --mbps '1e-300'                                           | run --tc $OK --mbps 1e-300 $CAP
option | --duration 0 | 0 | -                                                          | run --tc $OK --duration 0 $CAP
option | --duration -1 | 2 | --duration '-1'                                           | run --tc $OK --duration -1 $CAP
option | --duration 2^64 | 2 | --duration '18446744073709551616'                      | run --tc $OK --duration 18446744073709551616 $CAP
option | --delay 2^64 | 2 | --delay '18446744073709551616'                             | run --tc $OK --delay 18446744073709551616 $CAP
option | --timer-latency -1 | 2 | --timer-latency '-1'                               | run --tc $OK --timer-latency -1 $CAP
option | --overhead -1 | 2 | --overhead '-1'                                           | run --tc $OK --overhead -1 $CAP
option | --priority 2^32 | 2 | --priority '4294967296'                                | run --tc $OK --priority 4294967296 $CAP
option | --plot-interval 0 | 2 | --plot-interval '0'                                  | run --tc $OK --plot-interval 0 $CAP
option | --tc empty  | 1 | : cannot open: an empty file name                            | run --tc '' $CAP
option | capture empty word | 1 | : not a readable capture: an empty file name            | run --tc $OK ''
option | unknown     | 2 | unknown option or missing value '--bogus'                   | run --tc $OK --bogus $CAP
option | missing value | 2 | unknown option or missing value '--rate'                  | run --tc $OK --rate
option | --json in a missing folder | 1 | --json .*/nodir/x\.json: No such file       | run --tc $OK --json $B/nodir/x.json $CAP
option | --pcap-out a file | 1 | .*ssh_hydra\.pcap: not a directory                   | run --tc $OK --pcap-out $CAP $CAP
option | --tolerance 0 | 0 | -                                                         | check $B/s.lua --quiet --expect $G --tolerance 0
option | --tolerance -1 | 2 | --tolerance -1                                           | check $B/s.lua --quiet --expect $G --tolerance -1
option | --tolerance 2^64 | 2 | --tolerance 18446744073709551616                      | check $B/s.lua --quiet --expect $G --tolerance 18446744073709551616
option | --tolerance nan | 2 | --tolerance nan                                        | check $B/s.lua --quiet --expect $G --tolerance nan
option | --tolerance-ns -1 | 2 | --tolerance-ns -1                                    | check $B/s.lua --quiet --expect $G --tolerance-ns -1
option | --max-lines 0 | 0 | -                                                         | check $B/s.lua --quiet --expect $G --max-lines 0
option | --max-lines -1 | 2 | --max-lines -1                                           | check $B/s.lua --quiet --expect $G --max-lines -1
option | --max-lines 2^32 | 2 | --max-lines 4294967296                                | check $B/s.lua --quiet --expect $G --max-lines 4294967296
option | --max-lines 2^64 | 2 | --max-lines 18446744073709551616                      | check $B/s.lua --quiet --expect $G --max-lines 18446744073709551616
option | --seed -1 (scenario) | 2 | --seed -1: not a valid value                                       | $B/s.lua --seed -1
option | bpf --trace 0 | 2 | --trace '0'                                              | bpf run --trace 0 -a $OPS $CAP
option | bpf --trace -1 | 2 | --trace '-1'                                            | bpf run --trace -1 -a $OPS $CAP
option | bpf --trace 2^64 | 2 | --trace '18446744073709551616'                        | bpf run --trace 18446744073709551616 -a $OPS $CAP
option | bpf --seed -1 | 2 | --seed '-1'                                              | bpf run --seed -1 -a $OPS $CAP
option | bpf -f bogus | 2 | -f 'bogus'                                                | bpf asm -f bogus $OPS
EOF
)

# the unreadable rows: root reads a mode-000 file, so run them as nobody
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 &&
		setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		AS_OTHER="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		AS_OTHER=skip
		echo "skip: unreadable rows: running as root, and setpriv cannot drop to nobody"
	fi
else
	AS_OTHER=
fi

# row KIND BADNESS EXIT PATTERN COMMAND
row() {
	r_name="$1 / $2" r_cmd=$5
	r_want=$3 r_pat=$4
	rm -rf "$O" && mkdir "$O" && chmod 777 "$O"
	eval "set -- $5"
	[ "$1" = run ] && { shift; set -- run --json "$O/out.json" --pcap-out "$O/pcap" --plot "$O/plot" "$@"; }
	r_as=
	case $r_name in *" / unreadable")
		if [ "$AS_OTHER" = skip ]; then return; fi
		r_as=$AS_OTHER ;;
	esac
	$r_as timeout 10 $TCSIM "$@" >"$T_TMP/stdout" 2>"$T_TMP/err" </dev/null
	rc=$?
	r_why=
	if [ $rc -eq 124 ]; then
		r_why="timed out (blocked reading?)"
	elif [ $rc -ne "$r_want" ]; then
		r_why="exit $rc, wanted $r_want"
	elif LC_ALL=C grep -Eq 'runtime error|Sanitizer' "$T_TMP/err"; then
		r_why="sanitizer report"
	elif [ "$r_want" -eq 0 ]; then
		[ -s "$T_TMP/err" ] && r_why="stderr: $(head -c 300 "$T_TMP/err")"
	elif [ -s "$T_TMP/stdout" ]; then
		r_why="wrote to stdout: $(head -c 200 "$T_TMP/stdout")"
	elif [ "$(wc -l <"$T_TMP/err")" -ne 1 ]; then
		r_why="$(wc -l <"$T_TMP/err") lines on stderr: $(head -c 400 "$T_TMP/err")"
	elif ! LC_ALL=C grep -Eq -- "$r_pat" "$T_TMP/err"; then
		r_why="stderr '$(cat "$T_TMP/err")' lacks /$r_pat/"
	fi
	if [ -z "$r_why" ] && [ "$r_want" -ne 0 ] && [ -n "$(ls -A "$O")" ]; then
		r_why="left $(cd "$O" && find . | tr '\n' ' ')"
	fi
	if [ -n "$r_why" ]; then
		T_FAIL=$((T_FAIL + 1))
		printf 'FAIL %s: %s\n     tcsim %s\n' "$r_name" "$r_why" "$r_cmd"
	else
		ok
		printf 'ok   %s\n' "$r_name"
		[ -n "$BAD_INPUT_VERBOSE" ] && [ -s "$T_TMP/err" ] && printf '     %s\n' "$(cat "$T_TMP/err")"
	fi
}

n=0
while IFS='|' read -r kind badness want pat cmd; do
	case $kind in '#'* | '') continue ;; esac
	row "$(echo $kind)" "$(echo $badness)" "$(echo $want)" \
		"$(printf "%s" "$pat" | sed 's/^ *//; s/ *$//')" "$(printf "%s" "$cmd" | sed 's/^ *//; s/ *$//')"
	n=$((n + 1))
done <<EOF
$ROWS
EOF
# A capture's file name that is not UTF-8 reaches the JSON as U+FFFD, so
# tcsim reads its own output back: a scenario's golden, written and
# expected (the reader refused the raw byte: "invalid UTF-8 in a string").
U8=$B/$(printf 'x\377').pcap
cp "$CAP" "$U8"
printf 'local sim = tcsim.sim{}\nsim:dev("eth0"):tc[[qdisc add dev eth0 root pfifo]]\nsim:replay("%s", { limit = 5 })\nsim:run()\n' "$U8" >"$B/u8name.lua"
if $TCSIM check "$B/u8name.lua" --write-golden "$B/u8name.json" --quiet >/dev/null 2>"$T_TMP/err" &&
	$TCSIM check "$B/u8name.lua" --expect "$B/u8name.json" --quiet >/dev/null 2>>"$T_TMP/err" &&
	grep -q 'x\\ufffd\.pcap' "$B/u8name.json"; then
	ok
	echo "ok   capture / invalid UTF-8 name: JSON written with U+FFFD, read back"
else
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL capture / invalid UTF-8 name: $(head -c 300 "$T_TMP/err")"
fi

echo "$n rows: $(printf "%s\n" "$ROWS" | grep -v '^#' | cut -d'|' -f1 | sort | uniq -c | awk '{ printf "%s%s %d", s, $2, $1; s = ", " }')"
finish
