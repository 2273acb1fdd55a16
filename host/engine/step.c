// One scene's step on the host (a batch is scene-major, as the stages index it), and the contact
// forces a step leaves in its work arrays.
#include "engine/engine.h"
#include "engine/stage_step.h"

// a host batch is scene-major, which is how the stages index it: no one-scene copy per step
void tb_stepScene(const tbModel* m, tbData* d, int s, tbWork* w) {
  tb_step(tb_solo(), m, d, s, w);
}

// whether the contact block starting at row r is shape contact c's: its normal row is built from
// the contact's bodies and normal (tb_contactRows), which no support row or other contact shares
static int tb_isContactBlock(const tbModel* m, const tbWork* w, int c, const tbRowJ* r) {
  int pair = w->con_pair[c];
  const double* n = w->con[c].normal;
  return r->body[0] == m->geom_body[m->pair_geom[2 * pair]] &&
         r->body[1] == m->geom_body[m->pair_geom[2 * pair + 1]] && r->J[0][0] == n[0] &&
         r->J[0][1] == n[1] && r->J[0][2] == n[2];
}

// world point k (0..2) of the support tripods, in the order tb_supportRows makes their blocks
static void tb_supportPoint(const tbModel* m, const tbWork* w, int k, double p[3]) {
  int sup = k / 3, i = k % 3, b = m->sup_body[sup];
  const double* prm = tb_varyOf(m, w->vary, TB_F_SUPPORT, sup);
  double local[3] = {prm[TB_SUP_POINT + 2 * i], prm[TB_SUP_POINT + 2 * i + 1], 0.0}, r[3];
  tbu_rotVec(r, w->xquat + 4 * b, local);
  tbu_add3(p, w->xpos + 3 * b, r);
}

int tb_stepContacts(const tbModel* m, const tbWork* w, tbContactForce* out) {
  int n = 0, c = 0, sup = 0;
  for (int bk = 0; bk < w->nblock; bk++) {
    if (w->blk_type[bk] != TB_BLOCK_CONTACT) continue;
    int adr = w->blk_adr[bk];
    const tbRowJ* r = &w->row[adr];
    tbContactForce* f = &out[n++];
    tbu_zero3(f->force);
    for (int k = 0; k < w->blk_dim[bk]; k++)
      tbu_addscl3(f->force, f->force, r[k].J[0], w->x[adr + k] / w->h);
    f->body[0] = r->body[0];
    f->body[1] = r->body[1];
    while (c < w->ncon && !tb_isContactBlock(m, w, c, r)) c++;  // contacts without a row
    if (c < w->ncon) {
      tbu_copy3(f->pos, w->con[c++].pos);
    } else {
      tb_supportPoint(m, w, sup++, f->pos);
    }
  }
  return n;
}
