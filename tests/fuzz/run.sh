#!/bin/sh
# run.sh BUILD: every fuzz target built in BUILD/fuzz/ (or those named in
# FUZZ_TARGETS) under libFuzzer for FUZZ_SECONDS seconds each, on a corpus
# seeded from the repository and ../shared/pcaps (tests/fuzz/seed.sh) plus
# the committed regression inputs. Prints a line per target: executions,
# executions per second, coverage; exits 1 if any target found anything
# (the input lands in BUILD/findings/NAME/).
build=${1:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
here=$(cd "$(dirname "$0")" && pwd)
bad=""
targets=${FUZZ_TARGETS:-$(for f in "$build"/fuzz/fuzz_*; do [ -x "$f" ] && basename "$f" | sed 's/^fuzz_//'; done)}
for name in $targets; do
	bin=$build/fuzz/fuzz_$name
	[ -x "$bin" ] || { echo "fuzz: no target $name" >&2; bad="$bad $name"; continue; }
	corpus=$build/corpus/$name
	findings=$build/findings/$name
	mkdir -p "$corpus" "$findings"
	sh "$here/seed.sh" "$name" "$corpus"
	regress=$here/regress/$name
	[ -d "$regress" ] || regress=""
	dict=$here/dict/$name.dict
	[ -f "$dict" ] && dictopt=-dict=$dict || dictopt=""
	log=$build/fuzz-$name.log
	echo "=== fuzz $name: $secs s"
	# -rss_limit_mb: the targets bound their own work; more is a finding.
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=${FUZZ_MAX_LEN:-65536} \
		-print_final_stats=1 -artifact_prefix="$findings/" $dictopt "$corpus" $regress > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1)
	echo "fuzz $name: ${execs:-?} executions, ${rate:-?}/s, $cov, $ft, corpus $(ls "$corpus" | wc -l) files"
	if [ $rc -ne 0 ]; then
		echo "fuzz $name: FINDING (exit $rc); log $log, inputs in $findings/:" >&2
		grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" >&2
		bad="$bad $name"
	fi
done
[ -z "$bad" ] || { echo "fuzz: findings in:$bad" >&2; exit 1; }
echo "fuzz: no findings"
