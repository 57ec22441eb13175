/* HDF5 output layout: the dataset, category and sample tables, dataset
 * and dimension-scale creation, the provenance attributes. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5out_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/forced.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/stepper.h"
#include "sleighsweep/version.h"

/* ---- the dataset table ----------------------------------------------- */

#define OFF(member) offsetof(ssw_point_result, member)
#define F64(n, m, u, l)                                                        \
  { n, T_F64, SRC_DOUBLE, OFF(m), FILL_MASKED, CAT_NONE, u, l }

/* A forced quantity's mean, spread, error and closed form. */
#define FQ_TWIN_TWIN(name, index, units, long_name)                            \
  F64("analytic_" name, analytic_forced[index], units,                         \
      "closed form of " name " (mean over the same trajectories)"),
#define FQ_TWIN_NO_TWIN(...)
#define FQ_COLUMNS_(id, index, name, units, long_name, measured, twin, closed) \
  F64(name, forced[index], units,                                              \
      "with forcing: ensemble mean of the " long_name),                        \
      F64(name "_spread", forced_spread[index], units,                         \
          "max - min of " name " over the ensemble"),                          \
      F64(name "_error", forced_error[index], units,                           \
          "largest estimated error of " name " over the ensemble"),            \
      FQ_TWIN_##twin(name, index, units, long_name)

