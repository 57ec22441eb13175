#!/bin/sh
# ThreadSanitizer run of the OpenMP code: builds sleighsweep and
# test_grid with clang, -fsanitize=thread and LLVM's libomp into build-tsan
# (or $BUILD_DIR), with Archer (libarcher.so) so TSan understands OpenMP's
# synchronisation, then runs the parallel grid validation, a sweep with 2
# threads and a 2-rank x 2-thread sweep under mpirun. A racy OpenMP canary
# must be reported first, so a set-up that detects nothing fails here.
# Open MPI and HDF5 are not instrumented: reports whose racy access lies in
# them are ignored (ignore_noninstrumented_modules).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-tsan}
"$ROOT/scripts/setup.sh" clang libomp-14-dev
ARCHER=${ARCHER:-/usr/lib/llvm-14/lib/libarcher.so}
[ -f "$ARCHER" ] || { echo "tsan: $ARCHER missing (libomp-14-dev)" >&2; exit 1; }
TS="-fsanitize=thread"
CC=clang cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSSW_BENCH=OFF -DCMAKE_C_FLAGS="$TS" -DCMAKE_EXE_LINKER_FLAGS="$TS" \
  -DCMAKE_SHARED_LINKER_FLAGS="$TS" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target sleighsweep test_grid \
  >/dev/null

export OMP_TOOL_LIBRARIES="$ARCHER" OMP_NUM_THREADS=2
export TSAN_OPTIONS="ignore_noninstrumented_modules=1:halt_on_error=1:exitcode=66"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The canary: an unsynchronised sum over an OpenMP loop.
printf '%s\n' '#include <stdio.h>' 'int main(void) { int s = 0;' \
  '#pragma omp parallel for' 'for (int i = 0; i < 1000; i++) s += i;' \
  'printf("%d\n", s); return 0; }' >"$work/race.c"
clang -fopenmp $TS -g "$work/race.c" -o "$work/race"
if "$work/race" >"$work/race.log" 2>&1; then
  echo "tsan: FAILED: the racy canary was not reported" >&2
  exit 1
fi

status=0
step() { # name, command...: runs it, keeping TSan's report on failure
  name=$1
  shift
  if "$@" >"$work/$name.log" 2>&1; then
    echo "tsan: $name: no race reported" >&2
  else
    status=1
    echo "tsan: $name: FAILED" >&2
    grep -A30 "WARNING: ThreadSanitizer" "$work/$name.log" >&2 ||
      tail -20 "$work/$name.log" >&2
  fi
}
sed "s|\[output\]|[output]\nfile = $work/s1.h5|" \
  "$ROOT/tests/sweep/sweep_small.ini" >"$work/s1.ini"
sed "s|\[output\]|[output]\nfile = $work/s2.h5|" \
  "$ROOT/tests/sweep/sweep_small.ini" >"$work/s2.ini"
step grid "$BUILD_DIR/tests/test_grid"
step sweep_1x2 "$BUILD_DIR/sleighsweep" run --quiet "$work/s1.ini"
step sweep_2x2 mpirun -x TSAN_OPTIONS -x OMP_TOOL_LIBRARIES -x OMP_NUM_THREADS \
  --oversubscribe -np 2 "$BUILD_DIR/sleighsweep" run --quiet "$work/s2.ini"
[ $status -eq 0 ] && echo "tsan: no data races found" >&2
exit $status
