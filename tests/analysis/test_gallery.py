#!/usr/bin/python3
"""analysis/figures.sh end to end in a temporary directory: the engine's
data (figures.sh --data-only), then every gallery figure drawn in this
process (gallery.build, what figures.sh runs next), so that the data behind
the figures can be checked: every figure is written (PDF and PNG, non-empty,
PNG at 300 dpi), index.md has a caption for each, the 2025 paper's
integrator comparisons (Figs. 2-4) hold the measured errors against the
closed form within stated bounds and at the paper's step, the exact-path
and blade-force figures equal the files they were drawn from, and
trajectory.py --exact draws the exact path. Every figure's layout
(figcheck.layout_problems, as it is saved): its data panels over a third
of the figure's width and height (a panel of a grid of k columns over a
third / k), no two texts overlapping, none beyond the figure. The trajectory
figures' legends and spacing labels cover no path, Fig. 2 draws Hamel's
round-off as its upper envelope (no spikes to the floor), the captions
state the body scale. The circulation figures: the regime maps are the
sweeps' (r x theta and Gamma x energy), their periodic points on their
side of H = H_c, the bounded path's
orbit circle of the JSON's radius, the arcs on either side. The driven
sleigh: the speed map's closed-form error growing as tau_0^2; the
swimming path's period averages on one circle about the cycle's centre,
of the closed-form radius; the Floquet moduli's product identity within
their estimates and their tau_0^2 approach to the rest's; the growth
slope from the CSV's H equal to the JSON's and within 1e-3 of the law.
The search for chaos: the Lyapunov chart is the sweep's lyapunov_max on
a colour scale symmetric about 0, its hatched cells exactly those zero
within 3x their error, and on every cycle lyapunov_max = ln
floquet_abs_1 / (n T) within the errors; the Poincare sections are the
file's /samples rows, T apart, repeating with the cycle's period n (and
not a shorter one) to the detector's 1e-3, and approaching the cycle at
the rate lambda_max to 10%. The chaotic attractors: the drawn sections
are the CSVs', bounded; the strange one a single set, the banded one's
bands visited in turn with a folded return map (its vertex inside the
band); every run's largest exponent positive and its exponents' sum
meeting the divergence identity to 1e-8.

Usage: test_gallery.py SLEIGHSWEEP [MPIEXEC]
"""
import contextlib
import io
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

from sleighsweep import gallery  # noqa: E402
from sleighsweep import gallery_census  # noqa: E402
from sleighsweep import gallery_chaos  # noqa: E402
from sleighsweep import trajectory  # noqa: E402
from sleighsweep.sweep import read_csv, read_point_json  # noqa: E402
from figcheck import covered, layout_problems  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
FIGURES = ("xz2025_fig2_energy", "xz2025_fig3_omega", "xz2025_fig4_rattle",
           "xz2025_fig5_com", "xz2025_fig6_theta", "xz2025_fig7_com",
           "xz2025_fig8_classical", "xz2025_fig10_models",
           "fgn2010_fig2a_portrait", "fgn2010_fig2b_sleigh",
           "fgn2010_fig3_loops", "exact_path", "phase_sense",
           "phase_spacing", "phase_loops", "phase_blade_force",
           "validate_rho1", "circulation_regimes",
           "circulation_gamma_energy", "circulation_periodic",
           "circulation_arcs", "drag_decay", "drag_paths",
           "phase_refined", "forced_speed_map", "forced_path",
           "forced_floquet", "forced_growth", "chaos_lyapunov",
           "chaos_poincare", "chaos_attractor", "census_basins")
# Bounds on the 2025 paper's comparisons (measured: Hamel energy 1.6e-14,
# RK45 7e-4; omega error Hamel 2.8e-8, RK45 4e-4; Fig. 4 velocity Hamel
# 2.6e-7, RATTLE 1.5e-6, configuration Hamel 8e-7, RATTLE 6e-6).
HAMEL_ENERGY = 1e-12  # round-off: the step conserves its node energy
RK45_ENERGY = 1e-6  # at ode45's default tolerance, far above round-off
HAMEL_OMEGA = 1e-7  # O(h^2) at h = 0.001
FIG4_VELOCITY = 1e-5
FIG4_CONFIGURATION = 1e-4
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAILED:", msg, file=sys.stderr)
    return cond


def png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == \
        b"\x89PNG\r\n\x1a\n" else None


def csv_of(data, name):
    return read_csv(os.path.join(data, name + ".csv")), \
        read_point_json(os.path.join(data, name + ".json"))


