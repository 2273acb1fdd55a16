"""Instructions a scene-step: tumble's CPU path against MuJoCo's rollout, counted by callgrind.

The timing table (mujoco_rollout.py) swings 20-40% from run to run on a shared machine; an
instruction count does not move. Each engine runs one thread under valgrind's callgrind, which
counts only inside the step loop: tumble's rollout (tb_rollout: every stage of every step,
and the scene's load and store once a rollout) and MuJoCo's mj_step (the rollout's copies of the
state around each step left out). The scenes, time step, friction and solver settings are
mujoco_rollout.py's; one scene each by default (a count is per scene-step and the scenes of a row
are alike). An instruction is not a unit of time: how many a core retires per cycle differs
between the two engines' code, so read this table beside the timed one, not instead of it.

Output: a markdown table on stdout (date, machine, commit, versions in its header).
"""

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

import mujoco

import mujoco_rollout as mr


def callgrind(cmd, collect):
    """instructions callgrind counts in functions matching `collect` while cmd runs, and its
    stdout"""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              "--collect-atstart=no", f"--toggle-collect={collect}"] + cmd,
                             check=True, capture_output=True, text=True)
        with open(out) as f:
            total = re.search(r"^totals:\s+(\d+)", f.read(), re.M)
    if not total:
        raise RuntimeError(f"callgrind counted nothing in {collect}: {run.stderr[-500:]}")
    return int(total.group(1)), run.stdout


def tumble_count(binary, scene, nscene, nstep, solver, extra):
    cmd = [binary, "simulate", scene, "--scenes", str(nscene), "--steps", str(nstep),
           "--threads", "1", "--device", "cpu", "--solver", solver] + extra
    count, out = callgrind(cmd, "tb_rollout")
    return count, mr.json_status(out)


def mujoco_count(row, nscene, nstep):
    cmd = [sys.executable, os.path.abspath(__file__), "--mujoco-row", str(row), "--scenes",
           str(nscene), "--steps", str(nstep)]
    return callgrind(cmd, "mj_step")[0]


def positive(text):
    """an argument that must be a whole number of at least 1"""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tumble", default="build/tumble", help="the tumble binary")
    ap.add_argument("--solver", default="auto", help="tumble's step solver")
    ap.add_argument("--scenes", type=positive, default=1, help="scenes of every row")
    ap.add_argument("--steps", type=positive,
                    help="steps of every row (default: mujoco_rollout.py's)")
    ap.add_argument("--only", action="append", metavar="SCENE",
                    help="this scene's rows alone (repeatable; default: every row)")
    ap.add_argument("--mujoco-row", type=int, help=argparse.SUPPRESS)  # the child under valgrind
    a = ap.parse_args()
    if a.mujoco_row is not None:
        _, xml, _, _, poses, _ = mr.SCENES[a.mujoco_row]
        mr.mujoco_seconds(xml, a.scenes, a.steps, 1, poses)
        return
    if not shutil.which("valgrind"):
        ap.error("valgrind not found on PATH (Debian: apt install valgrind)")

    print("# Instructions a scene-step: tumble's CPU path against MuJoCo's rollout\n")
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"- machine: {platform.processor() or platform.machine()} (counts do not depend on it "
          "but for the code paths the CPU's features pick)")
    print(f"- commit: {mr.commit()}")
    print(f"- MuJoCo {mujoco.__version__} (Newton, elliptic cone), counted in mj_step; tumble "
          f"step solver {a.solver}, counted in its rollout; one thread each, {a.scenes} scene(s), "
          "valgrind's callgrind\n")
    print("| scene | steps | tumble instructions / scene-step | MuJoCo | MuJoCo / tumble | "
          "tumble: failed, unconverged scenes, max residual |")
    print("|---|---:|---:|---:|---:|---|")
    for row, (scene, _, _, nstep, _, extra) in enumerate(mr.SCENES):
        if a.only and scene not in a.only:
            continue
        nstep = a.steps or nstep
        work = a.scenes * nstep
        t, status = tumble_count(a.tumble, scene, a.scenes, nstep, a.solver, extra)
        m = mujoco_count(row, a.scenes, nstep)
        print(f"| {' '.join([scene] + extra)} | {nstep} | {t / work:.4g} | {m / work:.4g} | "
              f"{m / t:.2f} | {status['failed']}, {status['unconverged']}/{a.scenes}, "
              f"{status['max_residual']:.2g} |", flush=True)


if __name__ == "__main__":
    main()
