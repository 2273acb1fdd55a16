"""The velocity field a vibrating plate motion sets up (thesis §5.3), as arrows of mean part
velocity over a grid of starts, written to a CSV.

    python examples/python/plate_field.py [--motion circle-vose] [--grid 8] [--out field.csv]
"""
import argparse
import csv

import numpy as np

import tumble


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--motion", default="circle-vose", choices=tumble.plate_motions())
    ap.add_argument("--grid", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--out", default="field.csv")
    a = ap.parse_args()
    f = tumble.plate_field(a.motion, grid=(a.grid, a.grid), seconds=a.seconds)
    with open(a.out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["x0", "y0", "vx", "vy", "speed"])
        w.writerows(zip(f["x0"], f["y0"], f["vx"], f["vy"], f["speed"]))
    # the circulation about the plate's center: positive for a counter-clockwise field
    curl = np.mean(f["x0"] * f["vy"] - f["y0"] * f["vx"])
    print(f"{a.motion}: mean speed {1e3 * np.mean(f['speed']):.2f} mm/s, "
          f"mean x v_y - y v_x {curl:.3g} m^2/s, {f['failed']} failed; {a.out}")


if __name__ == "__main__":
    main()