def check_files(out, index):
    for name in FIGURES:
        for ext in ("pdf", "png"):
            f = os.path.join(out, f"{name}.{ext}")
            check(os.path.exists(f) and os.path.getsize(f) > 2000,
                  f"{f} missing or empty")
        with open(os.path.join(out, f"{name}.pdf"), "rb") as fh:
            check(fh.read(5) == b"%PDF-", f"{name}.pdf is not a PDF")
        size = png_size(os.path.join(out, f"{name}.png"))
        check(size and size[0] in (1020, 2100), f"{name}.png is {size}: "
              "not 3.4 in or 7 in wide at 300 dpi")
        check(f"({name}.png)" in index, f"index.md lacks {name}")
    check(index.count("## ") == len(FIGURES), "index.md: one section per "
          "figure expected")
    check("rho = 1" in index and "omega0 = 1.5" in index,
          "index.md captions do not state the parameters")


def check_paper_step(data, name, scheme):
    """A Fig. 2-4 run: the scheme asked for, fixed steps of the paper's h."""
    c, j = csv_of(data, name)
    i = j["integrator"]
    check(i["scheme"] == scheme and i["step_control"] == "fixed",
          f"{name}: {i['scheme']} {i['step_control']}, expected {scheme} "
          "fixed")
    dt = np.diff(c["t"])
    check(np.all(np.abs(dt / gallery.PAPER_H - 1) < 1e-9),
          f"{name}: steps {dt.min():.9g}..{dt.max():.9g}, expected the "
          f"paper's h = {gallery.PAPER_H}")
    return c, j


def check_energy(data, energy):
    """Fig. 2: Hamel at round-off, RK45 far above, the analytic at
    round-off; the plotted arrays are the CSVs' energies."""
    c, j = check_paper_step(data, "xz2_hamel2", "hamel2")
    check(j["integrator"]["reconstruction"] == "midpoint",
          "Fig. 2: the Hamel run should use the paper's midpoint rule")
    cr, jr = csv_of(data, "xz2_dopri5")
    check(jr["integrator"]["scheme"] == "dopri5" and
          jr["integrator"]["rtol"] == gallery.RK45_RTOL,
          f"Fig. 2: RK45 run {jr['integrator']}")
    h0 = c["H"][np.argmin(np.abs(c["t"]))]
    for name, cc in (("xz2_hamel2", c), ("xz2_dopri5", cr)):
        check(np.array_equal(energy[name]["t"], cc["t"]) and
              np.array_equal(energy[name]["err"], np.abs(cc["H"] - h0) / h0),
              f"Fig. 2: plotted energy differs from {name}.csv")
    eh = energy["xz2_hamel2"]["err"].max()
    er = energy["xz2_dopri5"]["err"].max()
    ea = energy["analytic"]["err"].max()
    check(eh < HAMEL_ENERGY, f"Fig. 2: Hamel energy error {eh:.3g} >= "
          f"{HAMEL_ENERGY} (not round-off)")
    check(er > RK45_ENERGY, f"Fig. 2: RK45 energy error {er:.3g} <= "
          f"{RK45_ENERGY} (ode45's tolerance should show)")
    check(ea < 1e-14, f"Fig. 2: the analytic energy error {ea:.3g} is not "
          "round-off")
    check(len(energy["analytic"]["t_env"]) == gallery.ENVELOPE_BINS and
          np.all(energy["analytic"]["env"] <= ea),
          "Fig. 2: the analytic envelope")
    print(f"Fig. 2: max energy error Hamel {eh:.3g}, RK45 {er:.3g}, "
          f"analytic {ea:.3g}")


def check_omega(data, omega):
    """Fig. 3: |omega - omega_exact| from the CSVs, Hamel within its
    bound and below RK45; running 2-norms grow away from t = 0."""
    for name in ("xz2_hamel2", "xz2_dopri5"):
        c, _ = csv_of(data, name)
        d = omega[name]
        check(np.array_equal(d["err"], np.abs(c["omega"] - c["omega_exact"]))
              and np.all(np.isfinite(d["l2"])),
              f"Fig. 3: plotted error differs from {name}.csv")
        k0 = int(np.argmin(np.abs(c["t"])))
        check(d["l2"][k0] == 0 and np.all(np.diff(d["l2"][k0:]) >= 0) and
              np.all(np.diff(d["l2"][:k0 + 1]) <= 0),
              f"Fig. 3: {name}'s 2-norm over [0, t] is not monotone in |t|")
    eh = omega["xz2_hamel2"]["err"].max()
    er = omega["xz2_dopri5"]["err"].max()
    check(eh < HAMEL_OMEGA, f"Fig. 3: Hamel omega error {eh:.3g} >= "
          f"{HAMEL_OMEGA}")
    check(er > 100 * eh, f"Fig. 3: RK45 omega error {er:.3g} not far above "
          f"Hamel's {eh:.3g}")
    print(f"Fig. 3: max |omega - omega_exact| Hamel {eh:.3g}, RK45 {er:.3g}")


