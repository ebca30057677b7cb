#!/usr/bin/env bash
# Installs what is missing and runs the test stages named in TETHER_STAGES (comma-separated):
#   debug  builds debug (warnings are errors) and runs every test; arguments go to ctest
#   asan   builds, with clang, AddressSanitizer and UndefinedBehaviorSanitizer, the unit and
#          integration tests and the fuzzers, and runs the tests (arguments, when given, narrow
#          its ctest further)
#   fuzz   runs each fuzzer of that tree for TETHER_FUZZ_SECONDS (15), building it if needed
# Without TETHER_STAGES: every stage, as CI runs them (.ci/run), or debug alone when arguments
# are given, so that `scripts/test.sh -L unit` stays quick. Fails at the first stage that fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ -n "${TETHER_STAGES:-}" ]; then
    IFS=, read -ra stages <<< "$TETHER_STAGES"
elif [ $# -gt 0 ]; then
    stages=(debug)
else
    stages=(debug asan fuzz)
fi
for stage in "${stages[@]}"; do
    case $stage in
        debug | asan | fuzz) ;;
        *) echo "tether: unknown test stage '$stage' in TETHER_STAGES: the stages are debug, asan and fuzz" >&2; exit 2 ;;
    esac
done

# Tests run as many at a time as there are cores: most of them wait on servers and sockets, and
# the benchmarks' smoke tests run alone (RUN_SERIAL).
tether_test_jobs=$(nproc)

# On CI the debug tree keeps line tables only (-g1): backtraces still name file and line, and
# the tree builds in about two thirds of the time.
stage_debug() {
    tether_install_npm_packages
    tether_extract_promtool
    local tether_configure_args=()
    if [ "${CI:-}" = true ]; then
        tether_configure_args=(-DCMAKE_CXX_FLAGS_DEBUG=-g1)
    fi
    tether_build debug
    (cd "$tether_root/build/debug" && ctest --output-on-failure --timeout 300 --parallel "$tether_test_jobs" "$@")
}

# The asan test preset picks the unit and integration tests and sets the sanitizers' options:
# halt at the first report, leaks included.
# One clang tree serves both sanitizer stages: the fuzzers are built along with the tests.
stage_asan() {
    tether_install_packages "${tether_sanitizer_packages[@]}"
    tether_install_npm_packages
    tether_build asan tests_unit tests_integration tether-fuzzers
    (cd "$tether_root" && ctest --preset asan --timeout 300 --parallel "$tether_test_jobs" "$@")
}

# One fuzzer for TETHER_FUZZ_SECONDS: it reads its seeds in fuzz/corpus/<name>/ and keeps what
# it finds in build/asan/fuzz-corpus/<name>/; an input that fails is saved as
# build/asan/findings/<name>-crash-… (or leak-, timeout-, oom-…), its output in <name>.log.
run_fuzzer() {
    local name=$1 build="$tether_root/build/asan" seconds=${TETHER_FUZZ_SECONDS:-15}
    mkdir -p "$build/fuzz-corpus/$name" "$build/findings"
    if "$build/fuzz/tether-fuzz-$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/findings/$name-" "$build/fuzz-corpus/$name" "$tether_root/fuzz/corpus/$name" \
        > "$build/findings/$name.log" 2>&1; then
        echo "tether: fuzzer $name ran $(grep -o -m1 'number_of_executed_units: [0-9]*' "$build/findings/$name.log" | cut -d' ' -f2) inputs in $seconds s: nothing found"
        return 0
    fi
    echo "tether: fuzzer $name failed; its log $build/findings/$name.log ends:" >&2
    tail -n 60 "$build/findings/$name.log" >&2
    echo "tether: once it is fixed, copy the failing input from $build/findings/ into fuzz/corpus/$name/," \
        "so that tst_fuzzcorpus replays it in every test run" >&2
    return 1
}

# Every fuzzer, as many at a time as there are cores.
stage_fuzz() {
    tether_install_packages "${tether_sanitizer_packages[@]}"
    tether_build asan tether-fuzzers
    local corpus jobs=() job failed=0
    for corpus in "$tether_root"/fuzz/corpus/*/; do
        run_fuzzer "$(basename "$corpus")" &
        jobs+=($!)
        if [ ${#jobs[@]} -ge "$(nproc)" ]; then
            wait "${jobs[0]}" || failed=1
            jobs=("${jobs[@]:1}")
        fi
    done
    for job in "${jobs[@]}"; do
        wait "$job" || failed=1
    done
    return $failed
}

tether_install_packages "${tether_apt_packages[@]}" "${tether_package_apt_packages[@]}" "${tether_keyring_test_packages[@]}"
timings=()
report_timings() {
    [ ${#timings[@]} -gt 0 ] && printf 'tether: stage %s\n' "${timings[@]}" >&2
    return 0
}
trap report_timings EXIT
for stage in "${stages[@]}"; do
    started=$SECONDS
    "stage_$stage" "$@"
    timings+=("$stage took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s")
done
