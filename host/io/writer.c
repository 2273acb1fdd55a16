// The FC3D text writer of include/tumble/reader.h: a step's problem exported for `tumble solve`
// or Siconos. In the engine library (tb_exportProblems), apart from the readers' HDF5 and CHOLMOD.
#include <stdio.h>

#include <tumble/reader.h>

#include "util/error.h"
#include "jobs/outfile.h"

// the contact of p that keeps it from being an FC3D problem (contact k not 3 rows at 3 k, or a
// box row), or -1 when it is one
static int wr_notFC3D(const tbProblem* p) {
  if (p->nblock * 3 != p->n) return 0;
  for (int k = 0; k < p->nblock; k++) {
    if (p->blk_type[k] != TB_BLOCK_CONTACT || p->blk_dim[k] != 3 || p->blk_adr[k] != 3 * k)
      return k;
  }
  return -1;
}

int tb_writeFC3D(const char* path, const tbProblem* p) {
  if (p->cone != TB_CONE_EXACT)
    return tb_setError("%s: cone: FC3D files hold the exact cone", path);
  if (p->n < 3) return tb_setError("%s: nc: a problem without contacts", path);
  int k = wr_notFC3D(p);
  if (k >= 0)
    return tb_setError(
        "%s: block %d: not a 3-row contact (joint rows, planar or frictionless "
        "contacts have no FC3D form)",
        path, k);
  // a failed write leaves an earlier file as it was
  tbOutFile out;
  if (tb_outOpen(&out, path) != TB_OK) return TB_ERR_ARG;
  FILE* f = out.f;
  int n = p->n;
  fprintf(f, "3\n%d\n0\n%d\n%d\n%d\t%d\n", p->nblock, n, n, n, n);
  // column-major, Siconos' dense layout; %.17g round-trips every double
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) fprintf(f, "%.17g ", p->A[(size_t)i * n + j]);
    fputc('\n', f);
  }
  for (int i = 0; i < n; i++) fprintf(f, "%.17g\n", p->b[i]);
  for (int c = 0; c < p->nblock; c++) fprintf(f, "%.17g\n", p->blk_mu[c]);
  return tb_outCommit(&out);
}
