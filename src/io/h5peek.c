/* Serial, read-only looks into an output file (sleighsweep/h5peek.h). */
#include "sleighsweep/h5peek.h"

#include <stdlib.h>
#include <string.h>

char *ssw_h5peek_root_str(hid_t f, const char *name) {
  if (H5Aexists(f, name) <= 0) return NULL;
  char *out = NULL;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT), t = H5I_INVALID_HID;
  if (a < 0) return NULL;
  t = H5Aget_type(a);
  if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      char *v = NULL;
      hid_t m = H5Tcopy(t);
      if (H5Aread(a, m, &v) >= 0 && v) out = strdup(v);
      if (v) H5free_memory(v);
      H5Tclose(m);
    } else {
      const size_t n = H5Tget_size(t);
      out = calloc(n + 1, 1);
      if (out && H5Aread(a, t, out) < 0) free(out), out = NULL;
    }
  }
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return out;
}

int ssw_h5peek_complete(const char *path, const char *config_text) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5E_auto2_t func;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (fapl >= 0) H5Pset_file_locking(fapl, 0, 1);
  const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  int complete = 0;
  if (f >= 0) {
    char *status = ssw_h5peek_root_str(f, "status");
    char *config = ssw_h5peek_root_str(f, "config");
    complete = status && config && strcmp(status, "complete") == 0 &&
               strcmp(config, config_text) == 0;
    free(status);
    free(config);
    H5Fclose(f);
  }
  if (fapl >= 0) H5Pclose(fapl);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return complete;
}
