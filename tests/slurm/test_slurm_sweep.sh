#!/usr/bin/env bash
# test_slurm_sweep.sh -- the real engine through jobs/sweep.sbatch on a
# private single-node SLURM:
#  normal     sbatch -n 2 on a small config: COMPLETED 0:0, and the file is
#             byte-identical to a direct mpirun of the same config and agrees
#             with the closed form at every circle-to-circle point
#  timelimit  --time=1 --signal=B:USR1@58 on a longer sweep: the engine is
#             signalled mid-sweep, saves, exits 3, the job requeues itself,
#             the rerun resumes and completes; the file is byte-identical to
#             an uninterrupted direct run (nothing lost, nothing changed)
# Exit: 0 pass, 77 skip (not root, or SLURM missing without apt), 1 fail.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$SSW_SLURM_DIR/../.." && pwd -P)
SBATCH_SCRIPT=$ROOT/jobs/sweep.sbatch
ENGINE=${SLEIGHSWEEP:-$ROOT/build/sleighsweep}
PY=${SSW_PYTHON:-/usr/bin/python3}
[ -x "$ENGINE" ] || { echo "FAIL: engine $ENGINE not built"; exit 1; }

slurm_test_setup sweep
need_packages mpirun openmpi-bin
W=$SSW_T/jobs
mkdir -p "$W/out"
cd "$W" || fail "cd $W"
export SLEIGHSWEEP=$ENGINE OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# mkconfig NAME TRAJECTORIES ETA: the test sweep (every regime) to out/NAME.h5
mkconfig() {
  sed -e "s|^\[output\]|[output]\nfile = out/$1.h5|" \
      -e "s|^trajectories = .*|trajectories = $2|" \
      -e "s|^flush_interval = .*|flush_interval = 2|" \
      "$ROOT/tests/sweep/sweep_small.ini" >"$W/$1.ini"
  printf '[integrator]\neta = %s\n' "$3" >>"$W/$1.ini"
}
mkconfig normal 6 0.8
mkconfig ref_normal 6 0.8
# The time-limit sweep must outlast the signal: SLURM sends it on its own
# timer, seen 20-30 s into the job; a 60-trajectory sweep (18 s) once
# finished before it came. This one takes about 66 s on 2 idle cores.
mkconfig timelimit 250 0.01
mkconfig ref_timelimit 250 0.01

# compare A B: every dataset byte-identical (but /segments, the run's own
# history: times differ between runs); closed form at circle points.
compare() {
  "$PY" - "$1" "$2" <<'PYEOF' || fail "$1 differs from $2"
import sys, h5py, numpy as np
def data(p):
    d = {}
    with h5py.File(p, "r") as f:
        f.visititems(lambda n, o: d.__setitem__(n, o[()].tobytes())
                     if isinstance(o, h5py.Dataset) and
                     n.split("/")[0] != "segments" else None)
        assert f["done"][()].all(), f"{p}: not every point done"
        c = f["regime"][()] == 3
        for m, r in (("center_spacing", "analytic_center_spacing"),
                     ("radius_future", "analytic_radius")):
            e = np.max(np.abs(f[m][()][c] / f[r][()][c] - 1))
            assert e <= 1e-8, f"{p}: {m} rel. error {e}"
    return d
a, b = data(sys.argv[1]), data(sys.argv[2])
bad = [k for k in a if a[k] != b.get(k)]
assert not bad and sorted(a) == sorted(b), f"datasets differ: {bad}"
PYEOF
}

jt=$(submit -J sweep-timelimit -o "$W/timelimit-%j.out" -n 2 -c 1 --time=1 \
      --signal=B:USR1@58 "$SBATCH_SCRIPT" timelimit.ini) || fail "submit timelimit"
jn=$(submit -J sweep-normal -o "$W/normal-%j.out" -n 2 -c 1 \
      "$SBATCH_SCRIPT" normal.ini) || fail "submit normal"
msg "submitted: timelimit=$jt normal=$jn"

st=$(wait_job "$jn" 300) || fail "normal: job $jn not finished (state $st)"
[ "$st" = COMPLETED ] && [ "$(job_field "$jn" ExitCode)" = 0:0 ] ||
  fail "normal: job $jn $st ExitCode=$(job_field "$jn" ExitCode)"
msg "normal: job $jn COMPLETED 0:0"

st=$(wait_job "$jt" 400) || fail "timelimit: job $jt not finished (state $st)"
[ "$st" = COMPLETED ] && [ "$(job_field "$jt" ExitCode)" = 0:0 ] ||
  fail "timelimit: job $jt $st ExitCode=$(job_field "$jt" ExitCode)"
rs=$(job_field "$jt" Restarts)
[ "$rs" -ge 1 ] || fail "timelimit: job $jt was never signalled and requeued"
grep -q "interrupted:" out/timelimit.h5.log ||
  fail "timelimit: the engine did not report an interruption"
grep -q "resuming" out/timelimit.h5.log || fail "timelimit: no resumed run"
msg "timelimit: job $jt COMPLETED 0:0 after $rs requeue(s)"

# Direct runs of the same configs (after the jobs, not to share the cores).
for c in normal timelimit; do
  mpirun --oversubscribe -np 2 "$ENGINE" run --quiet "ref_$c.ini" >/dev/null 2>&1 ||
    fail "direct run of ref_$c.ini failed"
  compare "out/$c.h5" "out/ref_$c.h5"
  msg "$c: sbatch result identical to the direct run"
done
[ -z "$(ls out/*.journal.* 2>/dev/null)" ] || fail "journals left after completion"
echo "2 passed, 0 failed"
