#!/bin/sh
# The reference set of results: `point` JSON for every scheme (adaptive and
# fixed steps, with and without circulation, with and without drag, both
# reconstructions) and a few small sweep files (jobs/examples, a drag sweep,
# a [refine] one), so that a change meant to keep every bit can be checked
# against the engine of another revision.
# Usage: scripts/refset.sh make BINARY OUTDIR
#        scripts/refset.sh compare DIR_A DIR_B
# `compare` ignores only the version and provenance fields (the JSON's
# "version" and "git_revision"; the files' version, git_revision, times,
# host, command line, config path and /segments' wall times): any other
# byte that differs is reported, and the exit status is 1.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
SCHEMES="hamel2 hamel4 hamel4s hamel6 hamel8 rk4 dopri5 rattle"

make_points() {
  bin=$1 out=$2
  for s in $SCHEMES; do
    for step in "--rtol 1e-7" "--eta 0.5"; do
      tag=$(echo "$step" | tr -d ' -')
      # plain, circulation (asymptotic and periodic), drag, both
      for phys in "" "--Gamma 0.5 --r 0.3" "--Gamma 3 --r 0.3 --omega0 0.2 --v0 0.1" \
        "--drag-w 0.05 --drag-v 0.02 --drag-wv 0.01" \
        "--Gamma 0.5 --r 0.3 --drag-v 0.03"; do
        ptag=$(echo "$phys" | tr -d ' -' | tr '.' 'p')
        f="$out/point_${s}_${tag}_${ptag:-plain}"
        traj=
        [ "$tag" = rtol1e7 ] || traj="--trajectory $f.csv" # small files only
        # shellcheck disable=SC2086
        "$bin" point --scheme "$s" $step $phys --max-steps 400000 $traj \
          >"$f.json" 2>"$f.err" || echo "exit $?" >>"$f.err"
      done
    done
    f="$out/point_${s}_midpoint"
    "$bin" point --scheme "$s" --reconstruction midpoint --rtol 1e-6 --theta 100deg \
      --a -0.1 --b 0.05 --r 0.1 --s -0.05 >"$f.json" 2>"$f.err" || echo "exit $?" >>"$f.err"
    f="$out/point_${s}_noest"
    "$bin" point --scheme "$s" --no-error-estimate --no-tail --rtol 1e-6 \
      --omega0 -0.7 \
      >"$f.json" 2>"$f.err" || echo "exit $?" >>"$f.err"
  done
}

make_sweeps() {
  bin=$1 out=$2
  for j in tiny refine_a_theta fig_gamma_energy; do
    sed "s/^file = .*/file = $j.h5/" "$ROOT/jobs/examples/$j.ini" >"$out/$j.ini"
    (cd "$out" && "$bin" run "$j.ini" >"$j.log" 2>&1) || echo "exit $?" >>"$out/$j.log"
  done
  for s in $SCHEMES; do
    for extra in "" "drag"; do
      j="tiny_${s}${extra:+_$extra}"
      {
        sed -e "s/^; file defaults.*/file = $j.h5/" \
          "$ROOT/jobs/examples/tiny.ini"
        printf '\n[integrator]\nscheme = %s\nrtol = 1e-7\n' "$s"
      } >"$out/$j.ini"
      if [ -n "$extra" ]; then
        sed -i 's/^rho = 1 .*/rho = 1\ndrag_w = 0.05\ndrag_v = 0.02/' "$out/$j.ini"
      else
        sed -i 's/^rho = 1 .*/rho = 1\nGamma = 0.4/; s/^A = 0.5 .*/A = 0.5\nr = 0.2/' \
          "$out/$j.ini"
      fi
      (cd "$out" && "$bin" run "$j.ini" >"$j.log" 2>&1) || echo "exit $?" >>"$out/$j.log"
    done
  done
}

case ${1:-} in
make)
  bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  mkdir -p "$3"
  out=$(cd "$3" && pwd)
  make_points "$bin" "$out"
  make_sweeps "$bin" "$out"
  echo "refset: $(ls "$out" | wc -l) files in $out"
  ;;
compare)
  exec "$PY" "$ROOT/scripts/refset_compare.py" "$2" "$3"
  ;;
*)
  echo "usage: $0 make BINARY OUTDIR | compare DIR_A DIR_B" >&2
  exit 2
  ;;
esac
