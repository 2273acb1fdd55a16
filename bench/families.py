"""tumble against MuJoCo's rollout on generated scenes nobody tuned for (issue 60).

Each family of bench/scenes.py is run at seeds 0-9 (those constants may be chosen on) and 10-19
(held out), both engines reading the same file: tumble through `tumble simulate --model FILE`
(its MJCF solver: `auto`, exact cone), MuJoCo through mujoco.rollout (Newton, elliptic cone), the
same scenes, steps and threads, best of `--reps` with the engines alternated (mujoco_rollout.py's
timing). A row per seed gives the ratio (tumble's scene-steps/s over MuJoCo's: above 1, tumble is
faster) and tumble's status; a summary per family gives the median and the worst ratio over each
half. With --instructions, callgrind counts one scene of each file on one thread (tumble's
rollout, MuJoCo's mj_step; instructions.py's method) beside the timings.

Output: markdown tables on stdout (date, machine, commit, versions in the header).
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import mujoco

import instructions as ins
import mujoco_rollout as mr
import scenes

SEEDS = {"tuned on": range(0, 10), "held out": range(10, 20)}


def tumble_run(binary, path, nscene, nstep, threads):
    cmd = [binary, "simulate", "--model", path, "--scenes", str(nscene), "--steps", str(nstep),
           "--threads", str(threads), "--device", "cpu"]
    return mr.json_status(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def instructions(binary, path, nstep):
    """callgrind's instructions a scene-step: tumble's, MuJoCo's"""
    t, _ = ins.callgrind([binary, "simulate", "--model", path, "--scenes", "1", "--steps",
                          str(nstep), "--threads", "1", "--device", "cpu"], "tb_rollout")
    m, _ = ins.callgrind([sys.executable, os.path.abspath(__file__), "--mujoco-file", path,
                          "--steps", str(nstep)], "mj_step")
    return t / nstep, m / nstep


def status(run, nscene):
    return f"{run['failed']}, {run['unconverged']}/{nscene}, {run['max_residual']:.2g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tumble", default="build/tumble", help="the tumble binary")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=2, choices=range(1, 101), metavar="1..100")
    ap.add_argument("--scale", type=float, default=1.0, help="scenes x this (a quick run: 0.25)")
    ap.add_argument("--family", action="append", choices=sorted(scenes.FAMILIES),
                    help="this family alone (repeatable; default: every family)")
    ap.add_argument("--instructions", action="store_true",
                    help="callgrind's counts too (one scene, one thread, 200 steps a file)")
    ap.add_argument("--mujoco-file", help=argparse.SUPPRESS)  # the child under valgrind
    ap.add_argument("--steps", type=int, default=200, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.mujoco_file:
        with open(a.mujoco_file) as f:
            mr.mujoco_seconds(f.read(), 1, a.steps, 1, None)
        return

    print("# tumble against MuJoCo's rollout on generated scenes (bench/scenes.py)\n")
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs,"
          f" load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"- commit: {mr.commit()}")
    print(f"- MuJoCo {mujoco.__version__} (Newton, elliptic cone); tumble `auto` (exact cone, "
          f"tolerance 1e-8); {a.threads} threads on both; best of {a.reps}, alternated\n")
    cols = "| family | seed | scenes x steps | tumble / MuJoCo, timed |"
    if a.instructions:
        cols += " tumble instr/step | MuJoCo instr/step |"
    print(cols + " tumble: failed, unconverged scenes, max residual |")
    print("|---|---:|---|---:|" + ("---:|---:|" if a.instructions else "") + "---|")
    ratios = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family in a.family or list(scenes.FAMILIES):
            _, nstep, nscene = scenes.FAMILIES[family]
            nscene = max(a.threads, int(nscene * a.scale))
            for half, seeds in SEEDS.items():
                for seed in seeds:
                    path = os.path.join(tmp, f"{family}-{seed}.xml")
                    xml = scenes.scene(family, seed)
                    with open(path, "w") as f:
                        f.write(xml)
                    best_t = best_m = float("inf")
                    for _ in range(a.reps):
                        run = tumble_run(a.tumble, path, nscene, nstep, a.threads)
                        best_t = min(best_t, run["seconds"])
                        best_m = min(best_m, mr.mujoco_seconds(xml, nscene, nstep, a.threads,
                                                               None))
                    ratio = best_m / best_t
                    ratios.setdefault((family, half), []).append((ratio, seed, run, nscene))
                    row = f"| {family} | {seed} | {nscene} x {nstep} | {ratio:.2f} |"
                    if a.instructions:
                        ti, mi = instructions(a.tumble, path, 200)
                        row += f" {ti:.4g} | {mi:.4g} |"
                    print(row + f" {status(run, nscene)} |", flush=True)
    print("\n| family | seeds | median tumble / MuJoCo | worst (seed) | scenes unconverged |")
    print("|---|---|---:|---:|---:|")
    for (family, half), rs in ratios.items():
        worst = min(rs, key=lambda r: r[0])
        unconverged = sum(r[2]["unconverged"] for r in rs)
        total = sum(r[3] for r in rs)
        print(f"| {family} | {half} ({rs[0][1]}-{rs[-1][1]}) | "
              f"{statistics.median(r[0] for r in rs):.2f} | {worst[0]:.2f} ({worst[1]}) | "
              f"{unconverged}/{total} |")


if __name__ == "__main__":
    main()