def check_rattle(data, rattle):
    """Fig. 4: both runs at a = 0.7, b = 0 and h = 0.001; finite errors
    within bounds, RATTLE's curve present and above Hamel's."""
    for name, scheme in (("xz4_hamel2", "hamel2"), ("xz4_rattle", "rattle")):
        c, j = check_paper_step(data, name, scheme)
        check(j["params"]["a"] == 0.7 and j["params"]["b"] == 0,
              f"Fig. 4: {name} at (a, b) = ({j['params']['a']}, "
              f"{j['params']['b']}), expected (0.7, 0)")
        d = rattle.get(name)
        if not check(d is not None and len(d["t"]) > 1000, f"Fig. 4: no "
                     f"{name} curve"):
            continue
        want = np.hypot(c["omega"] - c["omega_exact"], c["v"] - c["v_exact"])
        check(np.array_equal(d["velocity"], want),
              f"Fig. 4: plotted velocity error differs from {name}.csv")
        for q, bound in (("velocity", FIG4_VELOCITY),
                         ("configuration", FIG4_CONFIGURATION)):
            check(np.all(np.isfinite(d[q])) and d[q].max() < bound,
                  f"Fig. 4: {name} {q} error {d[q].max():.3g} not finite "
                  f"and < {bound}")
    h, r = rattle["xz4_hamel2"], rattle["xz4_rattle"]
    check(h["velocity"].max() < r["velocity"].max() and
          h["energy"].max() < HAMEL_ENERGY < r["energy"].max(),
          "Fig. 4: Hamel should beat RATTLE (velocity, energy)")
    print(f"Fig. 4: max velocity error Hamel {h['velocity'].max():.3g}, "
          f"RATTLE {r['velocity'].max():.3g}; configuration Hamel "
          f"{h['configuration'].max():.3g}, RATTLE "
          f"{r['configuration'].max():.3g}")


def check_exact_path(data, ex):
    """The exact-path figure: the exact line drawn is the fine run's CSV,
    and each run's largest distance is its JSON path_error_max."""
    c, _ = csv_of(data, "xz2_hamel2")
    lines = [ln for ln in ex["plot"].ax.get_lines()
             if ln.get_label() == "exact"]
    check(len(lines) == 1 and
          np.array_equal(lines[0].get_xdata(), c["x_exact"]) and
          np.array_equal(lines[0].get_ydata(), c["y_exact"]),
          "exact_path: the exact line is not the CSV's x_exact, y_exact")
    for name, d in ex["runs"].items():
        pe = d["path_error_max"]
        check(abs(d["dist"].max() - pe) <= 1e-9 * pe + 1e-15,
              f"exact_path: {name} max distance {d['dist'].max():.6g} vs "
              f"its JSON path_error_max {pe:.6g}")
    coarse = ex["runs"]["xzp_coarse"]["dist"].max()
    check(coarse > 1e-2 > ex["runs"]["xz2_hamel2"]["dist"].max(),
          f"exact_path: the coarse run ({coarse:.3g}) should be visibly off")


def check_blade(data, blade):
    with h5py.File(os.path.join(data, gallery.SWEEP1), "r") as f:
        want = f["blade_force_max"][:, :, 0, 0, 0, 0, 0].T
        closed = f["analytic_blade_force_max"][:, :, 0, 0, 0, 0, 0].T
        uniform = (f["L1"][:, :, 0, 0, 0, 0, 0].T == 0) & \
            (f["Z"][:, :, 0, 0, 0, 0, 0].T == 0)
    got = blade["measured"]
    check(np.array_equal(got, want) and np.array_equal(
        np.isnan(blade["closed"]), np.isnan(closed)),
        "phase_blade_force: data differ from the sweep file")
    dev = blade["deviation"]
    check(np.array_equal(np.isnan(dev), uniform) and
          np.nanmax(dev) < 1e-9,
          f"phase_blade_force: deviation from the closed form "
          f"{np.nanmax(dev):.3g} (or NaN outside uniform motion)")
    check(len(blade["levels"]) >= 2, "phase_blade_force: no level sets")
    print(f"blade force: {np.nanmin(got):.4g}..{np.nanmax(got):.4g} per "
          f"unit energy, max deviation from the closed form "
          f"{np.nanmax(dev):.3g}")


def check_clear(results, index):
    """In the trajectory figures (2025 Figs. 5-8 and 10) the
    legend (below the panels) and the 'd = ...' labels cover no point of
    any drawn path; Fig. 2 (a) draws Hamel's round-off as its upper
    envelope, which never falls to the floor of exact zeros."""
    for key in ("fig_com", "fig_theta", "fig_com7", "fig_classical",
                "fig_models", "fig_circ_periodic", "fig_circ_arcs"):
        plots = results[key]
        fig = plots[0].ax.figure
        paths = [(p.ax, t.curve) for p in plots for t in p.trajectories]
        n = covered(fig, plots[0].legend.get_window_extent, paths)
        check(n == 0, f"{key}: the legend covers {n} path point(s)")
        for p in plots:
            for t in p.trajectories:
                if t.spacing_label is None:
                    continue
                n = covered(fig, t.spacing_label.get_window_extent, paths)
                check(n == 0, f"{key}: '{t.spacing_label.get_text()}' "
                      f"covers {n} path point(s)")
    env = results["fig_energy"]["xz2_hamel2"]["env"]
    check(len(env) == gallery.ENVELOPE_BINS and
          env.min() > 10 * gallery.ENERGY_FLOOR and
          "upper envelope" in index,
          f"Fig. 2: Hamel's envelope {env.min():.3g}..{env.max():.3g}")
    for name in ("xz2025_fig5_com", "xz2025_fig7_com",
                 "xz2025_fig10_models", "fgn2010_fig2b_sleigh"):
        part = index.split(f"({name}.png)")[-1].split("## ")[0]
        check("Bodies drawn at" in part,
              f"{name}: the caption does not state the body scale")