/* Units: lengths and masses are in the config's body units. */
const column ssw_h5_columns[] = {
    F64("J", tensor.J, "mass length2", "total rotational inertia about P"),
    F64("M", tensor.M, "mass", "total inertia along the blade"),
    F64("N", tensor.N, "mass", "total inertia across the blade"),
    F64("L1", tensor.L1, "mass length", "rotation / transverse coupling L1"),
    F64("L2", tensor.L2, "mass length", "rotation / longitudinal coupling L2"),
    F64("Z", tensor.Z, "mass", "longitudinal / transverse coupling Z"),
    F64("analytic_radius", analytic.radius, "length",
        "closed-form limit-circle radius |L1/Z|"),
    F64("analytic_center_spacing", analytic.d, "length",
        "closed-form distance of the limit-circle centres"),
    F64("analytic_transition_angle", analytic.dphi_abs, "rad",
        "closed-form transition angle |dphi| = pi |c1|"),
    F64("radius_future", radius_future, "length",
        "mean radius |v/omega| at t -> +inf"),
    F64("radius_past", radius_past, "length",
        "mean radius |v/omega| at t -> -inf"),
    F64("center_spacing", center_spacing, "length",
        "mean distance of the limit-circle centres"),
    F64("transition_angle", transition_angle, "rad",
        "mean transition angle |dphi|"),
    F64("radius_future_spread", radius_future_spread, "length",
        "max - min of radius_future over the ensemble"),
    F64("radius_past_spread", radius_past_spread, "length",
        "max - min of radius_past over the ensemble"),
    F64("center_spacing_spread", center_spacing_spread, "length",
        "max - min of center_spacing over the ensemble"),
    F64("transition_angle_spread", transition_angle_spread, "rad",
        "max - min of transition_angle over the ensemble"),
    F64("converged_fraction", converged_fraction, "1",
        "converged trajectories / trajectories"),
    F64("energy_error_max", energy_error_max, "1",
        "max relative energy error |H - H0| / H0"),
    F64("steps_mean", steps_mean, "1", "mean base steps per trajectory"),
    F64("blade_force_max", blade_force_max, "length-1",
        "mean over the ensemble of max |F| / H, the blade's largest lateral "
        "force per unit energy"),
    F64("analytic_blade_force_max", analytic_blade_force_max, "length-1",
        "closed-form max |F| / H of the blade's lateral force"),
    F64("path_error_max", path_error_max, "length",
        "largest distance of trajectory 0's computed contact point from "
        "the exact path"),
    F64("center_spacing_error", center_spacing_error, "length",
        "largest estimated error of center_spacing over the ensemble"),
    F64("transition_angle_error", transition_angle_error, "rad",
        "largest estimated error of transition_angle over the ensemble"),
    F64("radius_error", radius_error, "length",
        "largest estimated error of the limit radii over the ensemble"),
    F64("t0_error", t0_error, "1",
        "largest estimated error of t0 over the ensemble, relative to the "
        "transition time |t0| + 1/Arate"),
    F64("blade_force_error", blade_force_error, "length-1",
        "largest estimated error of the trajectories' max |F| / H over the "
        "ensemble"),
    {"analytic_loops", T_I32, SRC_INT, OFF(analytic.loops), FILL_MASKED,
     CAT_NONE, "1", "closed-form loop count floor(|dphi| / 2 pi)"},
    {"loops", T_I32, SRC_INT32, OFF(loops), FILL_MASKED, CAT_NONE, "1",
     "most frequent loop count of the ensemble"},
    {"flags", T_I32, SRC_INT32, OFF(flags), FILL_ZERO, CAT_FLAGS, "1",
     "OR of the trajectories' flags"},
    {"trajectories", T_I32, SRC_INT32, OFF(trajectories), FILL_ZERO, CAT_NONE,
     "1", "ensemble size"},
    {"regime", T_I8, SRC_INT, OFF(analytic.regime), FILL_MASKED, CAT_REGIME,
     "1", "asymptotic regime"},
    {"analytic_sense", T_I8, SRC_INT, OFF(analytic.sense_future), FILL_ZERO,
     CAT_SENSE, "1", "closed-form rotation sense at t -> +inf, sign(-Z)"},
    {"sense_future", T_I8, SRC_INT32, OFF(sense_future), FILL_ZERO, CAT_SENSE,
     "1", "most frequent rotation sense at t -> +inf"},
    /* Circulation (docs/output.md, "Circulation"). */
    F64("critical_energy", critical_energy, "mass length2 time-2",
        "circulation's critical energy D kappa^2 / (2 E): periodic motion "
        "below it"),
    F64("period", period, "time",
        "mean period of the periodic reduced motion (below the critical "
        "energy)"),
    F64("heading_per_period", heading_per_period, "rad",
        "mean heading change per period"),
    F64("drift_per_period", drift_per_period, "length",
        "mean displacement of the contact point per period"),
    F64("orbit_radius", orbit_radius, "length",
        "mean radius of the circle the period points lie on (inf at a drift "
        "resonance)"),
    F64("period_error", period_error, "time",
        "largest estimated error of the period over the ensemble"),
    F64("heading_per_period_error", heading_per_period_error, "rad",
        "largest estimated error of heading_per_period over the ensemble"),
    F64("transition_angle_lower", transition_angle_lower, "rad",
        "with circulation: mean |dphi| of the arc g < 0 (transition_angle "
        "holds the arc g > 0's)"),
    F64("center_spacing_lower", center_spacing_lower, "length",
        "with circulation: mean centre spacing of the arc g < 0"),
    F64("upper_fraction", upper_fraction, "1",
        "with circulation: share of the ensemble on the arc g > 0"),
    {"loops_lower", T_I32, SRC_INT32, OFF(loops_lower), FILL_MASKED, CAT_NONE,
     "1", "with circulation: most frequent loop count of the arc g < 0"},
    F64("analytic_radius_past", analytic_radius_past, "length",
        "closed-form limit radius at t -> -inf"),
    F64("analytic_radius_future", analytic_radius_future, "length",
        "closed-form limit radius at t -> +inf"),
    F64("analytic_period", analytic_period, "time",
        "closed-form period below the critical energy"),
    F64("analytic_heading_per_period", analytic_heading_per_period, "rad",
        "closed-form heading change per period"),
    F64("analytic_drift_per_period", analytic_drift_per_period, "length",
        "exact displacement per period (one quadrature)"),
    F64("analytic_orbit_radius", analytic_orbit_radius, "length",
        "exact orbit radius of the period points"),
    F64("analytic_transition_angle_lower", analytic_transition_angle_lower,
        "rad", "closed-form |transition angle| of the arc g < 0"),
    F64("analytic_center_spacing_lower", analytic_center_spacing_lower,
        "length", "exact centre spacing of the arc g < 0 (one quadrature)"),
    /* Drag (docs/output.md, "Drag"). */
    F64("heading_total", heading_total, "rad",
        "with drag: mean |total heading| to rest"),
    F64("rest_distance", rest_distance, "length",
        "with drag: mean distance of the rest point from the start"),
    F64("path_length", path_length, "length",
        "with drag: mean length of the contact point's path to rest"),
    F64("decay_rate", decay_rate, "time-1",
        "with drag: mean measured decay rate at rest"),
    F64("settle_time", settle_time, "time",
        "with drag: mean time to 1% of the initial energy"),
    F64("heading_total_error", heading_total_error, "rad",
        "largest estimated error of heading_total over the ensemble"),
    F64("rest_distance_error", rest_distance_error, "length",
        "largest estimated error of the rest point over the ensemble"),
    F64("path_length_error", path_length_error, "length",
        "largest estimated error of path_length over the ensemble"),
    F64("decay_rate_error", decay_rate_error, "time-1",
        "largest estimated error of decay_rate over the ensemble"),
    F64("focus_fraction", focus_fraction, "1",
        "with drag: share of the converged trajectories approaching rest "
        "as a focus"),
    F64("analytic_decay_rate", analytic_decay_rate, "time-1",
        "closed-form decay rate at rest, -max Re lambda"),
    F64("analytic_decay_frequency", analytic_decay_frequency, "time-1",
        "closed-form angular frequency at rest (0: a node)"),
    F64("analytic_heading_total", analytic_heading_total, "rad",
        "exact mean |total heading| for C = c K without circulation"),
    F64("analytic_rest_distance", analytic_rest_distance, "length",
        "exact mean rest distance for C = c K without circulation"),
    F64("analytic_path_length", analytic_path_length, "length",
        "exact mean path length for C = c K without circulation"),
    /* Forcing (docs/output.md, "Forcing"). */
    {"attractor", T_I8, SRC_INT32, OFF(attractor), FILL_MASKED, CAT_ATTRACTOR,
     "1", "the attractor most trajectories reach (attractor slot 0)"},
    {"cycle_periods", T_I32, SRC_INT32, OFF(cycle_periods), FILL_MASKED,
     CAT_NONE, "1", "periodic attractor: its cycle length in forcing periods"},
    {"attractor_count", T_I32, SRC_INT32, OFF(attractor_count), FILL_MASKED,
     CAT_NONE, "1", "distinct attractors the ensemble reaches"},
    F64("attractor_other_fraction", attractor_other_fraction, "1",
        "share of the ensemble on attractors beyond the stored slots"),
    F64("analytic_floquet_product", analytic_floquet_product, "1",
        "exact product of the Floquet multipliers on the measured cycle"),
    SSW_FORCED_QUANTITIES(FQ_COLUMNS_)
    /* Written last in every epoch: a point is done only after its values. */
    {"done", T_U8, SRC_ONE, 0, FILL_ZERO, CAT_DONE, "1",
     "point written (1) or pending (0)"},
};
_Static_assert(sizeof ssw_h5_columns / sizeof ssw_h5_columns[0] == SSW_H5_NCOL,
               "SSW_H5_NCOL (h5out_internal.h) must count the columns");

