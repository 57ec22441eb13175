#!/bin/sh
# Regenerates the figure gallery: the 2025 paper's Figs. 2-8 and 10, the
# 2010 paper's Figs. 2a, 2b and 3, the exact path, phase diagrams over
# theta x a (blade force included), circulation's regimes and paths,
# drag, and the driven sleigh (its speed and Floquet maps, a swimming
# path, the growth of an undamped one), the search for chaos (a
# Lyapunov chart, Poincare sections) and the attractor census (basins of
# mirror cycles), with captions in OUT/index.md.
#
# Usage: analysis/figures.sh [OUT]        (default OUT: build/gallery)
#        analysis/figures.sh --data-only [OUT]   (the engine's data only)
# Environment: SSW_EXE (build/sleighsweep, else the installed engine),
#              MPIEXEC (mpirun), NP (2), PYTHON (/usr/bin/python3),
#              FORMATS (pdf,png).
# The engine writes the data (OUT/data: point CSV/JSON pairs, two sweeps
# from jobs/examples/fig_theta_a_rho{0,1}.ini, a circulation sweep whose
# config this script writes, one over Gamma x energy from
# jobs/examples/fig_gamma_energy.ini, refined boundaries from
# jobs/examples/refine_a_theta.ini); analysis/gallery.py draws every
# figure from those files alone (--data-only: stop before drawing, e.g. to
# call gallery.build in your own process). About 20 s of CPU (16 s without
# the circulation figures; wall times and the profile: analysis/README.md)
# before the driven sleigh's; the search for chaos adds about 25 s, the
# census about 15 s.
set -eu

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}
DRAW=1
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  --data-only) DRAW=0; shift ;;
  -*) echo "figures.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
if [ $# -gt 1 ]; then
  echo "figures.sh: one OUT directory expected, got $#" >&2; usage >&2; exit 2
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/build/gallery}
# The engine: the source tree's build, else the installed one beside an
# installed copy of this script (PREFIX/share/sleighsweep/analysis), else PATH.
EXE=${SSW_EXE:-$ROOT/build/sleighsweep}
if [ -z "${SSW_EXE:-}" ] && [ ! -x "$EXE" ]; then
  if [ -x "$ROOT/../../bin/sleighsweep" ]; then
    EXE=$(cd "$ROOT/../../bin" && pwd)/sleighsweep
  elif command -v sleighsweep >/dev/null 2>&1; then
    EXE=$(command -v sleighsweep)
  fi