def check_circulation(data, results):
    """The circulation figures: the regime map is the sweep's, with
    periodic points all on the side H < H_c of the drawn curve; the
    bounded path's orbit circle has the JSON's radius and passes through
    the period points, the drifting one's is far larger; the arcs' runs
    start on either arc of one energy."""
    m = results["fig_circ_map"]
    with h5py.File(os.path.join(data, gallery.SWEEPC), "r") as f:
        want = f["regime"][:, 0, 0, :, 0, 0, 0].astype(float)
    check(np.array_equal(m["diagram"].panels[0].z, want),
          "circulation_regimes: data differ from the sweep file")
    check(m["periodic"] > 0 and m["wrong_side"] == 0 and
          m["diagram"].panels[0].boundaries["H=Hc"],
          f"circulation_regimes: {m['periodic']} periodic points, "
          f"{m['wrong_side']} on the wrong side of H = H_c")
    (a,), (b,) = (p.trajectories for p in results["fig_circ_periodic"])
    _, jb = csv_of(data, "circ_bounded")
    check(a.orbit is not None and a.orbit.radius == jb["orbit_radius"] and
          abs(a.orbit.geometric_radius / a.orbit.radius - 1) < 1e-4,
          "circulation_periodic (a): the orbit circle")
    check(b.orbit is not None and b.orbit.radius > 10 * a.orbit.radius,
          "circulation_periodic (b): near a drift resonance the orbit "
          "should be far larger")
    # over Gamma x energy: the file's slice, every point on its side of
    # the closed-form H_c(Gamma), H = H_c and H_1, H_2 drawn
    ge = results["fig_circ_energy"]
    with h5py.File(os.path.join(data, gallery.SWEEPGE), "r") as f:
        want = f["regime"][(0,) * 7].astype(float).T
    p = ge["diagram"].panels[0]
    check(np.array_equal(p.z, want) and ge["wrong_side"] == 0 and
          p.boundaries["H=Hc"] and {1, 2} <= set(ge["resonances"]) and
          p.log["y"], f"circulation_gamma_energy: {ge['wrong_side']} "
          f"points on the wrong side, resonances {ge['resonances']}")
    arcs = [csv_of(data, n)[1] for n in ("circ_arc_up", "circ_arc_down")]
    check([j["arc"] for j in arcs] == [1, -1] and
          abs(arcs[0]["r_future"] / arcs[1]["r_future"] - 1) < 1e-9,
          f"circulation_arcs: arcs {[j['arc'] for j in arcs]}")


