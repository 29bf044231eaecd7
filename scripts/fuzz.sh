#!/usr/bin/env bash
# Runs one fuzz target with libFuzzer for SECONDS, then reports its executions and crashes.
#
#   scripts/fuzz.sh TARGET SECONDS        # TARGET: json ndjson quickdraw-bin npy npz stroke3 omniglot safetensors model-spec svg-metadata photo
#   scripts/fuzz.sh all SECONDS           # every target in turn, SECONDS each
#   scripts/fuzz.sh build                 # only build the harness
#
# The harness (Fuzz/) is built once into .build-fuzz with -sanitize=fuzzer,address. Seeds come
# from ../shared/data, Models and the installed pictures (Fuzz/make_seeds.py), plus every input
# in Fuzz/Regressions/TARGET; the corpus grows in out/fuzz/corpus/TARGET between runs. An input
# that crashes, leaks, takes over 2 s (10 s for the model targets) or allocates over 512 MiB at once is saved under
# out/fuzz/crashes/TARGET and the script fails: minimise it (add -minimize_crash=1 -runs=10000
# to a run on it), fix the parser and copy the input into Fuzz/Regressions/TARGET, where the
# Swift tests (FuzzRegressionTests) replay it on every `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
# The sanitised harness is built without make test's -O for the hot loops (Package.swift), whoever
# calls this script (make fuzz, or a shell where make test's setting was exported).
unset SKETCHWISE_OPTIMIZE_DEBUG
[ $# -eq 2 ] || [ "$*" = build ] || { sed -n '2,5p' "$0" >&2; exit 2; }
target=$1
seconds=${2:-0}
targets=(json ndjson quickdraw-bin npy npz stroke3 omniglot safetensors model-spec svg-metadata photo connection)
if [ "$target" = all ]; then
  status=0
  for each in "${targets[@]}"; do "$0" "$each" "$seconds" || status=1; export SKETCHWISE_FUZZ_NO_BUILD=1; done
  exit $status
fi
[[ " ${targets[*]} build " == *" $target "* ]] || { echo "unknown target $target (${targets[*]})" >&2; exit 2; }

# The harness links with LLVM's lld, which ships with Swift (gold fails on the sanitised objects).
mkdir -p out/fuzz
lld=$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld
printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" > out/fuzz/toolset.json
build=(swift build --package-path Fuzz -c debug --scratch-path .build-fuzz --toolset "$PWD/out/fuzz/toolset.json" -Xswiftc -sanitize=fuzzer,address)
if [ -z "${SKETCHWISE_FUZZ_NO_BUILD:-}" ]; then
  echo "building the fuzz harness (debug, -sanitize=fuzzer,address)…"
  "${build[@]}" 2>&1 | grep -E "error:|Compiling|Build complete" | tail -3
fi
[ "$target" = build ] && exit 0
binary=$("${build[@]}" --show-bin-path)/sketchwise-fuzz
[ -x "$binary" ] || { echo "no harness at $binary" >&2; exit 1; }

seeds=out/fuzz/seeds/$target
corpus=out/fuzz/corpus/$target
crashes=out/fuzz/crashes/$target
regressions=Fuzz/Regressions/$target
mkdir -p "$seeds" "$corpus" "$crashes" "$regressions"
python3 Fuzz/make_seeds.py "$target" "$seeds"
scratch=$(mktemp -d "${TMPDIR:-/dev/shm}/sketchwise-fuzz.XXXXXX" 2>/dev/null || mktemp -d)
log=$(mktemp)
trap 'rm -rf "$scratch" "$log"' EXIT

# Loading a model validates a 1.4 MB weights file, slow under ASan on a busy machine.
per_input=2
case $target in safetensors|model-spec) per_input=10 ;; esac
echo "fuzzing $target for ${seconds}s…"
started=$SECONDS
set +e
SKETCHWISE_FUZZ_TARGET=$target SKETCHWISE_FUZZ_SCRATCH=$scratch SKETCHWISE_MODELS=Models \
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0 \
  "$binary" "$corpus" "$seeds" "$regressions" \
  -max_total_time="$seconds" -timeout="$per_input" -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$crashes/" > "$log" 2>&1
code=$?
set -e
runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
per_second=$(grep -E "^stat::average_exec_per_sec" "$log" | awk '{print $2}')
found=$(find "$crashes" -type f | wc -l)
echo "RESULT $target: ${runs:-0} executions in $((SECONDS - started))s (${per_second:-0}/s), corpus $(find "$corpus" -type f | wc -l) inputs, crashes $found, exit $code"
if [ $code -ne 0 ] || [ "$found" -gt 0 ]; then
  grep -E "ERROR|SUMMARY|Test unit written|==[0-9]+==" "$log" | head -20 >&2
  exit 1
fi
