"""A grasp map for a part of one's own: the gripper and L-shaped part of lpart.xml (MJCF), the
part placed at each offset of a grid from the fingers' midline, with uncertain support and
gripper friction per trial. The goal is the firm grasp across the 40 mm bar: a trial succeeds
when the fingers end clamping the part's full length (not only the 8 mm foot, or nothing), its
center between them, everything at rest. Prints the success probability per cell (y up, the
goal's map) and the widest 95% Wilson interval.

    python examples/python/grasp_mjcf.py [--grid 9] [--trials 20] [--extent 0.02]
"""
import argparse
import math
import os

import numpy as np

import tumble

FINGER_HALF = (0.005, 0.02)  # the fingers' half width (x) and half length (y), m
BAR = 0.040  # the part's length along x, m: the fingers' gap in the goal grasp


def wilson(k, n, z=1.959963984540054):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "lpart.xml"))
    ap.add_argument("--grid", type=int, default=9)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--extent", type=float, default=0.02, help="offsets in [-E, E]^2, m")
    ap.add_argument("--steps", type=int, default=500)
    a = ap.parse_args()
    model = tumble.Model.from_mjcf(a.model)
    model.solver = "auto"  # converges the clamped steps PGS leaves near 1e-2
    axis = np.linspace(-a.extent, a.extent, a.grid)
    ox, oy = np.meshgrid(axis, axis)  # x fastest
    cell = np.repeat(np.arange(a.grid * a.grid), a.trials)
    n = cell.size
    batch = model.batch(n, seed=7, params={
        "part.pos_x": ox.ravel()[cell], "part.pos_y": oy.ravel()[cell],
        "tumble_tripod_part.data_0": "uniform:0.2:0.5",  # support friction
        "left.friction": "uniform:0.3:0.9", "right.friction": "uniform:0.3:0.9"})
    out = batch.rollout(a.steps)
    body = {name: model.bodies.index(name) for name in ("part", "left", "right")}
    end = out.pos[:, -1]
    left, right, part = end[:, body["left"]], end[:, body["right"]], end[:, body["part"]]
    inner = (left[:, 0] + FINGER_HALF[0], right[:, 0] - FINGER_HALF[0])
    across_bar = np.abs(inner[1] - inner[0] - BAR) < 1e-3
    between = (part[:, 0] > inner[0]) & (part[:, 0] < inner[1])
    still = np.abs(out.vel[:, -1]).max(axis=(1, 2)) < 1e-3
    success = across_bar & between & still & ~out.failed
    k = np.bincount(cell, weights=success, minlength=a.grid * a.grid)
    p = k / a.trials
    bounds = np.array([wilson(int(kk), a.trials) for kk in k])
    print(f"{n} trials, {int(out.failed.sum())} failed numerically, "
          f"{int(np.sum(out.status & tumble.STATUS_UNCONVERGED != 0))} with an unconverged step; "
          f"widest 95% interval {np.max(bounds[:, 1] - bounds[:, 0]):.3f}")
    for row in p.reshape(a.grid, a.grid)[::-1]:  # y up
        print(" ".join(f"{v:4.2f}" for v in row))
    best = int(np.argmax(p))
    print(f"best offset x {1e3 * ox.ravel()[best]:.1f} mm, y {1e3 * oy.ravel()[best]:.1f} mm: "
          f"p = {p[best]:.2f} [{bounds[best, 0]:.2f}, {bounds[best, 1]:.2f}]")


if __name__ == "__main__":
    main()
