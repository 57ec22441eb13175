#!/bin/sh
# Installs what is missing, builds, and runs the main job on the built-in
# example: a 2-rank sweep of jobs/examples/tiny.ini (8 grid points) into
# build/tiny.h5, then one trajectory of the 2025 paper's seed case,
# build/seed.csv with its JSON beside it, build/seed.json (the pair
# analysis/trajectory.py reads). Everything goes into the build directory
# ($BUILD_DIR, default build/), nothing into the repository or the current
# directory. QUICKSTART_NO_BUILD=1 skips the install and build steps (the
# tests run the rest against an existing build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ "${QUICKSTART_NO_BUILD:-0}" != 1 ]; then
  "$ROOT/scripts/setup.sh"
  "$ROOT/scripts/build.sh"
fi
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpirun --oversubscribe -np 2 "$BUILD_DIR/sleighsweep" run --overwrite \
  --output "$BUILD_DIR/tiny.h5" "$ROOT/jobs/examples/tiny.ini"
"$BUILD_DIR/sleighsweep" point --trajectory "$BUILD_DIR/seed.csv" \
  > "$BUILD_DIR/seed.json"
echo "quickstart: sweep written to $BUILD_DIR/tiny.h5" >&2
echo "quickstart: seed case in $BUILD_DIR/seed.csv and" \
  "$BUILD_DIR/seed.json (plot: /usr/bin/python3 analysis/trajectory.py" \
  "$BUILD_DIR/seed.csv --out $BUILD_DIR/seed.pdf)" >&2
