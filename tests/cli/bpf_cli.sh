#!/bin/sh
# bpf_cli.sh - `tcsim bpf asm|disasm|check|run` on real inputs, exact output.
. tests/support/cli.sh
SSH_BC='13,40 0 0 12,21 0 10 2048,48 0 0 23,21 0 8 6,40 0 0 20,69 6 0 8191,177 0 0 14,72 0 0 14,21 2 0 22,72 0 0 16,21 0 1 22,6 0 0 4294967295,6 0 0 0'
OPS=scenarios/filters/ssh.ops
CAP=scenarios/captures/ssh_hydra.pcap

# --- asm: the seed's example, exactly what bpfc -f tc prints
expect_out "asm ssh.ops" "$SSH_BC" $TCSIM bpf asm $OPS
expect_out "asm -f c first line" "{ 0x28, 0, 0, 0x0000000c }," sh -c "$TCSIM bpf asm -f c $OPS | head -1"
if command -v bpfc >/dev/null 2>&1 || [ -x /usr/sbin/bpfc ]; then
	BPFC=$(command -v bpfc || echo /usr/sbin/bpfc)
	expect_out "asm equals live bpfc" "$($BPFC -f tc -i $OPS | sed 's/,$//')" $TCSIM bpf asm $OPS
else
	echo "skip: bpfc not installed, live comparison not run"
fi

# --- disasm: reassembles to the same bytes, from every front end
$TCSIM bpf disasm -b "$SSH_BC" >"$T_TMP/ssh_dis.ops"
expect_out "disasm -b | asm" "$SSH_BC" $TCSIM bpf asm "$T_TMP/ssh_dis.ops"
$TCSIM bpf disasm -e 'tcp port 22' >"$T_TMP/tcp22.ops"
expect_out "disasm -e | asm" "$(tcpdump -ddd 'tcp port 22' 2>/dev/null | tr '\n' ',' | sed 's/,$//; s/^\([0-9]*\),/\1,/')" \
	$TCSIM bpf asm "$T_TMP/tcp22.ops"

# --- bytecode files: bpfc's one line (trailing comma) and tcpdump -ddd lines
printf '%s,\n' "$SSH_BC" >"$T_TMP/ssh.bpf"
expect_out "bytecode-file one line" "accepted: 13 instructions" $TCSIM bpf check -F "$T_TMP/ssh.bpf"
printf '4\n40 0 0 12\n21  0\t1 2048\n6 0 0 65537\n6 0 0 0\n' >"$T_TMP/ddd.bpf"
expect_out "bytecode-file tcpdump -ddd form" "4,40 0 0 12,21 0 1 2048,6 0 0 65537,6 0 0 0" \
	sh -c "$TCSIM bpf disasm -F $T_TMP/ddd.bpf > $T_TMP/ddd.ops && $TCSIM bpf asm $T_TMP/ddd.ops"

# --- check
expect_out "check accepts ssh" "accepted: 13 instructions" $TCSIM bpf check -a $OPS
expect_err "check rejects ret x" "^rejected: instruction 0: opcode 0x0e" $TCSIM bpf check -b '1,14 0 0 0'
expect_err "check rejects rule-4 program" "instruction 4: reads M\[0\]" \
	$TCSIM bpf check -b '6,21 0 2 1,2 0 0 0,5 0 0 1,6 0 0 0,96 0 0 0,22 0 0 0'
expect_err "check rejects lsh #32" "constant shift by 32" $TCSIM bpf check -b '2,100 0 0 32,6 0 0 0'
expect_out "3.13 accepts lsh #32" "accepted: 2 instructions" $TCSIM bpf check --kernel 3.13 -b '2,100 0 0 32,6 0 0 0'

# --- run: the seed's filter over a real SSH capture; tcpdump agrees on M
expect_out "run ssh.ops" "matched 188 of 189 packets" $TCSIM bpf run -a $OPS $CAP
if command -v tcpdump >/dev/null 2>&1; then
	m=$(tcpdump -nr $CAP 'ip and tcp port 22 and ip[6:2] & 0x1fff = 0' 2>/dev/null | wc -l)
	expect_out "tcpdump agrees on ssh" "matched $m of 189 packets" $TCSIM bpf run -a $OPS $CAP
fi
expect_file "run -v ssh" tests/data/cli/run_v_ssh.txt $TCSIM bpf run -v -b "$SSH_BC" $CAP
# the same verdicts from the interpreter (TCSIM_BPF_JIT=0) and the JIT
expect_file "run -v ssh, interpreter" tests/data/cli/run_v_ssh.txt env TCSIM_BPF_JIT=0 $TCSIM bpf run -v -b "$SSH_BC" $CAP
expect_file "run -v ssh, JIT" tests/data/cli/run_v_ssh.txt env TCSIM_BPF_JIT=1 $TCSIM bpf run -v -b "$SSH_BC" $CAP
expect_err "TCSIM_BPF_JIT=on is refused" "TCSIM_BPF_JIT=on: use 1 .* or 0" env TCSIM_BPF_JIT=on $TCSIM bpf run -b "$SSH_BC" $CAP
expect_out "run -e returns the snaplen" "1 0x00040000" sh -c "$TCSIM bpf run -v -e 'tcp port 22' $CAP | head -1"
expect_out "run -e ip6 matches the mDNS packet" "matched 1 of 189 packets" $TCSIM bpf run -e ip6 $CAP
expect_file "trace packet 2" tests/data/cli/trace_ssh_p2.txt $TCSIM bpf run --trace 2 -a $OPS $CAP

