// `tumble plate field`'s outputs, which `plate optimize` writes for its best motion too: the
// table of starts (CSV or HDF5) and the quiver plot.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/plate.h>

#include "cli/cli.h"
#include "plot/plot.h"

// the rows of starts [s0, s1): start, mean position and velocity, contact fractions, status
void tb_fieldRows(FILE* f, const tbFieldResult* r, int s0, int s1) {
  for (int i = s0; i < s1; i++) {
    const tbFieldPoint* p = &r->pt[i];
    char text[96];
    tb_statusText(p->status, text, sizeof(text));
    fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%s\n", p->x0, p->y0,
            p->mean_x, p->mean_y, p->vx, p->vy, p->speed, p->stick, p->separated, p->status, text);
  }
}

// the table of every start run
static void tb_writeFieldRows(FILE* f, const tbFieldResult* r) {
  fprintf(f,
          "x0,y0,mean_x,mean_y,vx,vy,speed,stick_fraction,separated_fraction,status,"
          "status_text\n");
  tb_fieldRows(f, r, 0, r->done);
}

static int tb_writeFieldPNG(tbOutFile* png, const tbPlateMotion* mo, int modified,
                            const tbFieldOpt* o, const tbFieldResult* r) {
  int n = r->done;
  double* buf = (double*)malloc(sizeof(double) * 6 * (size_t)n);
  int* mark = (int*)malloc(sizeof(int) * (size_t)n);
  if (!buf || !mark) {
    free(buf);
    free(mark);
    return tb_cliError("--out %s: out of memory for the plot", png->path);
  }
  for (int i = 0; i < n; i++) {
    const tbFieldPoint* p = &r->pt[i];
    buf[i] = p->mean_x;
    buf[n + i] = p->mean_y;
    buf[2 * n + i] = p->vx;
    buf[3 * n + i] = p->vy;
    buf[4 * n + i] = p->x0;
    buf[5 * n + i] = p->y0;
    mark[i] = p->stick > TB_FIELD_STICK_MARK;
  }
  char title[160];
  snprintf(title, sizeof(title), "%s%s: %s, mu %g, %g s%s", mo->name, modified ? " (modified)" : "",
           o->box ? "box" : "particle", o->mu, o->seconds, r->done < r->n ? " (partial)" : "");
  int nx = o->nx > o->ny ? o->nx : o->ny;
  double spacing = nx > 1 ? 2.0 * o->extent / (nx - 1) : o->extent;
  tbQuiver q = {title,           o->extent,   0.1 * o->extent, n,    buf,         buf + n,
                buf + 2 * n,     buf + 3 * n, 0.8 * spacing,   mark, buf + 4 * n, buf + 5 * n,
                "sticking start"};
  int rc = tb_plotQuiver(png->f, &q, 900, 760);
  free(buf);
  free(mark);
  return rc ? tb_cliPlotFailed(png) : 0;
}

int tb_fieldOutOpen(tbFieldOut* out, const char* prefix) {
  memset(out, 0, sizeof(*out));
  out->h5 = tb_isH5(prefix);
  int stem = out->h5 ? (int)(strrchr(prefix, '.') - prefix) : (int)strlen(prefix);
  char path[4200];
  snprintf(path, sizeof(path), "%.*s.%s", stem, prefix, out->h5 ? "h5" : "csv");
  int rc = tb_cliOutOpen(&out->table, "--out", path);
  snprintf(path, sizeof(path), "%.*s.png", stem, prefix);
  return rc ? rc : tb_cliOutOpen(&out->png, "--out", path);
}

int tb_fieldOutWrite(tbFieldOut* out, const tbPlateMotion* mo, int modified, const tbFieldOpt* o,
                     const tbFieldResult* r) {
  int rc = tb_writeFieldPNG(&out->png, mo, modified, o, r);
  if (rc || !out->h5) {
    if (!rc) tb_writeFieldRows(out->table.f, r);
    return rc;
  }
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return tb_cliError("--out %s: out of memory", out->table.path);
  tb_writeFieldRows(f, r);
  fclose(f);
  const char* name[1] = {"starts"};
  rc = tb_writeTablesH5(&out->table, "plate field", r->done < r->n, 1, name, &text);
  free(text);
  return rc;
}

void tb_fieldOutAbort(tbFieldOut* out) {
  tb_outAbort(&out->table);
  tb_outAbort(&out->png);
}