/* The census, over (grid, attractor_slot) (docs/output.md, "The census"). */
const column ssw_h5_slot_columns[SSW_H5_NSLOTCOL] = {
    {"attractor_class", T_I8, SRC_INT32, OFF(attractor_class), FILL_MASKED,
     CAT_ATTRACTOR, "1", "the slot's attractor"},
    {"attractor_cycle_periods", T_I32, SRC_INT32, OFF(attractor_cycle_periods),
     FILL_MASKED, CAT_NONE, "1",
     "periodic attractor: its cycle length in forcing periods"},
    F64("attractor_fraction", attractor_fraction, "1",
        "share of the ensemble's initial states ending on the attractor"),
    F64("attractor_mean_omega", attractor_mean_omega, "rad time-1",
        "the attractor's time average of omega (its converged members' mean)"),
    F64("attractor_mean_v", attractor_mean_v, "length time-1",
        "the attractor's time average of v (its converged members' mean)"),
    F64("attractor_lyapunov_1", attractor_lyapunov_1, "time-1",
        "the attractor's larger Lyapunov exponent"),
    F64("attractor_lyapunov_2", attractor_lyapunov_2, "time-1",
        "the attractor's smaller Lyapunov exponent"),
};

/* A category's values and meanings from a names.h list. */
#define CATEGORY_(attr, list)                                                  \
  {                                                                            \
    attr, (0 list(SSW_NAME_COUNT)), {list(SSW_NAME_VALUE)},                    \
        list(SSW_NAME_SPACED) + 1                                              \
  }

const category ssw_h5_categories[] = {
    [CAT_REGIME] = CATEGORY_("flag_values", SSW_REGIMES),
    [CAT_SENSE] = CATEGORY_("flag_values", SSW_SENSES),
    [CAT_DONE] = CATEGORY_("flag_values", SSW_DONE_STATES),
    [CAT_FLAGS] = CATEGORY_("flag_masks", SSW_TRAJ_FLAGS),
    [CAT_SEGMENT] = CATEGORY_("flag_values", SSW_SEGMENT_ENDS),
    [CAT_ATTRACTOR] = CATEGORY_("flag_values", SSW_ATTRACTORS),
};
_Static_assert((0 SSW_TRAJ_FLAGS(SSW_NAME_COUNT)) <= SSW_H5_CATEGORY_MAX &&
                   (0 SSW_REGIMES(SSW_NAME_COUNT)) <= SSW_H5_CATEGORY_MAX,
               "SSW_H5_CATEGORY_MAX too small");

/* Units and long names of the grid axes (their names: ssw_axis_names). */
#define AXIS_ROW_(id, index, name, units, long_name, ...)                      \
  [index] = {units, long_name},
static const struct {
  const char *units, *long_name;
} axis_info[SSW_NAXES] = {SSW_AXES(AXIS_ROW_)};

#define SAMPLE_ROW_(id, index, name, units, long_name)                         \
  [index] = {name, units, long_name},
const sample_quantity ssw_h5_sample_quantities[SSW_SAMPLE_NQ] = {
    SSW_SAMPLES(SAMPLE_ROW_)};

