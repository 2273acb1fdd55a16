"""A 3-link chain on ball joints (tests/mjcf/ball-pendulum.xml, started by its keyframe turning in
3D) stepped 1 s by MuJoCo (semi-implicit Euler, contacts off) and by tumble (minimal ball joints:
quaternion coordinates, child-frame rates): two first-order steps of one ODE, so the links'
positions differ by O(h), halving with h (seen: 6.6e-4 m at h = 1e-3, 3.3e-4 m at 5e-4).

    python3 tests/mujoco_ball_chain_check.py TUMBLE_BINARY

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

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mjcf", "ball-pendulum.xml")


def mujoco_links(h, n):
    m = mujoco.MjModel.from_xml_path(MODEL)
    m.opt.timestep = h
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.geom_contype[:] = 0  # the chain hangs above the floor: no contact either way
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(n):
        mujoco.mj_step(m, d)
    return np.array([d.xipos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"link{i}")]
                     for i in range(3)])


def tumble_links(binary, h, n):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "chain.csv")
        subprocess.run([binary, "simulate", "--model", MODEL, "--steps", str(n), "--dt", str(h),
                        "--every", str(n), "--out", out], check=True, capture_output=True)
        rows = [r for r in csv.DictReader(open(out)) if int(r["step"]) == n]
        pos = {r["body"]: [float(r[k]) for k in ("x", "y", "z")] for r in rows}
    return np.array([pos[f"link{i}"] for i in range(3)])


def main():
    binary = sys.argv[1]
    diff = {}
    for h in (1e-3, 5e-4):
        n = round(1.0 / h)
        mj, tb = mujoco_links(h, n), tumble_links(binary, h, n)
        if not abs(mj[:, 1]).max() > 0.1:
            sys.exit(f"h {h}: the chain stayed in its plane (y {mj[:, 1]}): the keyframe's rates lost")
        diff[h] = abs(mj - tb).max()
        print(f"h {h}: links differ by {diff[h]:.3g} m after 1 s")
    ratio = diff[1e-3] / diff[5e-4]
    if not (diff[1e-3] < 2e-3 and 1.7 < ratio < 2.3):
        sys.exit(f"not first-order agreement: {diff} (ratio {ratio:.3g})")


main()
