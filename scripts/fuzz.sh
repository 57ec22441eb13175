#!/bin/sh
# Builds the config-parser and journal fuzz targets with clang (libFuzzer +
# ASan + UBSan) into build-fuzz (or $BUILD_DIR) and fuzzes the parser for
# SECONDS (default 60) and, beside it, the journal for half as long.
# Usage: scripts/fuzz.sh [SECONDS] [extra libFuzzer options, e.g. -jobs=2]
# New inputs go to $WORK_CORPUS (default build-fuzz/corpus), seeded from
# tests/fuzz/corpus; a crash, leak, timeout or broken promise is copied to
# tests/fuzz/regressions/ and the script exits non-zero.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-fuzz}
SECONDS_TO_RUN=${1:-60}
[ $# -gt 0 ] && shift
FUZZ=$ROOT/tests/fuzz
WORK_CORPUS=${WORK_CORPUS:-$BUILD_DIR/corpus}

# clang and its runtime libraries (libFuzzer, ASan) besides the usual set.
"$ROOT/scripts/setup.sh" clang libclang-rt-14-dev
CC=${CC:-clang}
case $("$CC" --version 2>/dev/null | head -n 1) in
*clang*) ;;
*) echo "fuzz: CC=$CC is not clang; libFuzzer needs clang" >&2; exit 1 ;;
esac
export CC
cmake -S "$ROOT" -B "$BUILD_DIR" -DSSW_FUZZ=ON -DSSW_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build "$BUILD_DIR" --target fuzz_config fuzz_journal -j "$(nproc)" \
  >/dev/null

mkdir -p "$WORK_CORPUS" "$BUILD_DIR/artifacts"
rm -f "$BUILD_DIR"/artifacts/*
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
# -timeout: an input slower than 10 s is a hang; -rss_limit_mb: a config
# must not make the parser take more than 2 GB.
# The regression inputs are replayed by CTest (test_fuzz_replay), not used
# as seeds: some are slow by nature (resource findings) and would eat the
# run's time.
# The journal reader and writer, half as long and beside the parser's run
# (each fuzzer is one process on one core): every undamaged record of a
# fuzzed journal must be read back.
mkdir -p "$BUILD_DIR/journal_corpus"
"$BUILD_DIR/tests/fuzz/fuzz_journal" "$BUILD_DIR/journal_corpus" \
  "$FUZZ/journal_corpus" -max_len=512 \
  -max_total_time="$(( (SECONDS_TO_RUN + 1) / 2 ))" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$BUILD_DIR/artifacts/journal-" \
  >"$BUILD_DIR/fuzz-journal.log" 2>&1 &
journal=$!
"$BUILD_DIR/tests/fuzz/fuzz_config" "$WORK_CORPUS" "$FUZZ/corpus" \
  -dict="$FUZZ/config.dict" -max_len=4096 -max_total_time="$SECONDS_TO_RUN" \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$BUILD_DIR/artifacts/" "$@" \
  >"$BUILD_DIR/fuzz.log" 2>&1 || status=$?

# The journal fuzzer runs beside it (libFuzzer keeps one core busy).
wait "$journal" || status=$?
cat "$BUILD_DIR/fuzz-journal.log" >>"$BUILD_DIR/fuzz.log"

# The coverage reached (last status line), the statistics, any finding.
grep -E '(INITED|NEW|REDUCE|pulse|DONE) +cov:' "$BUILD_DIR/fuzz.log" |
  tail -n 1 >&2 || true
grep -E 'stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^==[0-9]+==ERROR|^SUMMARY|broken promise' \
  "$BUILD_DIR/fuzz.log" >&2 || true
found=0
for a in "$BUILD_DIR"/artifacts/*; do
  [ -f "$a" ] || continue
  dest=regressions
  case $(basename "$a") in journal-*) dest=journal_corpus ;; esac
  cp "$a" "$FUZZ/$dest/"
  echo "fuzz: finding saved as tests/fuzz/$dest/$(basename "$a")" >&2
  found=1
done
if [ $status -ne 0 ] || [ $found -ne 0 ]; then
  echo "fuzz: FAILED (status $status); log: $BUILD_DIR/fuzz.log" >&2
  exit 1
fi
echo "fuzz: no findings in $SECONDS_TO_RUN s" >&2