fi
MPIEXEC=${MPIEXEC:-mpirun}
NP=${NP:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
FORMATS=${FORMATS:-pdf,png}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1

if [ ! -x "$EXE" ]; then
  echo "figures.sh: no engine at $EXE (build it: cmake --build build, or set SSW_EXE)" >&2
  exit 2
fi
mkdir -p "$OUT/data"
OUT=$(cd "$OUT" && pwd)
DATA=$OUT/data
start=$(date +%s)

# One trajectory: CSV (t,phi,x,y,omega,v,H and the exact motion) and the
# JSON (tensor, body, measured and closed-form values) side by side.
point() {
  name=$1
  shift
  "$EXE" point "$@" --trajectory "$DATA/$name.csv" >"$DATA/$name.json"
}

# Finer macro steps than the default (eta 0.8) give smoother drawn paths.
ETA=0.3

# Xia & Zhang 2025. Seed case: m = 1, I0 = 0.5, a = 0.2, b = 0, A = 0.5,
# B = 0.3, theta = pi/3, rho = 1, omega0 = 1.5, v0 = 1 (the engine defaults).
# Figs. 2-4 compare integrators at the paper's step h = 0.001: the engine's
# fixed steps are h = eta / max(Arate, w_max), so a first run's JSON gives
# the eta of each body (gallery.eta_for_step).
H_PAPER=0.001
eta_for() {
  "$EXE" point "$@" --eta 0.5 --no-error-estimate >"$DATA/probe.json"
  "$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import _bootstrap
from sleighsweep import gallery
print(repr(gallery.eta_for_step(sys.argv[2], float(sys.argv[3]))))' \
    "$ROOT/analysis" "$DATA/probe.json" "$H_PAPER"
}
# Fig. 2 and 3: the Hamel step (hamel2, the paper's coordinate midpoint
# reconstruction) vs RK45 (dopri5 at ode45's default tolerance 1e-3), same
# stopping rule; the exact motion is in every CSV.
ETA2=$(eta_for)
point xz2_hamel2 --scheme hamel2 --reconstruction midpoint --eta "$ETA2" \
  --no-error-estimate
point xz2_dopri5 --scheme dopri5 --rtol 1e-3 --tol 1e-5 --no-error-estimate
# Fig. 4: Hamel vs nonholonomic RATTLE at a = 0.7, b = 0, both at h = 0.001.
ETA4=$(eta_for --a 0.7)
point xz4_hamel2 --a 0.7 --scheme hamel2 --reconstruction midpoint \
  --eta "$ETA4" --no-error-estimate
point xz4_rattle --a 0.7 --scheme rattle --eta "$ETA4" --no-error-estimate
rm -f "$DATA/probe.json"
# Fig. 5: centre of mass (a, b) = (0.2, 0) and (0.2, 0.1).
point xz5_b0 --eta $ETA
point xz5_b01 --b 0.1 --eta $ETA
# Fig. 6: blade angle below pi/2 (clockwise limit) and above (counter).
for t in 30 60 120 150; do
  point xz6_t$t --theta ${t}deg --eta $ETA
done
# Fig. 7: centre of mass (a, b) = (0.5, 0) and (0.5, 1).
point xz7_b0 --a 0.5 --eta $ETA
point xz7_b1 --a 0.5 --b 1 --eta $ETA
# Fig. 8: classical sleigh (no fluid): a = 0.5 (1.73 pi) and 0.15 (4.82 pi).
point xz8_a05 --rho 0 --a 0.5 --eta $ETA
point xz8_a015 --rho 0 --a 0.15 --eta $ETA
# Fig. 10: Model I (ellipse centre at the contact point) and Model II
# ((r, s) = (0.5, 1.5)); A = 2, B = 1.5, theta = pi/4, (a, b) = (0.5, 0.2).
point xz10_model1 --A 2 --B 1.5 --theta 45deg --a 0.5 --b 0.2 --eta $ETA
point xz10_model2 --A 2 --B 1.5 --theta 45deg --a 0.5 --b 0.2 \
  --r 0.5 --s 1.5 --eta $ETA

# Fedorov & Garcia-Naranjo 2010 (seed body: L1, Z > 0).
# Fig. 2a: arcs on three energy levels, both branches (omega0 = v0 = +-c).
for kc in 1:0.5 2:1 3:1.5; do
  k=${kc%%:*} c=${kc#*:}
  point fg2a_p$k --omega0 $c --v0 $c --eta 0.2
  point fg2a_m$k --omega0 -$c --v0 -$c --eta 0.2
done
# Fig. 2b: one trajectory with the body drawn along it.
point fg2b --b 0.1 --eta $ETA
# Fig. 3: classical sleigh, |dphi| = pi sqrt(I0 + m a^2) / (sqrt(m) a)
# = 1.5, 2.5, 4.5, 6.5 pi: a = sqrt(I0 / (m (k^2 - 1))).
for ka in 15:0.6325 25:0.3086 45:0.1612 65:0.1101; do
  point fg3_k${ka%%:*} --rho 0 --a ${ka#*:} --eta $ETA
done

# The exact path beside a deliberately coarse computed one.
point xzp_coarse --scheme hamel2 --eta 1.5 --no-error-estimate

# Circulation (docs/theory/circulation.md): the seed body made Model II,
# (b, r, s) = (0.1, 0.3, -0.2), with Gamma = 2: kappa = rho Gamma r = 0.6,
# critical energy H_c = 0.82. Below it, at H = 0.5, a bounded periodic
# path; at 0.999 H_n, just below the drift energy of the resonance n
# nearest to it, a drifting one; above it (the seed state, H = 1.72) the
# two arcs, from opposite initial states.
CIRC="--b 0.1 --r 0.3 --s -0.2 --Gamma 2"
gallery_py() {  # prints gallery.FUNCTION(JSON, X): "omega0 v0"
  "$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import _bootstrap
from sleighsweep import gallery
print(*getattr(gallery, sys.argv[2])(sys.argv[3], float(sys.argv[4])))' \
    "$ROOT/analysis" "$@"
}
"$EXE" point $CIRC --no-error-estimate >"$DATA/probe.json"
WV=$(gallery_py state_at_energy "$DATA/probe.json" 0.5)
point circ_bounded $CIRC --omega0 "${WV% *}" --v0 "${WV#* }"
WV=$(gallery_py drift_state "$DATA/circ_bounded.json" 0.999)
point circ_drift $CIRC --omega0 "${WV% *}" --v0 "${WV#* }"
point circ_arc_up $CIRC
point circ_arc_down $CIRC --omega0 -1.5 --v0 -1
rm -f "$DATA/probe.json"
# Drag (docs/theory/drag.md): the seed body to rest as a node, and with
# circulation as a focus.
DRAG="--drag-w 0.05 --drag-v 0.1"
point drag_node $DRAG
point drag_focus $CIRC $DRAG

# Phase diagrams: two sweeps over theta x a (rho = 1 and rho = 0).
for r in 1 0; do
  "$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
    --output "$DATA/fig_theta_a_rho$r.h5" \
    "$ROOT/jobs/examples/fig_theta_a_rho$r.ini" >/dev/null
done
# Circulation's regimes over r x theta (the body of the point runs above
# on the grid): 49 x 37 points, every trajectory at H = 0.5.
cat >"$DATA/circ_r_theta.ini" <<'EOF'
; Gallery: circulation's regimes over the ellipse offset r and the blade
; angle theta (analysis/figures.sh writes this file).
[body]
m = 1
I0 = 0.5
rho = 1
Gamma = 2                ; kappa = rho Gamma r changes with r
[grid]
theta = linspace(0deg, 180deg, 37)
a = 0.2
b = 0.1
r = linspace(-0.6, 0.6, 49)
s = -0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 4
energy = 0.5             ; below the critical energy where |r| is large
seed = 1
[integrator]
scheme = hamel8
eta = 0.8
tol = 1e-5
[output]
file = circ_r_theta.h5
EOF
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/circ_r_theta.h5" "$DATA/circ_r_theta.ini" >/dev/null
# Circulation's regimes over Gamma x energy (the same body at r = 0.3,
# theta = 60 deg; Gamma and energy are grid axes): 23 x 22 points.
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/fig_gamma_energy.h5" \
  "$ROOT/jobs/examples/fig_gamma_energy.ini" >/dev/null
# Drag's decay at rest over r x theta, with circulation: nodes and foci.
cat >"$DATA/drag_r_theta.ini" <<'EOF'
; Gallery: the decay rate at rest over the ellipse offset r and the blade
; angle theta, with drag and circulation (analysis/figures.sh writes it).
[body]
m = 1
I0 = 0.5
rho = 1
Gamma = 2                ; kappa = rho Gamma r: a focus where it is large
drag_w = 0.05
drag_v = 0.1
[grid]
theta = linspace(0deg, 180deg, 19)
a = 0.2
b = 0.1
r = linspace(-0.6, 0.6, 25)
s = -0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
seed = 1
[integrator]
scheme = hamel8
rtol = 1e-8
[output]
file = drag_r_theta.h5
EOF
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/drag_r_theta.h5" "$DATA/drag_r_theta.ini" >/dev/null
# The driven sleigh: the mean swimming speed over the sine torque's
# frequency x amplitude on the seed body with drag (15 x 20 points).
cat >"$DATA/forced_omega_tau.ini" <<'EOF'
; Gallery: the driven sleigh's mean swimming speed over the torque's
; frequency and amplitude (analysis/figures.sh writes this file).
[body]
m = 1
I0 = 0.5
rho = 1
drag_w = 0.3
drag_v = 0.5
[grid]
theta = 60deg
a = 0.2
A = 0.5
B = 0.3
forcing_freq = linspace(0.5, 4, 15)
torque_amp = linspace(0.02, 0.4, 20)
[ensemble]
trajectories = 2
seed = 1
[integrator]
scheme = hamel8
rtol = 1e-8
[output]
file = forced_omega_tau.h5
EOF
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/forced_omega_tau.h5" "$DATA/forced_omega_tau.ini" >/dev/null
# The driven sleigh's paths (point --trajectory under forcing, 0.3 s): a
# swimming sleigh on its cycle with the period averages of its contact
# point, and an undamped one accelerating through its growth window.
point forced_swim --forcing-freq 1.5 --torque-amp 1 --drag-w 0.3 --drag-v 0.5
point forced_growth --forcing-freq 2 --torque-amp 0.2 --omega0 0 --v0 0
# The search for chaos (docs/chaos.md), its gallery slice: a point mass
# as heavy as the body oscillating across the blade of the seed body with
# weak drag, over the forcing frequency x the mass's amplitude (6 x 5
# points, 2 trajectories each, every one's Poincare section kept).
cat >"$DATA/chaos_omega_amp.ini" <<'EOF'
; Gallery: the Lyapunov chart of the moving mass (analysis/figures.sh
; writes this file; the whole search: jobs/chaos/, docs/chaos.md).
[body]
m = 1
I0 = 0.5
rho = 1
drag_w = 0.01
drag_v = 0.01
mass_p = 1
mass_x = 0.3
[grid]
theta = 60deg
a = 0.2
A = 0.5
B = 0.3
forcing_freq = logspace(0.25, 1.5, 6)
mass_amp = linspace(0.25, 2.25, 5)
[ensemble]
trajectories = 2
seed = 1
[integrator]
rtol = 1e-6
[output]
file = chaos_omega_amp.h5
samples = 2
sample_nodes = 64
EOF
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/chaos_omega_amp.h5" "$DATA/chaos_omega_amp.ini" >/dev/null
# The chaotic attractors the search found (docs/chaos.md): the body with
# circulation carrying the moving mass. A strange attractor (two budgets,
# two QR windows) and a four-band one (about 16 s together).
CHAOS="--b 0.1 --r 0.3 --s -0.2 --Gamma 2 --drag-w 0.01 --drag-v 0.01
  --mass-p 1 --mass-x 0.3 --mass-amp 1.15 --rtol 1e-8"
point chaos_strange $CHAOS --forcing-freq 0.931898 --max-steps 4000000
"$EXE" point $CHAOS --forcing-freq 0.931898 --max-steps 2000000 \
  >"$DATA/chaos_strange_short.json"
point chaos_band $CHAOS --forcing-freq 0.347373996 --max-steps 4000000
# The attractor census (docs/output.md, "The census"): the mirror-symmetric
# body driven by a mass across its blade, one symmetric cycle below a
# pitchfork, two mirror cycles above it (7 x 7 points x 8 initial states,
# about 15 s).
cat >"$DATA/census_basins.ini" <<'EOF'
; Gallery: the attractor census of a mirror-symmetric sleigh driven by a
; moving mass (analysis/figures.sh writes this file).
[body]
m = 1
I0 = 0.5
rho = 1
drag_w = 0.2
drag_v = 0.2
mass_p = 1
mass_x = 0.3
[grid]
theta = 0
a = 0.2
A = 0.5
B = 0.3
forcing_freq = linspace(1.5, 5, 7)
mass_amp = linspace(0.05, 0.4, 7)
[ensemble]
trajectories = 8
seed = 1
[integrator]
scheme = hamel8
rtol = 1e-8
[output]
file = census_basins.h5
EOF
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/census_basins.h5" "$DATA/census_basins.ini" >/dev/null
# Refined boundaries ([refine]) over theta x a: a coarse 12 x 9 grid whose
# Z = 0, L1 = 0 and loop-level crossings the engine locates to 1e-6.
"$MPIEXEC" -np "$NP" "$EXE" run --overwrite --quiet \
  --output "$DATA/refine_a_theta.h5" \
  "$ROOT/jobs/examples/refine_a_theta.ini" >/dev/null
engine=$(date +%s)
if [ "$DRAW" = 0 ]; then
  echo "figures.sh: engine $((engine - start)) s; data in $DATA"
  exit 0
fi

"$PYTHON" "$ROOT/analysis/gallery.py" "$DATA" "$OUT" --formats "$FORMATS"
end=$(date +%s)
echo "figures.sh: engine $((engine - start)) s, figures $((end - engine)) s; gallery in $OUT (index.md)"