def check_forced(data, results):
    """The driven sleigh's path, Floquet and growth figures: each drawn
    from its file, against an exact identity and a closed form."""
    fp = results["fig_forced_path"]
    c, j = csv_of(data, "forced_swim")
    sec = np.flatnonzero(np.isfinite(c["x_avg"]))[j["transient_periods"]:]
    lines = fp["lines"]
    check(np.array_equal(lines["contact point"].get_xdata(), c["x"]) and
          np.array_equal(lines["period averages"].get_ydata(),
                         c["y_avg"][sec]),
          "forced_path: the drawn path or averages differ from the CSV")
    # exact: the averages turn about the cycle's centre (round-off; the
    # path's last cycles lie on the cycle to 1e-13)
    r, ac = fp["radii"], fp["closed"]
    check(np.ptp(r) <= 1e-10 * r[-1], f"forced_path: the last averages' "
          f"distances from the centre spread by {np.ptp(r) / r[-1]:.3g}")
    # the closed form of their radius (forcing.md, "The forced path")
    d = abs(r[-1] / ac["radius"] - 1)
    check(d <= ac["bound"], f"forced_path: the averages' radius "
          f"{r[-1]:.10g} vs the closed form {ac['radius']:.10g} ({d:.3g} "
          f"> the dropped terms' bound {ac['bound']:.3g})")
    circ = lines["radius mean_path_radius"]
    rc = np.hypot(circ.get_xdata() - fp["zc"].real,
                  circ.get_ydata() - fp["zc"].imag)
    check(np.allclose(rc, abs(j["mean_path_radius"]), rtol=1e-12),
          "forced_path: the dashed circle's radius is not mean_path_radius")
    print(f"forced_path: averages' radius {r[-1]:.6g} = "
          f"{r[-1] / abs(j['mean_path_radius']):.4f} mean_path_radius, "
          f"closed form off by {d:.2g} (bound {ac['bound']:.2g})")
    # Floquet: the file's moduli, the product identity within their
    # estimates, the rest's limit approached as tau_0^2
    ff = results["fig_forced_floquet"]
    with h5py.File(os.path.join(data, "forced_omega_tau.h5"), "r") as f:
        want = [np.squeeze(f[k][()]).T for k in
                ("floquet_abs_1", "floquet_abs_2", "analytic_floquet_product",
                 "analytic_floquet_abs_1")]
    check(all(np.array_equal(a, b, equal_nan=True) for a, b in zip(
        (ff["floquet_abs_1"], ff["floquet_abs_2"], ff["product"],
         ff["analytic_floquet_abs_1"]), want)),
        "forced_floquet: data differ from the sweep file")
    check(np.all(np.isnan(want[3])), "forced_floquet: a sine sweep has no "
          "closed-form moduli (analytic_floquet_abs_1 should be NaN)")
    check(np.all(ff["deviation"] <= ff["estimate"]), "forced_floquet: "
          "mu_1 mu_2 / analytic_floquet_product - 1 beyond the moduli's "
          f"estimates ({np.nanmax(ff['deviation'] / ff['estimate']):.3g})")
    check(np.all(np.abs(ff["slopes"] - 2) < 0.15), "forced_floquet: the "
          f"departure from the rest's multiplier grows as tau_0^"
          f"{ff['slopes']}, not tau_0^2")
    print(f"forced_floquet: product identity {np.nanmax(ff['deviation']):.2g}"
          f", departure exponents {ff['slopes'].min():.3f}.."
          f"{ff['slopes'].max():.3f}")
    # growth: the CSV's H gives the JSON's slope (the same nodes), which
    # is the closed form's to its O(tau_0^2) relative error (forcing.md:
    # 3.8e-4 measured, 1e-3 asked)
    fg = results["fig_forced_growth"]
    c, j = csv_of(data, "forced_growth")
    law = fg["law"]
    check(np.array_equal(fg["H"], c["H"]) and j["attractor"] ==
          "accelerating", "forced_growth: the drawn H is not the CSV's, or "
          "the run is not accelerating")
    d = abs(law["slope"] / j["energy_growth_slope"] - 1)
    check(d <= 1e-12, f"forced_growth: the CSV's slope {law['slope']!r} "
          f"vs the JSON's {j['energy_growth_slope']!r} ({d:.3g})")
    d = abs(j["energy_growth_slope"] / j["analytic"]["energy_growth_slope"]
            - 1)
    check(d <= 1e-3, f"forced_growth: the closed form's slope off by {d:.3g}")