/* ---- creation -------------------------------------------------------- */

/* The longest block of contiguous flat indices along the fastest axes that
 * fits in SSW_H5_CHUNK_BYTES, split evenly along the first axis that does not
 * fit whole (edge chunks occupy full chunk size on disk). */
static void chunk_dims(int rank, const hsize_t *dims, size_t elem,
                       hsize_t *chunk) {
  hsize_t budget = SSW_H5_CHUNK_BYTES / elem;
  for (int i = rank - 1; i >= 0; i--) {
    if (dims[i] <= budget) {
      chunk[i] = dims[i] > 0 ? dims[i] : 1;
      budget /= chunk[i];
    } else {
      const hsize_t pieces = (dims[i] + budget - 1) / budget;
      chunk[i] = (dims[i] + pieces - 1) / pieces;
      budget = 1;
    }
  }
}

/* Bytes of the chunks a dataset of `dims` allocates (edge chunks whole). */
static double chunked_bytes(int rank, const hsize_t *dims, size_t elem) {
  hsize_t chunk[SSW_NAXES + 2];
  chunk_dims(rank, dims, elem, chunk);
  double n = 1.0, per = (double)elem;
  for (int i = 0; i < rank; i++) {
    n *= (double)((dims[i] + chunk[i] - 1) / chunk[i]);
    per *= (double)chunk[i];
  }
  return n * per;
}

/* Metadata measured on files of this layout (tests/test_dry_run.py checks
 * the estimate against real files): object headers, attributes and
 * dimension scales per dataset, and the root's (config text, provenance). */
#define SSW_H5_META_BYTES 6450.0
#define SSW_H5_ROOT_BYTES 72e3

double ssw_h5out_estimate_bytes(const ssw_config *cfg) {
  hsize_t dims[SSW_NAXES];
  int axis[SSW_NAXES];
  const int naxes = ssw_config_file_axes(cfg, axis);
  for (int i = 0; i < naxes; i++)
    dims[i] = (hsize_t)cfg->axes[axis[i]].n;
  double bytes = SSW_H5_ROOT_BYTES + (double)strlen(cfg->text ? cfg->text : "");
  int datasets = naxes;
  for (int c = 0; c < SSW_H5_NCOL; c++, datasets++)
    bytes +=
        chunked_bytes(naxes, dims, ssw_h5_type_size(ssw_h5_columns[c].type));
  hsize_t sdims_census[SSW_NAXES + 1];
  memcpy(sdims_census, dims, (size_t)naxes * sizeof *dims);
  sdims_census[naxes] = (hsize_t)cfg->attractor_slots;
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++, datasets++)
    bytes += chunked_bytes(naxes + 1, sdims_census,
                           ssw_h5_type_size(ssw_h5_slot_columns[c].type));
  bytes += 4.0 * cfg->attractor_slots, datasets++; /* the slot scale */
  const hsize_t sdims[3] = {
      (hsize_t)cfg->sample_sel.n, (hsize_t)cfg->samples,
      (hsize_t)(cfg->samples > 0 ? cfg->sample_nodes : 0)};
  if (sdims[0] > 0 && sdims[1] > 0) {
    for (int q = 0; q < SSW_SAMPLE_NQ; q++, datasets++)
      bytes += chunked_bytes(3, sdims, 8);
    bytes += (double)sdims[0] * 8.0 * (naxes + 1);
    datasets += naxes + 3;
  }
  return bytes + datasets * SSW_H5_META_BYTES;
}

/* The units of the tables ("mass length2", "rad time-1") in UDUNITS form
 * with the config's units: "kg m2", "rad s-1". Time is in seconds once both
 * units are given (the energy is then in mass length2 s-2); a unit not
 * given stays a generic word (the model is scale-free). */
static void udunits(const ssw_h5out *h, const char *generic, char *buf,
                    size_t n) {
  const int both = h->length_unit[0] && h->mass_unit[0];
  size_t used = 0;
  buf[0] = '\0';
  for (const char *p = generic; *p && used < n;) {
    const size_t len = strcspn(p, " ");
    const char *word = NULL;
    size_t skip = 0;
    if (!strncmp(p, "length", 6) && h->length_unit[0])
      word = h->length_unit, skip = 6;
    else if (!strncmp(p, "mass", 4) && h->mass_unit[0])
      word = h->mass_unit, skip = 4;
    else if (!strncmp(p, "time", 4) && both)
      word = "s", skip = 4;
    used += (size_t)snprintf(buf + used, n - used, "%s%s%.*s", used ? " " : "",
                             word ? word : "", (int)(len - skip), p + skip);
    p += len + (p[len] == ' ');
  }
}

/* Creates a chunked dataset with fill value, early allocation (required by
 * parallel HDF5) and units/long_name/_FillValue attributes. */
