#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run the libFuzzer harnesses (tests/fuzz): npu_fuzz, the driver
# under the mock kernel (ioctls, ring submissions, ring-header scribbles,
# failure injection, another process on our files, exec and death of an
# opener), and npud_fuzz, npud's FUSE/CUSE request handlers over the same
# driver (commands, buffer sizes, flags, caller tids, interrupts). Both
# run with ASan+UBSan and check leaks and WARNs after every input. The
# build is clang-only, in its own directory. The time is shared by the
# harnesses, which run one after the other. A long campaign may run on a
# UBSan-only build (--sanitizers undefined), about twice as fast; its
# working corpus is then replayed on the ASan+UBSan build, so every input
# it kept has run under ASan too.
# npu_fuzz reads the seed corpus tests/fuzz/corpus; what a run finds goes
# to the harness's working corpus (--corpus DIR: DIR/HARNESS). Crashes,
# leaks and hangs are written to BUILD_DIR/artifacts/ and make the script
# fail; reproduce one with
#   BUILD_DIR/tests/fuzz/HARNESS BUILD_DIR/artifacts/crash-...
set -euo pipefail

usage() {
	cat <<EOF
usage: scripts/fuzz.sh [--time SECONDS] [--harness NAME]... [--jobs N] [--corpus DIR]
                       [--build-dir DIR] [--sanitizers LIST] [--no-install]
                       [--no-build] [-h|--help]
                       [-- LIBFUZZER-ARGS...]
  --time SECONDS  how long to fuzz in all (default 600), shared evenly by the
                  harnesses (each at least 10 s); 0 = until stopped (one
                  harness only)
  --harness NAME  npu_fuzz or npud_fuzz; repeat it for both (the default)
  --jobs N        parallel fuzzing processes per harness sharing its corpus
                  (libFuzzer -jobs=N -workers=N; default 1); -runs=X then
                  counts per job
  --corpus DIR    working corpora, DIR/HARNESS, kept between runs
                  (default BUILD_DIR/corpus)
  --build-dir DIR clang build directory (default build-fuzz, or build-fuzz-ub
                  with --sanitizers undefined)
  --sanitizers LIST
                  address,undefined (the default) or undefined: fuzz without
                  ASan, then replay the working corpus on the ASan+UBSan build
                  in build-fuzz (one execution per input)
  --no-install    do not install missing apt packages (fail instead)
  --no-build      use the harnesses already built in BUILD_DIR
Prints executions per second and coverage (libFuzzer's cov and ft) of each
harness at the end; a harness's whole libFuzzer output is in
BUILD_DIR/fuzz-HARNESS.log (with --jobs, each job's in
BUILD_DIR/fuzz-HARNESS/fuzz-N.log).
EOF
}

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

time_s=600
jobs=1
corpus=
build=
sanitizers=address,undefined
install=1
do_build=1
harnesses=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--time)
		time_s=$2
		shift
		;;
	--harness)
		case $2 in
		npu_fuzz | npud_fuzz) harnesses+=("$2") ;;
		*) die "--harness wants npu_fuzz or npud_fuzz, got '$2'" ;;
		esac
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
	--sanitizers)
		case $2 in
		address,undefined | undefined) sanitizers=$2 ;;
		*) die "--sanitizers wants address,undefined or undefined, got '$2'" ;;
		esac
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
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(npu_fuzz npud_fuzz)
if [[ $time_s -eq 0 && ${#harnesses[@]} -gt 1 ]]; then
	die "--time 0 fuzzes until stopped: pick one --harness"
fi
share=$((time_s / ${#harnesses[@]}))
if [[ $time_s -gt 0 && $share -lt 10 ]]; then
	share=10
fi
asan_build=$NPU_ROOT/build-fuzz
if [[ -z $build ]]; then
	build=$asan_build
	[[ $sanitizers == address,undefined ]] || build=$NPU_ROOT/build-fuzz-ub
fi
build=$(realpath -m "$build")
corpus=$(realpath -m "${corpus:-$build/corpus}")
artifacts=$build/artifacts

if [[ $install -eq 1 ]]; then
	step "checking packages: ${NPU_BUILD_PACKAGES[*]} ${NPU_FUZZ_PACKAGES[*]}"
	ensure_packages "${NPU_BUILD_PACKAGES[@]}" "${NPU_FUZZ_PACKAGES[@]}"
fi
if [[ $do_build -eq 1 ]]; then
	# build_harnesses DIR SANITIZERS
	build_harnesses() {
		step "configuring $1 (clang, -DNPU_FUZZ=ON, -fsanitize=$2)"
		CC=clang CXX=clang++ cmake -S "$NPU_ROOT" -B "$1" -G "Unix Makefiles" \
			-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_FUZZ=ON \
			-DNPU_FUZZ_SANITIZERS="$2" >/dev/null
		step "building ${harnesses[*]} in $1"
		cmake --build "$1" --target "${harnesses[@]}" -j "$(nproc)"
	}
	build_harnesses "$build" "$sanitizers"
	if [[ $sanitizers != address,undefined ]]; then
		build_harnesses "$asan_build" address,undefined
	fi
fi
for h in "${harnesses[@]}"; do
	[[ -x $build/tests/fuzz/$h ]] || die "$build/tests/fuzz/$h missing: build it first (drop --no-build)"
	if [[ $sanitizers != address,undefined && ! -x $asan_build/tests/fuzz/$h ]]; then
		die "$asan_build/tests/fuzz/$h missing: build it first (drop --no-build)"
	fi
done
mkdir -p "$artifacts"

# -detect_leaks=0: the harnesses check the mock's leak counters after every
# input, which is cheaper than libFuzzer's per-input LSan pass (that stops
# every engine thread); LSan still checks the whole process at exit.
base_args=(-max_len=2048 -timeout=10 -rss_limit_mb=3072 -detect_leaks=0 -print_final_stats=1
	-artifact_prefix="$artifacts/")
if [[ $time_s -gt 0 ]]; then
	base_args+=(-max_total_time="$share")
fi
# The sanitizers stop at the first report; a smaller quarantine keeps the
# process near 1 GiB (the emulated HBM of two 64 MiB devices is in it too).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:quarantine_size_mb=64:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# fuzz_one HARNESS [LIBFUZZER-ARGS...]: run one harness and print its
# figures. Returns 0 if it found nothing (also when a signal stopped it
# before it found anything).
fuzz_one() {
	local h=$1
	local fuzzer=$build/tests/fuzz/$h log=$build/fuzz-$h.log dir=$build/fuzz-$h
	local hcorpus=$corpus/$h args=("${base_args[@]}") seeds=() logs=() rc=0
	local start elapsed execs=0 cov=0 ft=0 corp='' l last n c f
	shift
	if [[ $h == npu_fuzz ]]; then
		seeds=("$NPU_ROOT/tests/fuzz/corpus")
	fi
	mkdir -p "$hcorpus" "$dir"
	# Separate processes on one corpus, each reloading what the others
	# found (libFuzzer's -reload): -fork=N restarts its children every few
	# seconds, paying the corpus load each time, and ran at half the speed.
	if [[ $jobs -gt 1 ]]; then
		args+=(-jobs="$jobs" -workers="$jobs")
		rm -f "$dir"/fuzz-[0-9]*.log
	fi
	step "$h: fuzzing for ${share}s with $jobs job(s): corpus $hcorpus, seeds ${seeds[*]:-none}, log $log"
	start=$(date +%s)
	touch "$log.start"
	# libFuzzer writes the jobs' logs (fuzz-N.log) to its working directory.
	(cd "$dir" && exec "$fuzzer" "${args[@]}" "$@" "$hcorpus" "${seeds[@]}") >"$log" 2>&1 || rc=$?
	elapsed=$(($(date +%s) - start))

	logs=("$log")
	if [[ $jobs -gt 1 ]]; then
		logs=("$dir"/fuzz-[0-9]*.log)
	fi
	# Per job: the executions (final stats, else the last status line), and
	# the coverage of its last status line (pulse, NEW, DONE...).
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
	info "$h: executions: $execs in ${elapsed}s ($((execs / (elapsed > 0 ? elapsed : 1))) exec/s, $jobs job(s))"
	info "$h: coverage:   cov $cov (edges) ft $ft (features, the best job), corpus ${corp:-?}"
	if [[ $rc -ne 0 ]] && grep -q 'libFuzzer: run interrupted' "${logs[@]}" &&
		[[ -z $(find "$artifacts" -type f -newer "$log.start" 2>/dev/null) ]]; then
		info "$h: stopped by a signal; no crash, leak, WARN or hang found until then"
		[[ $sanitizers == address,undefined ]] || replay_asan "$h" "$hcorpus"
		return
	fi
	if [[ $rc -ne 0 ]]; then
		grep -E -A3 'ERROR|SUMMARY|npu_fuzz:|npud_fuzz:|WARNING at|BUG:' "${logs[@]}" |
			head -n 40 >&2 || true
		ls -l "$artifacts" >&2 || true
		printf 'error: %s found a problem (exit %s): artifacts in %s, full log in %s\n' \
			"$h" "$rc" "$artifacts" "$log" >&2
		return 1
	fi
	info "$h: no crash, leak, WARN or hang found"
	[[ $sanitizers == address,undefined ]] || replay_asan "$h" "$hcorpus"
}

# replay_asan HARNESS CORPUS: run every input of the working corpus once on
# the ASan+UBSan build.
replay_asan() {
	local h=$1 dir=$2 log=$build/replay-$1.log n rc=0
	n=$(find "$dir" -type f | wc -l)
	step "$h: replaying its $n corpus inputs on the ASan+UBSan build ($asan_build)"
	"$asan_build/tests/fuzz/$h" -runs=0 -detect_leaks=0 -timeout=10 -rss_limit_mb=3072 \
		-artifact_prefix="$artifacts/" "$dir" >"$log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		grep -E -A3 'ERROR|SUMMARY|npu_fuzz:|npud_fuzz:|WARNING at|BUG:' "$log" | head -n 40 >&2 || true
		printf 'error: %s: an input of the corpus fails under ASan (exit %s): log %s\n' \
			"$h" "$rc" "$log" >&2
		return 1
	fi
	info "$h: $n inputs replayed under ASan+UBSan: no crash, leak, WARN or hang"
}

failed=()
for h in "${harnesses[@]}"; do
	fuzz_one "$h" "$@" || failed+=("$h")
done
[[ ${#failed[@]} -eq 0 ]] || die "the fuzzer found a problem in: ${failed[*]}"
