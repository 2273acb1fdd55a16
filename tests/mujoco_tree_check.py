"""Kinematic trees in minimal coordinates stepped 1 s by MuJoCo (semi-implicit Euler, contacts
off) and by tumble: two first-order steps of one ODE, so the bodies' positions differ by O(h),
halving with h.

- tests/mjcf/ball-pendulum.xml: a 3-link chain on ball joints (quaternion coordinates,
  child-frame rates), started turning in 3D by its keyframe (seen: 6.6e-4 m at h = 1e-3, 3.3e-4
  m at 5e-4).
- tests/mjcf/branched-tree.xml: a base whose two arms (hinges; a slide and a hinge) branch, so
  the mass matrix's factor fills in between the branches (a stale factor failed the scene on its
  first step), two joints with armature (seen: 2.1e-3 m at h = 1e-3, 1.0e-3 at 5e-4; with its
  armature ignored by tumble 0.18 m at both).

The O(h) term's size depends on the motion, hence the bound of 5e-3 m at h = 1e-3 beside the
halving, which is what tells two first-order methods of one ODE from two ODEs.

    python3 tests/mujoco_tree_check.py TUMBLE_BINARY

Exits 77 (ctest's skip) when the mujoco package is absent.
"""
import csv
import os
import subprocess
import sys
import tempfile

try:
    import mujoco
    import numpy as np
except ImportError:
    print("mujoco or numpy not installed: skipped")
    sys.exit(77)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mjcf")
MODELS = [os.path.join(HERE, f) for f in ("ball-pendulum.xml", "branched-tree.xml")]


def moving_bodies(model):
    m = mujoco.MjModel.from_xml_path(model)
    return [m.body(b).name for b in range(1, m.nbody) if m.body_dofnum[b] > 0 or
            m.body_parentid[b] != 0]


def mujoco_bodies(model, names, h, n):
    m = mujoco.MjModel.from_xml_path(model)
    m.opt.timestep = h
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.geom_contype[:] = 0  # the trees hang in the air: no contact either way
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(n):
        mujoco.mj_step(m, d)
    return np.array([d.xipos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b)] for b in names])


def tumble_bodies(binary, model, names, h, n):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tree.csv")
        run = subprocess.run([binary, "simulate", "--model", model, "--steps", str(n), "--dt",
                              str(h), "--every", str(n), "--out", out],
                             check=True, capture_output=True, text=True)
        if '"failed": 0' not in run.stdout:
            sys.exit(f"{model}: tumble's scene failed: {run.stdout}")
        rows = [r for r in csv.DictReader(open(out)) if int(r["step"]) == n]
        pos = {r["body"]: [float(r[k]) for k in ("x", "y", "z")] for r in rows}
    return np.array([pos[b] for b in names])


def check(binary, model):
    names = moving_bodies(model)
    diff = {}
    for h in (1e-3, 5e-4):
        n = round(1.0 / h)
        mj, tb = mujoco_bodies(model, names, h, n), tumble_bodies(binary, model, names, h, n)
        if not abs(mj[:, 1]).max() > 0.1:
            sys.exit(f"{model} h {h}: the tree stayed in its plane (y {mj[:, 1]}): the keyframe's "
                     "rates lost")
        diff[h] = abs(mj - tb).max()
        print(f"{os.path.basename(model)} h {h}: bodies differ by {diff[h]:.3g} m after 1 s")
    ratio = diff[1e-3] / diff[5e-4]
    if not (diff[1e-3] < 5e-3 and 1.7 < ratio < 2.3):
        sys.exit(f"{model}: not first-order agreement: {diff} (ratio {ratio:.3g})")


for path in MODELS:
    check(sys.argv[1], path)