def check_chaos(data, results):
    """The Lyapunov chart and the Poincare sections: each drawn from its
    file, against an exact identity or the detector's tolerance."""
    fl = results["fig_chaos_lyapunov"]
    d = fl["data"]
    with h5py.File(os.path.join(data, gallery_chaos.SWEEPL), "r") as f:
        want = [np.squeeze(f[k][()]).T for k in
                ("lyapunov_max", "lyapunov_max_error", "floquet_abs_1",
                 "floquet_abs_1_error", "floquet_abs_1_spread")]
        omega = np.asarray(f["forcing_freq"][()])
    lam, err, mu, mu_err, mu_spread = want
    check(np.array_equal(d["lyapunov_max"], lam, equal_nan=True) and
          np.array_equal(d["lyapunov_max_error"], err, equal_nan=True),
          "chaos_lyapunov: data differ from the sweep file")
    # the colour scale is honest: symmetric about 0, as large as the data
    norm = fl["mesh"].norm
    check(norm.vmin == -norm.vmax and norm.vmax == np.nanmax(np.abs(lam)),
          f"chaos_lyapunov: colour scale {norm.vmin}..{norm.vmax}")
    zero = np.abs(lam) <= gallery_chaos.ZERO_SIGMAS * err
    hatched = [p for p in fl["mesh"].axes.patches if p.get_hatch()]
    check(len(hatched) == int(np.count_nonzero(zero)),
          f"chaos_lyapunov: {len(hatched)} hatched cells, "
          f"{np.count_nonzero(zero)} zero within 3x their error")
    # on a cycle the exponent is ln |mu_1| / (n T) of the measured
    # modulus (output.md): exact per trajectory; the point's means differ
    # by the trajectories' spread (second order) within the errors
    n = d["cycle_periods"]
    cyc = n > 0
    T = 2 * np.pi / omega
    ident = np.log(mu) / (n * T[np.newaxis, :])
    bound = err + (mu_err + mu_spread) / (mu * n * T[np.newaxis, :])
    dev = np.abs(lam - ident)
    check(np.count_nonzero(cyc) > 0 and np.all(dev[cyc] <= bound[cyc]),
          "chaos_lyapunov: lyapunov_max - ln|mu_1| / (nT) beyond the "
          f"errors ({np.nanmax(dev[cyc] / bound[cyc]):.3g} of them)")
    sm = fl["summary"]
    check((sm["positive"], sm["zero"], sm["measured"]) == (
        int(np.count_nonzero(lam > 3 * err)), int(np.count_nonzero(zero)),
        int(np.count_nonzero(np.isfinite(lam) & np.isfinite(err)))),
        f"chaos_lyapunov: the caption's counts {sm}")
    print(f"chaos_lyapunov: {fl['summary']}, identity "
          f"{np.nanmax(dev[cyc]):.2g}")
    fp = results["fig_chaos_poincare"]
    with h5py.File(os.path.join(data, gallery_chaos.SWEEPL), "r") as f:
        pts = f["samples/point"][()]
        ts = f["samples/t"][()]
    for k, (w, v) in enumerate(fp["points"]):
        nk = fp["cycle_periods"][k]
        check(fp["repeat"][k] <= 1e-3, f"chaos_poincare: sample {k}: the "
              f"sections repeat with period {nk} only to "
              f"{fp['repeat'][k]:.3g}")
        if nk > 1:
            short = gallery_chaos.repeat_defect(w, v, 1, np.max(np.hypot(
                w, v)))
            check(short > 1e-3, f"chaos_poincare: sample {k}: a cycle of "
                  f"{nk} periods repeats with period 1 ({short:.3g})")
        rate, lk = fp["decay"][k], fp["lyapunov_max"][k]
        check(rate is not None and abs(rate / lk - 1) <= 0.1,
              f"chaos_poincare: sample {k}: the sections approach the "
              f"cycle at {rate}, lambda_max {lk:.6g}")
    check(fp["cycle_periods"][0] > 1, "chaos_poincare: (a) should show a "
          "cycle of more than one period")
    # the rows are the sections t = kT of their grid point
    dt = np.diff(ts, axis=-1)
    per = 2 * np.pi / np.repeat(omega, len(d["y"]))[pts]
    ok = np.isfinite(dt)
    check(np.allclose(dt[ok], np.broadcast_to(
        per[:, None, None], dt.shape)[ok], rtol=1e-9, atol=0),
        "chaos_poincare: the /samples rows are not T apart")
    print(f"chaos_poincare: repeat {max(fp['repeat']):.2g}, decay rates "
          f"{fp['decay']} vs lambda_max {fp['lyapunov_max']}")


def check_census(data, results):
    """The census figure: its counts and shares are the file's; at every
    point the slots' and the other share are integer counts over the
    trajectories summing to one exactly; where two attractors coexist they
    are mirror cycles (mean_omega opposite within the two values' rtol:
    the file stores slot 0's error estimate only); the pitchfork is there
    (one attractor at the smallest amplitude, two at the largest)."""
    c = results["fig_basins"]
    with h5py.File(os.path.join(data, gallery_census.SWEEPB), "r") as f:
        count = np.squeeze(f["attractor_count"][()]).T
        frac = np.squeeze(f["attractor_fraction"][()]).transpose(1, 0, 2)
        other = np.squeeze(f["attractor_other_fraction"][()]).T
        n = int(f.attrs["trajectories"])
        rtol = float(f.attrs["rtol"])
    check(np.array_equal(c["count"], count) and
          np.array_equal(c["fraction"], frac, equal_nan=True),
          "census_basins: data differ from the sweep file")
    k = np.nan_to_num(frac) * n
    check(np.all(np.abs(k - np.rint(k)) < 1e-12) and np.all(
        np.rint(k).sum(axis=-1) + np.rint(other * n) == n),
          "census_basins: the shares are not counts summing to the ensemble")
    pair = count == 2
    m = c["mean_omega"][pair]
    both = np.isfinite(m[:, 0]) & np.isfinite(m[:, 1])
    check(np.all(np.abs(m[both, 0] + m[both, 1])
                 <= 2 * rtol * np.abs(m[both, 0])) and
          np.all(m[both, 0] * m[both, 1] < 0),
          "census_basins: the two attractors are no mirror pair")
    check(np.all(count[0] == 1) and count[-1, -1] == 2,
          f"census_basins: no pitchfork ({count[0]}, {count[-1, -1]})")
    print(f"census_basins: {int(pair.sum())} bistable points, "
          f"counter-clockwise shares {np.nanmin(c['ccw']):.3g} to "
          f"{np.nanmax(c['ccw']):.3g}")


