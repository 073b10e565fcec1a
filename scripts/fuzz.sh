#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run the libFuzzer harness of the driver (tests/fuzz/npu_fuzz.c:
# ioctls, ring submissions, ring-header scribbles and failure injection on
# the driver under the mock kernel, with ASan+UBSan and leak/WARN checks
# after every input). The build is clang-only, in its own directory.
# The seed corpus tests/fuzz/corpus is read; what the run finds goes to the
# working corpus (--corpus). Crashes, leaks and hangs are written to
# BUILD_DIR/artifacts/ and make the script fail; reproduce one with
#   BUILD_DIR/tests/fuzz/npu_fuzz BUILD_DIR/artifacts/crash-...
set -euo pipefail

usage() {
	cat <<EOF
usage: scripts/fuzz.sh [--time SECONDS] [--jobs N] [--corpus DIR] [--build-dir DIR]
                       [--no-install] [--no-build] [-h|--help] [-- LIBFUZZER-ARGS...]
  --time SECONDS  how long to fuzz (default 600); 0 = until stopped
  --jobs N        parallel fuzzing processes sharing the corpus (libFuzzer
                  -jobs=N -workers=N; default 1); -runs=X then counts per job
  --corpus DIR    working corpus, kept between runs (default BUILD_DIR/corpus)
  --build-dir DIR clang build directory (default build-fuzz)
  --no-install    do not install missing apt packages (fail instead)
  --no-build      use the harness already built in BUILD_DIR
Prints executions per second and coverage (libFuzzer's cov and ft) at the
end; the whole libFuzzer output is in BUILD_DIR/fuzz.log (and, with
--jobs, each job's in BUILD_DIR/fuzz-N.log).
EOF
}

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

time_s=600
jobs=1
corpus=
build=$NPU_ROOT/build-fuzz
install=1
do_build=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--time)
		time_s=$2
		shift
		;;
	--jobs)
		jobs=$2
		shift
		;;
	--corpus)
		corpus=$2
		shift
		;;
	--build-dir)
		build=$2
		shift
		;;
	--no-install) install=0 ;;
	--no-build) do_build=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
	shift
done
[[ $time_s =~ ^[0-9]+$ ]] || die "--time wants seconds, got '$time_s'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, got '$jobs'"
build=$(realpath -m "$build")
corpus=$(realpath -m "${corpus:-$build/corpus}")
seeds=$NPU_ROOT/tests/fuzz/corpus
artifacts=$build/artifacts
log=$build/fuzz.log

if [[ $install -eq 1 ]]; then
	step "checking packages: ${NPU_BUILD_PACKAGES[*]} ${NPU_FUZZ_PACKAGES[*]}"
	ensure_packages "${NPU_BUILD_PACKAGES[@]}" "${NPU_FUZZ_PACKAGES[@]}"
fi
if [[ $do_build -eq 1 ]]; then
	step "configuring $build (clang, -DNPU_FUZZ=ON)"
	CC=clang CXX=clang++ cmake -S "$NPU_ROOT" -B "$build" -G "Unix Makefiles" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_FUZZ=ON >/dev/null
	step "building npu_fuzz"
	cmake --build "$build" --target npu_fuzz -j "$(nproc)"
fi
fuzzer=$build/tests/fuzz/npu_fuzz
[[ -x $fuzzer ]] || die "$fuzzer missing: build it first (drop --no-build)"

mkdir -p "$corpus" "$artifacts"
# -detect_leaks=0: the harness itself checks the mock's leak counters after
# every input, which is cheaper than libFuzzer's per-input LSan pass (that
# stops every engine thread); LSan still checks the whole process at exit.
args=(-max_len=2048 -timeout=10 -rss_limit_mb=3072 -detect_leaks=0 -print_final_stats=1
	-artifact_prefix="$artifacts/")
if [[ $time_s -gt 0 ]]; then
	args+=(-max_total_time="$time_s")
fi
# Separate processes on one corpus, each reloading what the others found
# (libFuzzer's -reload): -fork=N restarts its children every few seconds,
# paying the corpus load each time, and ran at half the speed.
if [[ $jobs -gt 1 ]]; then
	args+=(-jobs="$jobs" -workers="$jobs")
	rm -f "$build"/fuzz-[0-9]*.log
fi
# The sanitizers stop at the first report; a smaller quarantine keeps the
# process near 1 GiB (the emulated HBM of two 64 MiB devices is in it too).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:quarantine_size_mb=64:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

step "fuzzing for ${time_s}s with $jobs job(s): corpus $corpus, seeds $seeds, log $log"
start=$(date +%s)
touch "$log.start"
rc=0
# libFuzzer writes the jobs' logs (fuzz-N.log) to its working directory.
(cd "$build" && exec "$fuzzer" "${args[@]}" "$@" "$corpus" "$seeds") >"$log" 2>&1 || rc=$?
elapsed=$(($(date +%s) - start))

logs=("$log")
if [[ $jobs -gt 1 ]]; then
	logs=("$build"/fuzz-[0-9]*.log)
fi
# Per job: the executions (final stats, else the last status line), and
# the coverage of its last status line (pulse, NEW, DONE...).
execs=0
cov=0
ft=0
corp=
for l in "${logs[@]}"; do
	[[ -f $l ]] || continue
	last=$(grep -E '^#[0-9]+' "$l" | tail -n 1 || true)
	n=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$l" | tail -n 1)
	[[ -n $n ]] || n=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
	execs=$((execs + ${n:-0}))
	c=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
	f=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
	[[ ${c:-0} -le $cov ]] || cov=$c
	[[ ${f:-0} -le $ft ]] || ft=$f
	corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9a-zA-Z]+).*/\1/p' <<<"$last")
done
info "executions: $execs in ${elapsed}s ($((execs / (elapsed > 0 ? elapsed : 1))) exec/s, $jobs job(s))"
info "coverage:   cov $cov (edges) ft $ft (features, the best job), corpus ${corp:-?}"
if [[ $rc -ne 0 ]] && grep -q 'libFuzzer: run interrupted' "${logs[@]}" &&
	[[ -z $(find "$artifacts" -type f -newer "$log.start" 2>/dev/null) ]]; then
	info "stopped by a signal; no crash, leak, WARN or hang found until then"
	exit 0
fi
if [[ $rc -ne 0 ]]; then
	grep -E -A3 'ERROR|SUMMARY|npu_fuzz:|WARNING at' "${logs[@]}" | head -n 40 >&2 || true
	ls -l "$artifacts" >&2 || true
	die "the fuzzer found a problem (exit $rc): artifacts in $artifacts, full log in $log"
fi
info "no crash, leak, WARN or hang found"
