#!/bin/sh
# The batch kernel of revision REV against the working tree's, side by side
# in one process (tests/bench/kernel_ab.c): REV's src/integrators/stepper.c
# is compiled with the build's flags, its symbols renamed old_*, and linked
# beside the current build's library. Valid only while the stepper's and
# the model's headers are the same in REV and now (checked).
# Usage: scripts/kernel-ab.sh REV [ROUNDS [SCHEME]]   (BUILD_DIR: ./build)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
REV=${1:?usage: scripts/kernel-ab.sh REV [ROUNDS [SCHEME]]}
shift
cd "$ROOT"
# (Changes to comment lines alone do not count.)
if ! git diff --quiet -I'^[[:space:]]*(/\*|\*)' "$REV" -- \
  include/sleighsweep/stepper.h \
  include/sleighsweep/model.h include/sleighsweep/ode.h; then
  echo "kernel-ab: the stepper's or model's headers differ from $REV;" \
    "its object would not match this library" >&2
  exit 1
fi
LIB=$BUILD_DIR/libsleighsweep_core.a
[ -f "$LIB" ] || { echo "kernel-ab: build first ($LIB missing)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git archive "$REV" src/integrators include | tar -x -C "$TMP"
FLAGS="-O3 -DNDEBUG -std=c17 -ffp-contract=off -fno-fast-math -D_GNU_SOURCE"
# The stepper and, from 8-lane revisions on, its kernels (batch*.c) as one
# object, every symbol it defines renamed old_*.
OBJS=
for f in "$TMP"/src/integrators/stepper.c "$TMP"/src/integrators/batch*.c; do
  [ -f "$f" ] || continue
  o="$TMP/$(basename "$f" .c).o"
  # The kernels compiled for an instruction set (CMakeLists.txt) from the
  # FMA revisions on.
  case $f in
  *_avx2.c) ISA="-mavx2 -mfma" ;;
  *_avx512.c) ISA="-mavx512f -mavx512dq -mavx512vl -mfma" ;;
  *) ISA= ;;
  esac
  # shellcheck disable=SC2086
  cc $FLAGS $ISA -I"$TMP/include" -c "$f" -o "$o"
  OBJS="$OBJS $o"
done
# shellcheck disable=SC2086
ld -r -o "$TMP/old.o" $OBJS
nm --defined-only -g "$TMP/old.o" | awk '{print $3" old_"$3}' >"$TMP/syms"
objcopy --redefine-syms="$TMP/syms" "$TMP/old.o"
HDF5=$(pkg-config --libs hdf5-openmpi 2>/dev/null ||
  echo "-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5")
# shellcheck disable=SC2046,SC2086
mpicc $FLAGS -fopenmp -Iinclude -Itests tests/bench/kernel_ab.c "$TMP/old.o" \
  "$LIB" -lhdf5_hl $HDF5 $(pkg-config --libs inih) -lm -o "$TMP/kernel_ab"
"$TMP/kernel_ab" "$@"