static int create_dataset(ssw_h5out *h, hid_t loc, const char *name, int rank,
                          const hsize_t *dims, col_type t, double fill,
                          int masked, const char *units, const char *long_name,
                          hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t dcpl = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hsize_t chunk[SSW_NAXES + 2];
  chunk_dims(rank, dims, ssw_h5_type_size(t), chunk);
  H5TRY(space = H5Screate_simple(rank, dims, NULL), "dataset %s", name);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "dataset %s", name);
  H5TRY(H5Pset_chunk(dcpl, rank, chunk), "dataset %s", name);
  H5TRY(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill), "dataset %s", name);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "dataset %s", name);
  H5TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC), "dataset %s", name);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "dataset %s",
        name);
  H5TRY(*dset = H5Dcreate2(loc, name, ssw_h5_file_type(t), space, H5P_DEFAULT,
                           dcpl, H5P_DEFAULT),
        "dataset %s in '%s'", name, h->path);
  char unit_text[96];
  udunits(h, units, unit_text, sizeof unit_text);
  TRY(ssw_h5_attr_str(*dset, name, "units", unit_text));
  TRY(ssw_h5_attr_str(*dset, name, "long_name", long_name));
  if (masked)
    TRY(ssw_h5_attr_num(*dset, name, "_FillValue", ssw_h5_file_type(t),
                        H5T_NATIVE_DOUBLE, 1, &fill));
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return status;
}

static int attach_scales(hid_t dset, const char *name, const hid_t *scales,
                         int n) {
  int status = SSW_SUCCESS;
  for (int i = 0; i < n; i++)
    H5TRY(H5DSattach_scale(dset, scales[i], (unsigned)i),
          "dimension %d of dataset %s", i, name);
done:
  return status;
}

/* A 1-D dimension-scale dataset named after its dimension; rank 0 writes
 * the values (independent transfer, the others select nothing). */
static int create_scale(ssw_h5out *h, hid_t loc, const char *name, hsize_t n,
                        hid_t ftype, hid_t mtype, const void *values,
                        const char *units, const char *long_name, hid_t *dset) {
  int status = SSW_SUCCESS;
  hid_t dcpl = H5I_INVALID_HID, space = H5I_INVALID_HID;
  H5TRY(space = H5Screate_simple(1, &n, NULL), "scale %s", name);
  H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "scale %s", name);
  H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "scale %s", name);
  H5TRY(H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED), "%s", name);
  H5TRY(*dset =
            H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
        "scale %s in '%s'", name, h->path);
  H5TRY(H5DSset_scale(*dset, name), "scale %s", name);
  char unit_text[96];
  udunits(h, units, unit_text, sizeof unit_text);
  TRY(ssw_h5_attr_str(*dset, name, "units", unit_text));
  TRY(ssw_h5_attr_str(*dset, name, "long_name", long_name));
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "scale %s", name);
  H5TRY(H5Dwrite(*dset, mtype, space, space, H5P_DEFAULT, values),
        "scale %s in '%s'", name, h->path);
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return status;
}

int ssw_h5_column_category(hid_t d, const column *col) {
  if (col->cat == CAT_NONE) return SSW_SUCCESS;
  const category *k = &ssw_h5_categories[col->cat];
  SSW_CALL(ssw_h5_attr_num(d, col->name, k->attr, ssw_h5_file_type(col->type),
                           H5T_NATIVE_INT, (size_t)k->n, k->values));
  return ssw_h5_attr_str(d, col->name, "flag_meanings", k->meanings);
}

static double column_fill(const column *col) {
  return col->type == T_F64 ? NAN : col->fill == FILL_MASKED ? -1.0 : 0.0;
}

/* The attractor_slot scale (0, 1, ...) and the census's datasets over the
 * grid's dimensions and it. */
static int create_census(ssw_h5out *h) {
  int status = SSW_SUCCESS;
  int32_t idx[SSW_ATTRACTOR_SLOTS_MAX];
  hsize_t dims[SSW_NAXES + 1];
  hid_t scales[SSW_NAXES + 1];
  for (int s = 0; s < h->slots; s++)
    idx[s] = s;
  TRY(create_scale(h, h->file, "attractor_slot", (hsize_t)h->slots,
                   H5T_STD_I32LE, H5T_NATIVE_INT32, idx, "1",
                   "attractor slot: the point's attractors by share, "
                   "descending",
                   &h->slotdim));
  ssw_h5_slot_dims(h, dims);
  memcpy(scales, h->coord, (size_t)h->naxes * sizeof *scales);
  scales[h->naxes] = h->slotdim;
  for (int c = 0; c < SSW_H5_NSLOTCOL; c++) {
    const column *col = &ssw_h5_slot_columns[c];
    TRY(create_dataset(h, h->file, col->name, h->naxes + 1, dims, col->type,
                       column_fill(col), col->fill == FILL_MASKED, col->units,
                       col->long_name, &h->slotset[c]));
    TRY(ssw_h5_column_category(h->slotset[c], col));
    TRY(attach_scales(h->slotset[c], col->name, scales, h->naxes + 1));
  }
done:
  return status;
}

