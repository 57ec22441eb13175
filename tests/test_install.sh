#!/bin/sh
# The installed tree works on its own: `cmake --install` into a temporary
# prefix, then a tiny sweep with the installed engine (mpirun -np 1, config
# copied out of the source tree) and a figure and a validation with the
# installed analysis scripts, all run from a scratch directory so nothing
# in the source or build tree is used.
# Usage: test_install.sh BUILD_DIR MPIEXEC PYTHON
set -eu
BUILD=$1 MPIEXEC=$2 PYTHON=$3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ssw-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix W=$TMP/work
mkdir -p "$W"

fail() { echo "test_install: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log" >&2; fail "cmake --install failed"; }

SHARE=$P/share/sleighsweep DOC=$P/share/doc/sleighsweep
for f in bin/sleighsweep share/sleighsweep/jobs/sweep.sbatch \
  share/sleighsweep/analysis/phase_diagram.py \
  share/sleighsweep/analysis/validate.py; do
  [ -x "$P/$f" ] || fail "$P/$f missing or not executable"
done
for f in "$SHARE/jobs/examples/tiny.ini" "$SHARE/jobs/README.md" \
  "$SHARE/analysis/_bootstrap.py" \
  "$P/lib/python3/dist-packages/sleighsweep/__init__.py" \
  "$DOC/README.md" "$DOC/LICENSE" "$DOC/docs/theory/model.md" \
  "$DOC/docs/config.md"; do
  [ -s "$f" ] || fail "$f missing or empty"
done

cd "$W"
cp "$SHARE/jobs/examples/tiny.ini" .
OMP_NUM_THREADS=1 "$MPIEXEC" -np 1 "$P/bin/sleighsweep" run --quiet \
  --output "$W/tiny.h5" "$W/tiny.ini" >run.out 2>run.err ||
  { cat run.err >&2; fail "installed sleighsweep run failed"; }
[ -s tiny.h5 ] || fail "no tiny.h5"

# The documented form, and the script run directly through its #! line.
env -u PYTHONPATH "$PYTHON" "$SHARE/analysis/phase_diagram.py" tiny.h5 \
  --x theta --y a --quantity sense_future --out "$W/sense.png" \
  >plot.out 2>&1 || { cat plot.out >&2; fail "installed phase_diagram.py failed"; }
[ -s sense.png ] || fail "no sense.png"
env -u PYTHONPATH "$SHARE/analysis/validate.py" tiny.h5 >validate.out 2>&1 ||
  { cat validate.out >&2; fail "installed validate.py failed"; }
echo "test_install: installed into $P, sweep, figure and validation OK"