# --- bad input: one line naming the file / instruction, non-zero exit
printf 'ldh [12]\nfoo #1\nret #0\n' >"$T_TMP/bad_mnem.ops"
expect_err "unknown mnemonic" "bad_mnem.ops:2:.*foo" $TCSIM bpf asm "$T_TMP/bad_mnem.ops"
printf 'ldh [12]\njeq #1, nowhere\nret #0\n' >"$T_TMP/undef.ops"
expect_err "undefined label" "undef.ops:2:.*nowhere" $TCSIM bpf asm "$T_TMP/undef.ops"
printf 'lb: ldh [12]\nlb: ret #0\n' >"$T_TMP/dup.ops"
expect_err "duplicate label" "dup.ops:2:.*duplicate label 'lb'" $TCSIM bpf asm "$T_TMP/dup.ops"
{ echo 'jeq #1, far'; i=0; while [ $i -lt 300 ]; do echo 'ld #1'; i=$((i + 1)); done; echo 'far: ret #0'; } >"$T_TMP/far.ops"
expect_err "jump too far" "far.ops:1:" $TCSIM bpf asm "$T_TMP/far.ops"
{ i=0; while [ $i -lt 4097 ]; do echo 'ld #1'; i=$((i + 1)); done; echo 'ret a'; } >"$T_TMP/long.ops"
expect_err "over 4096 instructions" "long.ops" $TCSIM bpf asm "$T_TMP/long.ops"
expect_err "missing file" "nonexistent.ops" $TCSIM bpf asm "$T_TMP/nonexistent.ops"
expect_err "missing bytecode file" "nope.bpf" $TCSIM bpf check -F "$T_TMP/nope.bpf"
expect_err "bytecode count mismatch" "count says 3 instructions but 2 follow" $TCSIM bpf check -b '3,6 0 0 0,6 0 0 0'
expect_err "bytecode too many" "more instructions than the count" $TCSIM bpf check -b '1,6 0 0 0,6 0 0 0'
expect_err "bytecode short tuple" "instruction 1: expected four numbers" $TCSIM bpf check -b '2,6 0 0 0,6 0 0'
expect_err "bytecode space before comma" "must start with the instruction count" $TCSIM bpf check -b '1 ,6 0 0 0'
expect_err "bytecode jt out of range" "instruction 0: jt is out of range" $TCSIM bpf check -b '1,6 300 0 0'
expect_err "bytecode count 0" "instruction count 0" $TCSIM bpf check -b '0,6 0 0 0'
expect_err "bad tcpdump expression" "expression 'tcp port'" $TCSIM bpf check -e 'tcp port'
expect_err "not a capture" "README.md: not a readable capture" $TCSIM bpf run -a $OPS README.md
head -c 1000 $CAP >"$T_TMP/trunc.pcap"
expect_err "truncated capture" "trunc.pcap: packet [0-9]+:.*truncated" $TCSIM bpf run -a $OPS "$T_TMP/trunc.pcap"
expect_err "trace out of range" "--trace 500: the capture has only 189 packets" sh -c "$TCSIM bpf run --trace 500 -a $OPS $CAP >/dev/null"
expect_err "rejected program not run" "would reject this program: instruction 0" $TCSIM bpf run -b '1,14 0 0 0' $CAP

# --- the shared collection's bad captures
if have_shared; then
	expect_err "shared: truncated record" "bad_record_len_truncated_eof.pcap: packet" \
		sh -c "$TCSIM bpf run -a $OPS $SHARED/pcaps/bad_record_len_truncated_eof.pcap >/dev/null"
	expect_err "shared: bad version" "bad_file_version.pcap: not a readable capture" \
		$TCSIM bpf run -a $OPS $SHARED/pcaps/bad_file_version.pcap
	expect_out "shared: snaplen-truncated mpls capture" "matched 0 of 10507 packets" \
		$TCSIM bpf run -a $OPS $SHARED/pcaps/backbone_ip_in_mpls_snap256.pcap
	expect_out "shared: raw IP capture gets an Ethernet header" "matched 946 of 946 packets" \
		$TCSIM bpf run -b '4,40 0 0 12,21 0 1 2048,6 0 0 1,6 0 0 0' $SHARED/pcaps/rawip_android_app.pcap
else
	echo "skip: $SHARED/pcaps absent, shared-capture cases not run"
fi
finish