int ssw_h5_create_grid(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  for (int i = 0; i < h->naxes; i++) {
    const int a = h->axis[i];
    TRY(create_scale(h, h->file, ssw_axis_names[a], h->dims[i], H5T_IEEE_F64LE,
                     H5T_NATIVE_DOUBLE, cfg->axes[a].values, axis_info[a].units,
                     axis_info[a].long_name, &h->coord[i]));
  }
  for (size_t c = 0; c < SSW_H5_NCOL; c++) {
    const column *col = &ssw_h5_columns[c];
    TRY(create_dataset(h, h->file, col->name, h->naxes, h->dims, col->type,
                       column_fill(col), col->fill == FILL_MASKED, col->units,
                       col->long_name, &h->dset[c]));
    TRY(ssw_h5_column_category(h->dset[c], col));
    TRY(attach_scales(h->dset[c], col->name, h->coord, h->naxes));
  }
  TRY(create_census(h));
done:
  return status;
}

/* One axis's values at the chosen points: a 1-D dataset of /samples over
 * `point`, with the axis's units and long name (rank 0 writes it); i is
 * the axis's place among the file's dimensions. */
static int create_point_coord(ssw_h5out *h, int i, const double *values) {
  int status = SSW_SUCCESS;
  hid_t space = H5I_INVALID_HID;
  const int a = h->axis[i];
  const char *name = ssw_axis_names[a];
  H5TRY(space = H5Screate_simple(1, h->sdims, NULL), "/samples/%s", name);
  H5TRY(h->scoord[i] = H5Dcreate2(h->sgroup, name, H5T_IEEE_F64LE, space,
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "/samples/%s in '%s'", name, h->path);
  char unit_text[96];
  udunits(h, axis_info[a].units, unit_text, sizeof unit_text);
  TRY(ssw_h5_attr_str(h->scoord[i], name, "units", unit_text));
  TRY(ssw_h5_attr_str(h->scoord[i], name, "long_name", axis_info[a].long_name));
  if (h->rank != 0) H5TRY(H5Sselect_none(space), "/samples/%s", name);
  H5TRY(H5Dwrite(h->scoord[i], H5T_NATIVE_DOUBLE, space, space, H5P_DEFAULT,
                 values),
        "/samples/%s in '%s'", name, h->path);
done:
  if (space >= 0) H5Sclose(space);
  return status;
}

/* The /samples group's coordinates along `point`: the scale (each chosen
 * point's flat grid index) and, per axis, the points' values (CF auxiliary
 * coordinates, named by the data's `coordinates` attribute). */
static int create_sample_coords(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  const size_t P = h->sel.n;
  uint64_t *idx = malloc(P * sizeof *idx);
  double *val = malloc(P * sizeof *val);
  if (!idx || !val) {
    status = SSW_RAISE(SSW_ERR_MEM, "out of memory for %zu sample points", P);
    goto done;
  }
  for (size_t k = 0; k < P; k++)
    idx[k] = h->sel.all ? (uint64_t)k : h->sel.index[k];
  TRY(create_scale(h, h->sgroup, "point", h->sdims[0], H5T_STD_U64LE,
                   H5T_NATIVE_UINT64, idx, "1",
                   "grid point keeping sample trajectories (flat index, "
                   "row-major over the grid's dimensions)",
                   &h->sdim[0]));
  for (int i = 0; i < h->naxes; i++) {
    for (size_t k = 0; k < P; k++)
      val[k] = ssw_grid_value(cfg->axes, idx[k], h->axis[i]);
    TRY(create_point_coord(h, i, val));
  }
done:
  free(idx);
  free(val);
  return status;
}

/* /samples: datasets over (point, sample, node) for the chosen points
 * only; point, sample and node are scales of the group, and the grid
 * coordinates of the points are auxiliary coordinates along point. */
int ssw_h5_create_samples(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  hid_t gcpl = H5I_INVALID_HID;
  const int n = h->samples > h->nodes ? h->samples : h->nodes;
  char coordinates[96] = ""; /* the file's dimensions: "theta a b r s A B" */
  for (int i = 0; i < h->naxes; i++)
    snprintf(coordinates + strlen(coordinates),
             sizeof coordinates - strlen(coordinates), "%s%s", i ? " " : "",
             ssw_axis_names[h->axis[i]]);
  int *idx = malloc((size_t)n * sizeof *idx);
  SSW_CHECK(idx, SSW_ERR_MEM, "out of memory");
  for (int i = 0; i < n; i++)
    idx[i] = i;
  H5TRY(gcpl = H5Pcreate(H5P_GROUP_CREATE), "group /samples");
  H5TRY(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED |
                                             H5P_CRT_ORDER_INDEXED),
        "group /samples");
  H5TRY(h->sgroup =
            H5Gcreate2(h->file, "samples", H5P_DEFAULT, gcpl, H5P_DEFAULT),
        "group /samples in '%s'", h->path);
  for (int q = 0; q < SSW_SAMPLE_NQ; q++) {
    TRY(create_dataset(h, h->sgroup, ssw_h5_sample_quantities[q].name, 3,
                       h->sdims, T_F64, NAN, 1,
                       ssw_h5_sample_quantities[q].units,
                       ssw_h5_sample_quantities[q].long_name, &h->sdset[q]));
    TRY(ssw_h5_attr_str(h->sdset[q], ssw_h5_sample_quantities[q].name,
                        "coordinates", coordinates));
  }
  /* Scales after the data, so that readers list the data first. */
  TRY(create_sample_coords(h, cfg));
  TRY(create_scale(
      h, h->sgroup, "sample", h->sdims[1], H5T_STD_I32LE, H5T_NATIVE_INT, idx,
      "1", "sample trajectory (ensemble members 0 .. samples-1)", &h->sdim[1]));
  TRY(create_scale(
      h, h->sgroup, "node", h->sdims[2], H5T_STD_I32LE, H5T_NATIVE_INT, idx,
      "1",
      "row at evenly spaced times along the trajectory (a forced point: "
      "the period map's points, t = kT)",
      &h->sdim[2]));
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    TRY(attach_scales(h->sdset[q], ssw_h5_sample_quantities[q].name, h->sdim,
                      3));
  for (int i = 0; i < h->naxes; i++)
    TRY(attach_scales(h->scoord[i], ssw_axis_names[h->axis[i]], h->sdim, 1));
done:
  free(idx);
  if (gcpl >= 0) H5Pclose(gcpl);
  return status;
}

