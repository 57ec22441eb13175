#!/bin/sh
# Builds sleighsweep with AddressSanitizer + UBSan into build-asan (or
# $BUILD_DIR) and runs the CTest suite under the sanitizers (LeakSanitizer
# included): every test program of our own C (label unit) on every run,
# and one shard of the other tests (the engine run by Python and mpirun),
# so that CI stays under 20 minutes on 2 cores while successive commits
# cover every test (docs/reliability-fuzzing.md, "Which tests, which run").
# Usage: scripts/sanitize.sh [ctest options, e.g. -R config]
#   (with ctest options: those tests only, no shards)
# SANITIZE_SHARDS=K      split the other tests into K shards (default 3;
#                        1 runs them all)
# SANITIZE_SHARD=S       the shard to run, 0 .. K-1 (default: HEAD's commit
#                        id mod K, so that commits spread over the shards)
# SANITIZE_EXCLUDE_LABELS  a ctest -LE regex of tests never run here
#                        (default "slurm|durability|scheduling|analysis|gallery";
#                        "" runs everything): the SLURM tests either run no
#                        code of ours (smoke, sbatch flow with a fake engine)
#                        or race a 1-minute job time limit that the sanitized
#                        engine cannot meet (slurm_sweep); the durability
#                        tests (test_resume, test_syskill: 5 and 10+ min
#                        sanitized) repeat runs of the code that test_sweep,
#                        test_kill and the journal fuzz replay take through
#                        the sanitizers; test_epochs (scheduling) repeats
#                        test_sweep's scheduling at 70 s; the analysis tests
#                        spend their time in Python and matplotlib, on
#                        sweeps the other tests make.
# Leak reports from Open MPI's runtime are suppressed by library
# (tests/fuzz/lsan.supp); see docs/reliability-fuzzing.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-asan}
"$ROOT/scripts/setup.sh"
start=$(date +%s)
# -g1: line tables and function names, all a sanitizer's report prints,
# and a third less compile time than -g (85 against 123 CPU-s).
cmake -S "$ROOT" -B "$BUILD_DIR" -DSSW_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG=-g1 -DSSW_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
built=$(date +%s)

# Every sanitized process (also those started by mpirun and by the Python
# tests, which inherit the environment) reads these.
# - abort_on_error: a finding kills the test, whatever it prints.
# - detect_leaks stays on, MPI programs included: Open MPI's exit-time
#   allocations are suppressed by library (tests/fuzz/lsan.supp), which
#   needs full allocation stacks, hence fast_unwind_on_malloc=0 (Open MPI
#   has no frame pointers and unloads its components in MPI_Finalize).
#   The leak check costs ~3 s at every MPI process exit, about half the
#   suite's time: SANITIZE_DETECT_LEAKS=0 trades it away for speed.
LEAKS=${SANITIZE_DETECT_LEAKS:-1}
export ASAN_OPTIONS="detect_leaks=$LEAKS:abort_on_error=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

cd "$BUILD_DIR"
status=0
# batch: seeded batches of `point` runs (test_honest_schemes, 3 min plain),
# whose C paths the unit tests (test_honest, test_damped, test_schemes)
# already run under the sanitizers.
EXCLUDE=${SANITIZE_EXCLUDE_LABELS-slurm|durability|scheduling|analysis|gallery|batch}
if [ $# -gt 0 ]; then
  ctest --output-on-failure -j 2 ${EXCLUDE:+-LE "$EXCLUDE"} "$@" || status=$?
else
  K=${SANITIZE_SHARDS:-3}
  if [ -n "${SANITIZE_SHARD:-}" ]; then S=$SANITIZE_SHARD
  else
    # The commit's id picks it (a shallow clone has one commit to count).
    id=$(git -C "$ROOT" rev-parse --short=7 HEAD 2>/dev/null || echo 0)
    S=$(( 0x$id % K ))
  fi
  # The other tests in ctest's order and the shard's share of them: every
  # K-th from S, of the heavy ones (label heavy) and of the rest apart, so
  # that the slowest spread over the shards.
  shard() {
    ctest -N "$@" | sed -n 's/^ *Test *#[0-9]*: \(.*\)$/\1/p' |
      awk -v k="$K" -v s="$S" '(NR - 1) % k == s { printf "%s^%s$", \
        (n++ ? "|" : ""), $0 }'
  }
  heavy=$(shard -L heavy ${EXCLUDE:+-LE "$EXCLUDE"})
  rest=$(shard -LE "unit|heavy${EXCLUDE:+|$EXCLUDE}")
  others=$heavy${heavy:+${rest:+|}}$rest
  echo "sanitize: every unit test and shard $S of $K of the others:" \
    "${others:-none}" >&2
  # The unit tests run beside the shard (each ctest's output kept and
  # printed after both), so that neither's last test runs alone.
  unit_log=$BUILD_DIR/sanitize-unit.log
  ctest --output-on-failure -j 2 -L unit ${EXCLUDE:+-LE "$EXCLUDE"} \
    >"$unit_log" 2>&1 &
  unit=$!
  # The others are end-to-end runs (mpirun, Python): every MPI process
  # exit would cost the leak check ~3 s, about half of their time, for
  # leaks Open MPI's own teardown dominates. The unit tests above keep the
  # leak check on our C; SANITIZE_END_TO_END_LEAKS=1 turns it on here too.
  # Without the leak check the full allocation stacks its suppressions
  # need are not needed either (fast_unwind_on_malloc=1), and the
  # use-after-return check (a fake stack frame for every call, a quarter
  # of these tests' time: test_status 166 s with it, 120 s without) stays
  # with the unit tests, which run the same C: every other check of
  # AddressSanitizer and UBSan stays on. SANITIZE_END_TO_END_FULL=1 keeps
  # all of them here as well.
  if [ -n "$others" ]; then
    E2E_LEAKS=${SANITIZE_END_TO_END_LEAKS:-0}
    [ "$LEAKS" = 0 ] && E2E_LEAKS=0
    E2E=$(echo "$ASAN_OPTIONS" |
      sed "s/detect_leaks=[01]/detect_leaks=$E2E_LEAKS/")
    if [ "$E2E_LEAKS" = 0 ] && [ "${SANITIZE_END_TO_END_FULL:-0}" != 1 ]
    then
      E2E=$(echo "$E2E" |
        sed -e "s/fast_unwind_on_malloc=0/fast_unwind_on_malloc=1/" \
          -e "s/use_after_return=1/use_after_return=0/")
    fi
    ASAN_OPTIONS=$E2E ctest --output-on-failure -j 2 -R "$others" ||
      status=$?
  fi
  wait "$unit" || status=$?
  echo "---- unit tests under the sanitizers ($unit_log)"
  cat "$unit_log"
fi
end=$(date +%s)
echo "sanitize: build $((built - start)) s, tests $((end - built)) s," \
  "status $status" >&2
exit $status
