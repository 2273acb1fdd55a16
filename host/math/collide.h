// The narrow phase's entry: each shape pair's routine (collide_geom.h, collide_hull.h), shared by
// the CPU path and the CUDA kernels.
#ifndef TUMBLE_COLLIDE_H_
#define TUMBLE_COLLIDE_H_

#include "math/collide_geom.h"
#include "math/collide_hull.h"

// every contact between a and b whose gap is < margin (margin >= 0), at most TB_MAXCON_PAIR;
// returns the count. Any ordering of types; plane-plane returns 0.
TB_HD int tbu_collide(const tbGeomPose* a, const tbGeomPose* b, double margin,
                      tbContactPoint* out) {
  int swap = a->type > b->type;
  const tbGeomPose* p = swap ? b : a;
  const tbGeomPose* q = swap ? a : b;
  int n = 0;
  switch (p->type * TB_NGEOMTYPE + q->type) {
    case TB_GEOM_SPHERE* TB_NGEOMTYPE + TB_GEOM_SPHERE:
      n = tbg_collideSphereSphere(p, q, margin, out);
      break;
    case TB_GEOM_SPHERE* TB_NGEOMTYPE + TB_GEOM_CAPSULE:
      n = tbg_collideSphereCapsule(p, q, margin, out);
      break;
    case TB_GEOM_SPHERE* TB_NGEOMTYPE + TB_GEOM_BOX:
      n = tbg_collideSphereBox(p, q, margin, out);
      break;
    case TB_GEOM_SPHERE* TB_NGEOMTYPE + TB_GEOM_PLANE:
      n = tbg_collideSpherePlane(p, q, margin, out);
      break;
    case TB_GEOM_CAPSULE* TB_NGEOMTYPE + TB_GEOM_CAPSULE:
      n = tbg_collideCapsuleCapsule(p, q, margin, out);
      break;
    case TB_GEOM_CAPSULE* TB_NGEOMTYPE + TB_GEOM_BOX:
      n = tbg_collideCapsuleBox(p, q, margin, out);
      break;
    case TB_GEOM_CAPSULE* TB_NGEOMTYPE + TB_GEOM_PLANE:
      n = tbg_collideCapsulePlane(p, q, margin, out);
      break;
    case TB_GEOM_BOX* TB_NGEOMTYPE + TB_GEOM_BOX:
      n = tbg_collideBoxBox(p, q, margin, out);
      break;
    case TB_GEOM_BOX* TB_NGEOMTYPE + TB_GEOM_PLANE:
      n = tbg_collideBoxPlane(p, q, margin, out);
      break;
    case TB_GEOM_PRISM* TB_NGEOMTYPE + TB_GEOM_PRISM:
      n = tbg_collidePrismPrism(p, q, margin, out);
      break;
    case TB_GEOM_SPHERE* TB_NGEOMTYPE + TB_GEOM_MESH:
      n = tbh_collideSphereMesh(p, q, margin, out);
      break;
    case TB_GEOM_CAPSULE* TB_NGEOMTYPE + TB_GEOM_MESH:
      n = tbh_collideCapsuleMesh(p, q, margin, out);
      break;
    case TB_GEOM_BOX* TB_NGEOMTYPE + TB_GEOM_MESH:
      n = tbh_collideBoxMesh(p, q, margin, out);
      break;
    case TB_GEOM_PLANE* TB_NGEOMTYPE + TB_GEOM_MESH:
      n = tbh_collidePlaneMesh(p, q, margin, out);
      break;
    case TB_GEOM_MESH* TB_NGEOMTYPE + TB_GEOM_MESH:
      n = tbh_collideMeshMesh(p, q, margin, out);
      break;
    default:  // plane-plane, a prism with a 3D shape, or an unknown type
      n = 0;
      break;
  }
  if (swap) {  // the pair routine's normal points from a to b here
    for (int i = 0; i < n; i++) tbu_scl3(out[i].normal, out[i].normal, -1.0);
  }
  return n;
}

// upper bound on what tbu_collide can return for these two types (used to size buffers)
TB_HD int tbu_collideMax(int type_a, int type_b) {
  int lo = type_a < type_b ? type_a : type_b, hi = type_a < type_b ? type_b : type_a;
  if (hi == TB_GEOM_MESH) {  // (a mesh meets no prism, and the implicit step's shapes there)
    if (lo == TB_GEOM_SPHERE) return 1;
    if (lo == TB_GEOM_CAPSULE) return 3;
    return lo == TB_GEOM_BOX || lo == TB_GEOM_PLANE || lo == TB_GEOM_MESH ? TB_MAXCON_PAIR : 0;
  }
  if (lo < 0 || hi >= TB_GEOM_ELLIPSOID) return 0;  // (those touch in the implicit step only)
  if (hi == TB_GEOM_PRISM && lo != TB_GEOM_PRISM) return 0;  // prisms only meet prisms
  if (lo == TB_GEOM_SPHERE) return 1;
  if (lo == TB_GEOM_CAPSULE) return hi == TB_GEOM_BOX ? 3 : 2;
  if (lo == TB_GEOM_BOX) return 8;
  if (lo == TB_GEOM_PRISM) return 2;
  return 0;  // plane-plane
}

#endif  // TUMBLE_COLLIDE_H_