static const char *ic_name(int ic) {
  return ic >= 0 && ic < SSW_IC_COUNT ? ssw_ic_names[ic] : "unknown";
}

static const char *forcing_shape_name(int shape) {
  return shape >= 0 && shape < SSW_FORCING_COUNT
             ? ssw_forcing_shape_names[shape]
             : "unknown";
}

/* Whether `name` is a dimension of the file beyond the body's. */
static int swept(const ssw_h5out *h, const char *name) {
  for (int i = SSW_NBODY_AXES; i < h->naxes; i++)
    if (strcmp(ssw_axis_names[h->axis[i]], name) == 0) return 1;
  return 0;
}

/* Root provenance known from the config and the library. */
int ssw_h5_write_config_attrs(ssw_h5out *h, const ssw_config *cfg) {
  int status = SSW_SUCCESS;
  const hid_t f = h->file;
  const char *w = "/";
  unsigned maj = 0, min = 0, rel = 0;
  char hdf5[32];
  const char *recon = ssw_recon_name(cfg->integ.recon);
  H5TRY(H5get_libversion(&maj, &min, &rel), "the library version");
  snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
  TRY(ssw_h5_attr_str(f, w, "title",
                      "hydrodynamic Chaplygin sleigh parameter sweep"));
  TRY(ssw_h5_attr_str(f, w, "Conventions", "CF-1.8"));
  TRY(ssw_h5_attr_str(f, w, SSW_ATTR_PROGRAM, "sleighsweep"));
  TRY(ssw_h5_attr_i32(f, w, SSW_ATTR_FORMAT_VERSION, SSW_H5_FORMAT_VERSION));
  TRY(ssw_h5_attr_str(f, w, "version", ssw_version_string()));
  TRY(ssw_h5_attr_str(f, w, "git_revision", ssw_version_git()));
  TRY(ssw_h5_attr_str(f, w, SSW_ATTR_CONFIG, cfg->text));
  TRY(ssw_h5_attr_str(f, w, "config_path", cfg->path));
  TRY(ssw_h5_attr_str(f, w, "hdf5_version", hdf5));
  /* Every real [body] key (m, I0, rho, Gamma, zero_tol, ...) as an
   * attribute of its name, from the key table; a run axis (Gamma, energy)
   * is an attribute while it holds one value and a dimension (a coordinate
   * dataset of that name) when swept. */
  ssw_config_real body[16];
  const int nb = ssw_config_reals("body", body, 16);
  for (int i = 0; i < nb && i < 16; i++)
    if (!swept(h, body[i].name))
      TRY(ssw_h5_attr_f64(f, w, body[i].name,
                          ssw_config_real_get(cfg, &body[i])));
  TRY(ssw_h5_attr_str(f, w, "Gamma_convention",
                      "circulation about the ellipse, counter-clockwise "
                      "positive: lift rho Gamma Jccw V_C at the ellipse "
                      "centre C = (r, s), torque about the contact point "
                      "rho Gamma r v (docs/theory/circulation.md)"));
  if (h->length_unit[0])
    TRY(ssw_h5_attr_str(f, w, "length_unit", h->length_unit));
  if (h->mass_unit[0]) TRY(ssw_h5_attr_str(f, w, "mass_unit", h->mass_unit));
  TRY(ssw_h5_attr_str(f, w, "forcing_shape",
                      forcing_shape_name(cfg->body.forcing_shape)));
  TRY(ssw_h5_attr_f64(f, w, "k_rot", cfg->body.k_rot));
  TRY(ssw_h5_attr_str(f, w, "k_rot_convention", cfg->k_rot_name));
  const ssw_integrator *o = &cfg->integ;
  TRY(ssw_h5_attr_str(f, w, "scheme", o->method ? o->method->name : "unknown"));
  TRY(ssw_h5_attr_str(f, w, "reconstruction", recon ? recon : "unknown"));
  /* Which step rule made the numbers: adaptive (rtol) or fixed (eta). */
  TRY(ssw_h5_attr_str(f, w, "step_control",
                      o->rtol > 0 ? "adaptive" : "fixed"));
  TRY(ssw_h5_attr_f64(f, w, "rtol", o->rtol));
  TRY(ssw_h5_attr_f64(f, w, "eta", o->eta));
  TRY(ssw_h5_attr_f64(f, w, "tol", ssw_integrator_stop_tol(o)));
  TRY(ssw_h5_attr_num(f, w, "max_steps", H5T_STD_I64LE, H5T_NATIVE_INT64, 1,
                      &o->max_steps));
  TRY(ssw_h5_attr_i32(f, w, "tail", o->tail));
  TRY(ssw_h5_attr_i32(f, w, "error_estimate", o->estimate));
  TRY(ssw_h5_attr_i32(f, w, "trajectories", cfg->trajectories));
  TRY(ssw_h5_attr_u64(f, w, "seed", cfg->seed));
  TRY(ssw_h5_attr_i32(f, w, "attractor_slots", cfg->attractor_slots));
  TRY(ssw_h5_attr_str(f, w, "initial_conditions", ic_name(cfg->ic)));
  if (!swept(h, "energy")) TRY(ssw_h5_attr_f64(f, w, "energy", cfg->energy));
  TRY(ssw_h5_attr_i32(f, w, "samples", cfg->samples));
  TRY(ssw_h5_attr_i32(f, w, "sample_nodes", h->nodes));
  TRY(ssw_h5_attr_u64(f, w, "points_total", h->total));
done:
  return status;
}