def check_chaos_attractor(data, results):
    """The chaotic attractors: the CSVs' sections, bounded; the strange
    one a single set, the banded one in bands with a folded return map;
    every run's largest exponent positive and its exponents meeting the
    sum identity (forcing.md, "The exact identity")."""
    fa = results["fig_chaos_attractor"]
    strange, _, band = gallery_chaos.CHAOS_RUNS
    for name, (w, v), k0, m in zip((strange, band),
                                   (fa["strange"], fa["band"]), fa["k0"],
                                   fa["bands"]):
        c, j = csv_of(data, name)
        sec = np.flatnonzero(np.isfinite(c["x_avg"]))[k0:]
        check(np.array_equal(w, c["omega"][sec]) and
              np.array_equal(v, c["v"][sec]),
              f"chaos_attractor: {name}'s sections differ from the CSV")
        # bounded: the second half of the sections reaches no farther
        # out than the first (an accelerating sleigh's grows steadily)
        r = np.hypot(w, v)
        h = len(r) // 2
        # the engine's class (forcing.md, "Classes from the exponents"):
        # chaotic beyond 3 errors and 0.02 / T, else not decided
        lam, err = j["lyapunov"][0], j["error_estimate"]["lyapunov"][0]
        cls = ("chaotic" if lam > 3 * err and
               lam > 0.02 / j["forcing"]["period"] else "unresolved")
        check(np.max(r[h:]) <= 1.05 * np.max(r[:h]) and j["attractor"] ==
              cls, f"chaos_attractor: {name} {j['attractor']} (want {cls}), "
              f"sections {np.max(r[:h]):.4g} then {np.max(r[h:]):.4g}")
    lo, hi = fa["range"]
    check(fa["bands"][0] == 1 and fa["bands"][1] > 1 and
          lo < fa["vertex"] < hi and fa["residual"] < 0.2,
          f"chaos_attractor: bands {fa['bands']}, vertex "
          f"{fa['vertex']:.4g} in {lo:.4g}..{hi:.4g}, fit "
          f"{fa['residual']:.3g}")
    # the verdicts the search prints (docs/chaos.md's thresholds): 3x the
    # error decides; no exponent is no verdict
    got = gallery_chaos.sign_class([0.4, 0.25, -0.4, np.nan, 1.0],
                                   [0.1, 0.1, 0.1, 0.1, np.nan])
    check(np.array_equal(got, [1, 0, -1, np.nan, np.nan], equal_nan=True),
          f"gallery_chaos.sign_class: {got}")
    want = {True: "chaotic candidate", False: "zero within error"}
    for jj in fa["json"]:
        lam, err = jj["lyapunov"][0], jj["error_estimate"]["lyapunov"][0]
        check(gallery_chaos.verdict(jj) == want[lam > 3 * err],
              f"chaos_attractor: verdict {gallery_chaos.verdict(jj)} for "
              f"{lam} +- {err}")
    check(gallery_chaos.verdict({"lyapunov": None}) == "no exponent",
          "gallery_chaos.verdict: an accelerating run has no exponent")
    for jj in fa["json"]:
        lam = jj["lyapunov"]
        check(lam[0] > 0 and abs(jj["lyapunov_sum_defect"]) <= 1e-8,
              f"chaos_attractor: lyapunov {lam}, sum defect "
              f"{jj['lyapunov_sum_defect']}")
    print(f"chaos_attractor: bands {fa['bands']}, lambda_1 "
          f"{fa['lyapunov']} +- {fa['error']}")


