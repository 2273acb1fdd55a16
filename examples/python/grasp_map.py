"""The planar grasp study's success-probability map (the gear, tumble grasp's defaults), printed
as a table of probabilities with the widest 95% interval.

    python examples/python/grasp_map.py [--grid 21] [--trials 30]
"""
import argparse

import numpy as np

import tumble


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", type=int, default=21)
    ap.add_argument("--trials", type=int, default=30)
    a = ap.parse_args()
    g = tumble.grasp(grid=(a.grid, a.grid), trials=a.trials)
    p = g["p"].reshape(g["shape"])
    print(f"{g['scenes']} trials, {g['failed_scenes']} failed numerically; "
          f"widest 95% interval {np.max(g['hi95'] - g['lo95']):.3f}")
    for row in p[::-1]:  # y up
        print(" ".join(" ." if np.isnan(v) else f"{v:3.1f}"[1:] if v < 1 else " 1" for v in row))
    best = int(np.nanargmax(g["p"]))
    print(f"best offset x {1e3 * g['x'][best]:.1f} mm, y {1e3 * g['y'][best]:.1f} mm: "
          f"p = {g['p'][best]:.2f} [{g['lo95'][best]:.2f}, {g['hi95'][best]:.2f}]")


if __name__ == "__main__":
    main()