/* Root provenance known to the caller (rank 0's values). */
int ssw_h5_write_meta_attrs(ssw_h5out *h, const ssw_h5out_meta *meta) {
  int status = SSW_SUCCESS;
  static const char *const names[] = {"mpi_library_version", "hostname",
                                      "command_line", SSW_ATTR_START_TIME};
  const char *values[] = {meta->mpi_library_version, meta->hostname,
                          meta->command_line, meta->start_time};
  int counts[2] = {meta->mpi_ranks, meta->omp_threads};
  char *text = NULL;
  MPITRY(MPI_Bcast(counts, 2, MPI_INT, 0, h->comm));
  TRY(ssw_h5_attr_i32(h->file, "/", "mpi_ranks", counts[0]));
  TRY(ssw_h5_attr_i32(h->file, "/", "omp_threads", counts[1]));
  for (int i = 0; i < 4; i++) {
    TRY(ssw_mpi_bcast_str(h->comm, values[i], &text));
    TRY(ssw_h5_attr_str(h->file, "/", names[i], text));
    free(text);
    text = NULL;
  }
  TRY(ssw_h5_attr_str(h->file, "/", SSW_ATTR_STATUS, SSW_STATUS_RUNNING));
done:
  free(text);
  return status;
}

void ssw_h5_column_value(const column *c, const ssw_point_result *r, void *buf,
                         size_t j) {
  const char *field = (const char *)r + c->offset;
  double d = 1.0;
  long long v = 1;
  if (c->src == SRC_DOUBLE) memcpy(&d, field, sizeof d);
  if (c->src == SRC_INT) {
    int x;
    memcpy(&x, field, sizeof x);
    v = x;
  }
  if (c->src == SRC_INT32) {
    int32_t x;
    memcpy(&x, field, sizeof x);
    v = x;
  }
  switch (c->type) {
  case T_F64: ((double *)buf)[j] = d; break;
  case T_I32: ((int32_t *)buf)[j] = (int32_t)v; break;
  case T_I8: ((int8_t *)buf)[j] = (int8_t)v; break;
  case T_U8: ((uint8_t *)buf)[j] = (uint8_t)v; break;
  }
}