def check_trajectory_exact(data, tmp):
    """trajectory.py --exact draws the exact path (x_exact, y_exact) as a
    line of its own; without the option there is none."""
    csv = os.path.join(data, "xzp_coarse.csv")
    c = read_csv(csv)
    for exact in (True, False):
        out = os.path.join(tmp, f"exact{int(exact)}.png")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = trajectory.main([csv, "--out", out] +
                                 (["--exact"] if exact else []))
        fig = gallery.plt.gcf()
        lines = [ln for ax in fig.axes for ln in ax.get_lines()
                 if ln.get_label() == "exact"]
        if exact:
            check(rc == 0 and len(lines) == 1 and
                  np.array_equal(lines[0].get_xdata(), c["x_exact"]) and
                  np.array_equal(lines[0].get_ydata(), c["y_exact"]),
                  f"trajectory.py --exact: exit {rc}, {len(lines)} exact "
                  "line(s), expected the CSV's x_exact, y_exact")
        else:
            check(rc == 0 and not lines, "trajectory.py without --exact "
                  "drew an exact line")
        gallery.plt.close("all")
    p = subprocess.run([sys.executable, os.path.join(
        ROOT, "analysis", "trajectory.py"), csv, "--exact", "--out",
        os.path.join(tmp, "exact.pdf")], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(
        os.path.join(tmp, "exact.pdf")) > 2000,
        f"trajectory.py --exact (command line): exit {p.returncode} "
        f"{p.stderr}")


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "gallery")
    env = dict(os.environ, SSW_EXE=EXE, MPIEXEC=MPIEXEC,
               PYTHON=sys.executable)
    t0 = time.time()
    p = subprocess.run(["sh", os.path.join(ROOT, "analysis", "figures.sh"),
                        "--data-only", out], capture_output=True, text=True,
                       env=env)
    print(f"figures.sh --data-only: {time.time() - t0:.1f} s; "
          f"{p.stdout.strip()}")
    if not check(p.returncode == 0, f"figures.sh exit {p.returncode}:\n"
                 f"{p.stdout}\n{p.stderr}"):
        sys.exit(1)
    data = os.path.join(out, "data")
    t0 = time.time()
    # every figure's layout, checked as it is saved (figcheck: data over a
    # third of the figure, no two texts overlapping, none off the figure)
    layouts = {}
    save = gallery.Gallery.save

    def checked_save(self, fig, name, *args):
        layouts[name] = layout_problems(fig)
        return save(self, fig, name, *args)
    gallery.Gallery.save = checked_save
    with contextlib.redirect_stdout(io.StringIO()):
        results, entries = gallery.build(data, out, ("pdf", "png"))
    gallery.Gallery.save = save
    print(f"gallery.build: {time.time() - t0:.1f} s, {len(entries)} figures")
    check(len(layouts) == len(entries), f"layouts of {len(layouts)} of "
          f"{len(entries)} figures checked")
    for name, problems in layouts.items():
        check(not problems, f"{name}: layout: {problems}")
    index = open(os.path.join(out, "index.md")).read()
    check_files(out, index)
    check_energy(data, results["fig_energy"])
    check_omega(data, results["fig_omega"])
    check_rattle(data, results["fig_rattle"])
    check_exact_path(data, results["fig_exact_path"])
    check_blade(data, results["fig_blade"])
    check_clear(results, index)
    for text in ("h = 0.001", "rtol = atol = 0.001", "nonholonomic RATTLE",
                 "a real blade or keel"):
        check(text in index, f"index.md: no caption says '{text}'")

    tr = results["fig_com"][1].trajectories[0]
    c, _ = csv_of(data, "xz5_b01")
    check(np.array_equal(tr.x, c["x"]) and np.array_equal(tr.y, c["y"]),
          "Fig. 5b data differ from xz5_b01.csv")
    phase = results["fig_phase"]
    with h5py.File(os.path.join(data, gallery.SWEEP1), "r") as f:
        want = f["sense_future"][:, :, 0, 0, 0, 0, 0].T.astype(float)
        check(np.array_equal(phase["sense"].panels[0].z, want),
              "phase_sense data differ from the sweep file")
        want = f["center_spacing"][:, :, 0, 0, 0, 0, 0].T
        got = phase["spacing"].panels[0].z
        check(np.array_equal(np.isnan(got), np.isnan(want)) and
              np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)]),
              "phase_spacing data differ from the sweep file")
    check(len(phase["loops"].panels) == 2 and
          phase["loops"].panels[0].boundaries["Z=0"] == "everywhere",
          "phase_loops: expected rho = 0 (Z = 0 everywhere) beside rho = 1")
    check_trajectory_exact(data, tmp)
    check_circulation(data, results)
    ref = results["fig_refined"]
    with h5py.File(os.path.join(data, gallery.SWEEPR), "r") as f:
        tol = float(f["boundaries"].attrs["tol"])
    check(ref["closed"] > 0 and ref["worst"] <= tol and
          ref["formula"] <= 1e-12,
          f"phase_refined: {ref['closed']} Z/L1 crossings, farthest "
          f"{ref['worst']:.3g} from the closed form (tol {tol:g}), formula "
          f"against the file {ref['formula']:.3g}")
    check(f"{ref['crossings']} crossings" in index,
          "index.md: the refined figure's caption has no crossing count")
    # the driven sleigh's map: the file's mean_v and closed form drawn,
    # the closed form's relative error growing as torque_amp^2 (eq. 3)
    fm = results["fig_forced_map"]
    with h5py.File(os.path.join(data, "forced_omega_tau.h5"), "r") as f:
        want = np.squeeze(f["mean_v"][()]).T
        twin = np.squeeze(f["analytic_mean_v"][()]).T
    check(np.array_equal(fm["mean_v"], want) and
          np.array_equal(fm["analytic_mean_v"], twin),
          "forced_speed_map data differ from the sweep file")
    check(np.all(np.abs(fm["slopes"] - 2) < 0.1),
          f"forced_speed_map: the closed form's error grows as tau_0^"
          f"{fm['slopes']}, not tau_0^2")
    check_forced(data, results)
    check_chaos(data, results)
    check_chaos_attractor(data, results)
    check_census(data, results)
    # the command line that figures.sh runs after the data
    rc = gallery.main([data, os.path.join(tmp, "bad"), "--formats", "gif"])
    check(rc == 2, f"gallery.py --formats gif: exit {rc}, expected 2")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("gallery: all checks passed")
