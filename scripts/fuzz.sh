#!/usr/bin/env bash
# Runs every libFuzzer target of reel-fuzz (Tests/Fuzz/Harness) for SECONDS each and prints one line per target.
#
#   scripts/fuzz.sh BINARY SECONDS [TARGET...]
#
# With FUZZ_RUNS=N in the environment a target also stops after N executions (libFuzzer's -runs), whichever comes
# first: `FUZZ_RUNS=1000000` with a generous SECONDS runs each target to issue 20's goal.
#
# Corpora live in .build/fuzz/corpus/TARGET (kept between runs, never committed). They start from the small seeds
# in Tests/Fuzz/Seeds/TARGET, the example project, and the interchange files in ../shared/interchange (or
# $INTERCHANGE_DIR), copied at fuzz time. A crash, a hang over 1 s (-timeout=1) or a leak stops the target and
# leaves its input in .build/fuzz/artifacts/; copy it to Tests/Fuzz/Regressions/TARGET/ and fix the bug: the
# normal test suite replays every file there (FuzzRegressionTests).
set -euo pipefail

binary=$1
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json project cmx otio srt vtt ass transcript)

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/.build/fuzz
interchange=${INTERCHANGE_DIR:-$root/../../shared/interchange}
[ -d "$interchange" ] || interchange=/work/shared/interchange
captions=${CAPTIONS_DIR:-$root/../../shared/captions}
[ -d "$captions" ] || captions=/work/shared/captions
mkdir -p "$work/artifacts" "$work/logs"

seed() {
    local target=$1 corpus=$2
    mkdir -p "$corpus"
    cp -n "$root"/Tests/Fuzz/Seeds/"$target"/* "$corpus"/ 2>/dev/null || true
    cp -n "$root"/Tests/Fuzz/Regressions/"$target"/* "$corpus"/ 2>/dev/null || true
    case $target in
        json|project) cp -n "$root"/examples/*.json "$corpus"/ 2>/dev/null || true ;;
    esac
    if [ -d "$captions" ]; then
        local kind
        case $target in
            srt) kind='*.srt' ;;
            vtt) kind='*.vtt' ;;
            ass) kind='*.ass' ;;
            transcript) kind='json_*.json' ;;
            *) kind='' ;;
        esac
        if [ -n "$kind" ]; then
            find "$captions" -type f -name "$kind" -size -256k | while read -r file; do
                cp -n "$file" "$corpus/$(basename "$file")"
            done
            [ "$target" = ass ] && find "$captions" -type f -name '*.ssa' -exec cp -n {} "$corpus"/ \;
        fi
    fi
    if [ -d "$interchange" ]; then
        local pattern
        case $target in
            cmx) pattern='*.edl' ;;
            otio|json) pattern='*.otio' ;;
            *) return 0 ;;
        esac
        find "$interchange" -type f -name "$pattern" -size -256k | while read -r file; do
            cp -n "$file" "$corpus/$(echo "$file" | md5sum | cut -c1-12)-$(basename "$file")"
        done
    fi
}

status=0
for target in "${targets[@]}"; do
    corpus=$work/corpus/$target
    seed "$target" "$corpus"
    log=$work/logs/$target.log
    start=$(date +%s)
    set +e
    ASAN_OPTIONS=detect_leaks=1 "$binary" "$target" "$corpus" \
        -max_total_time="$seconds" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=1 -rss_limit_mb=2048 -max_len=8192 -detect_leaks=1 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" >"$log" 2>&1
    code=$?
    set -e
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
    found=$(find "$work/artifacts" -name "$target-*" | wc -l)
    echo "fuzz: $target: ${runs:-?} executions in $(( $(date +%s) - start )) s, exit $code, $found failing inputs in .build/fuzz/artifacts (log: $log)"
    [ "$code" -eq 0 ] || status=1
done
exit $status
