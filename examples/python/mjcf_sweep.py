"""A Monte Carlo study of one's own MJCF model: the box stack of models/box-stack.xml on a
world tilted by 14 degrees (gravity with a sideways part), over an uncertain friction between
the two upper boxes and an uncertain top-box mass. The answer is the probability that the top
box stays on, with its 95% interval, per friction band: it slides where mu < tan 14 deg = 0.25.

    python examples/python/mjcf_sweep.py [--model models/box-stack.xml] [--scenes 400]
"""
import argparse
import math

import numpy as np

import tumble


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/box-stack.xml")
    ap.add_argument("--scenes", type=int, default=400)
    ap.add_argument("--steps", type=int, default=1500)
    a = ap.parse_args()
    model = tumble.Model.from_mjcf(a.model)
    mu = np.linspace(0.05, 0.6, a.scenes)
    # a contact takes the larger of its shapes' mu: the lower pair sticks at 0.8
    g = 9.81
    batch = model.batch(a.scenes, seed=1, params={
        "ground.friction": 0.8, "box0.friction": 0.8, "box1.friction": mu, "box2.friction": mu,
        "box2.mass": "uniform:0.5:2", "opt.gravity_x": -g * math.sin(math.radians(14)),
        "opt.gravity_z": -g * math.cos(math.radians(14))})
    out = batch.rollout(a.steps)
    top = model.bodies.index("box2")
    # the top box stays when it is still over the middle one (within half a box)
    stays = np.abs(out.pos[:, -1, top, 0] - out.pos[:, -1, top - 1, 0]) < 0.1
    ok = ~out.failed
    for lo, hi in [(0.05, 0.2), (0.2, 0.35), (0.35, 0.6)]:
        band = ok & (mu >= lo) & (mu <= hi)
        k, n = int(np.sum(stays & band)), int(np.sum(band))
        l, h = wilson(k, n)
        print(f"mu in [{lo:.2f}, {hi:.2f}]: top box stays in {k} of {n} "
              f"(p = {k / max(n, 1):.2f}, 95% [{l:.2f}, {h:.2f}])")
    print(f"{int(np.sum(~ok))} scenes failed numerically")


if __name__ == "__main__":
    main()
