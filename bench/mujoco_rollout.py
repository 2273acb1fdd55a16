"""tumble's CPU path against MuJoCo's native multi-threaded rollout (mujoco.rollout).

Same scene, time step, friction, scene count and thread count on both sides; the scenes are
tumble's built-ins written as MJCF (MuJoCo: Newton solver, elliptic cone, condim 3, its default
solref/solimp; tumble: the step solver named by --solver, default auto, at its 1e-8 tolerance).
Each (scene, engine) pair is timed best-of-`--reps`, the engines alternated within a repetition
so that both see the same load. tumble runs through its command line (`tumble simulate`), MuJoCo
through `mujoco.rollout.rollout` with one MjData per thread.

Output: a markdown table on stdout (date, machine, commit, versions in its header).
"""

import argparse
import json
import os
import platform
import re
import subprocess
import math
import time

import mujoco
import numpy as np
from mujoco import rollout

GROUND = "<geom type='plane' size='0 0 1' friction='{mu} 0 0'/>"

SLIDING_SPHERE = f"""<mujoco>
  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3'/></default>
  <worldbody>
    {GROUND.format(mu=0.2)}
    <body pos='0 0 1'>
      <freejoint/>
      <geom type='sphere' size='1' friction='0.2 0 0'/>
      <inertial pos='0 0 0' mass='1' diaginertia='0.4 0.4 0.4'/>
    </body>
  </worldbody>
  <keyframe><key qpos='0 0 1 1 0 0 0' qvel='2 0 0 0 0 0'/></keyframe>
</mujoco>"""

BOX_STACK = f"""<mujoco>
  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3' friction='0.5 0 0'/></default>
  <worldbody>
    {GROUND.format(mu=0.5)}
    <body pos='0 0 0.1'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>
    <body pos='0 0 0.3'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>
    <body pos='0 0 0.5'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>
  </worldbody>
</mujoco>"""


def pendulum(links=3, length=1.0, angle0=0.3):
    """tumble's `pendulum`: links of mass 1 and inertia L^2/12 (0.5 r^2 along), capsules of
    radius 0.05 L, hanging from a pivot at height links L + 1, released at angle0 from vertical
    towards +x; MuJoCo holds the joints in minimal coordinates (hinges), tumble as equality rows"""
    r, ixx = 0.05 * length, length * length / 12.0
    chain = ""
    for i in reversed(range(links)):
        frame = f"pos='0 0 {links * length + 1.0}' euler='0 {-angle0} 0'" if i == 0 else \
            f"pos='0 0 {-length}'"
        chain = (f"<body {frame}><joint type='hinge' axis='0 1 0'/>"
                 f"<geom type='capsule' fromto='0 0 {-r} 0 0 {r - length}' size='{r}'/>"
                 f"<inertial pos='0 0 {-length / 2}' mass='1' "
                 f"diaginertia='{ixx} {ixx} {0.5 * r * r}'/>{chain}</body>")
    return f"""<mujoco>
  <compiler angle='radian'/>
  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3' friction='0.5 0 0'/></default>
  <worldbody>
    {GROUND.format(mu=0.5)}
    {chain}
  </worldbody>
</mujoco>"""


def chain_wall(links=12):
    """tumble's `chain-wall` (Mylapilli & Jain's 12-link pendulum): 1 kg spheres of radius 0.25 m
    at the ends of massless 1 m links on hinges about -y, the first hinged 10 m above the floor,
    a wall 4 m right of the pivot, mu 0.5, the chain straight at -pi/4 turning at 1 rad/s; every
    pair of spheres but neighbours may touch (MuJoCo skips parent-child pairs; tumble's
    neighbours are 1 m apart and cannot). MuJoCo has no restitution coefficient: its contacts
    keep their default soft, nearly plastic response, where tumble bounces at 0.7"""
    chain = ""
    for i in reversed(range(links)):
        chain = (f"<body pos='0 0 {10.0 if i == 0 else -1.0}'><joint type='hinge' axis='0 -1 0'/>"
                 f"<geom type='sphere' pos='0 0 -1' size='0.25' mass='1'/>{chain}</body>")
    qpos = " ".join(["-0.7853981633974483"] + ["0"] * (links - 1))
    qvel = " ".join(["1"] + ["0"] * (links - 1))
    return f"""<mujoco>
  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3' friction='0.5 0 0'/></default>
  <worldbody>
    {GROUND.format(mu=0.5)}
    <geom type='plane' size='0 0 1' pos='4 0 0' zaxis='-1 0 0'/>
    {chain}
  </worldbody>
  <keyframe><key qpos='{qpos}' qvel='{qvel}'/></keyframe>
</mujoco>"""


def sphere_pile():
    """tumble's `sphere-pile` (27 spheres dropped into a box), its file in models/ with MuJoCo's
    Newton solver at its own iteration cap (tumble_option_soft, tumble's, MuJoCo ignores)"""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models",
                        "sphere-pile.xml")
    with open(path) as f:
        return f.read().replace('solver="Newton" iterations="3000"', 'solver="Newton"')


# tumble's `plate-particle`: a point of 1 kg (inertia 1) at (0.04, 0, 0) on the vibrating plate
# of thesis §5.3, mu 0.5, dt 1e-4. MuJoCo has no points: a sphere of radius 1 mm resting on the
# plate; the plate is a mocap body (a 1 m x 1 m x 2 cm box whose top face is the plate plane)
# driven through the rollout's controls. MuJoCo gives a mocap body no velocity, so its friction
# sees the plate's motion through its pose alone: the drift differs, the cost per step does not.
PLATE_PARTICLE = """<mujoco>
  <option timestep='1e-4' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3' friction='0.5 0 0'/></default>
  <worldbody>
    <body name='plate' mocap='true'><geom type='box' size='0.5 0.5 0.01' pos='0 0 -0.01'/></body>
    <body pos='0.04 0 1e-3'>
      <freejoint/>
      <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>
      <geom type='sphere' size='1e-3'/>
    </body>
  </worldbody>
</mujoco>"""


def plate_poses(nstep, h, amp=(0, 0, 0, 100, 100, 0), phase=(0, 0, 0, math.pi / 2, math.pi, 0),
                omega=66 * math.pi):
    """The plate's pose (position, quaternion) at the end of each step, as tumble's driver moves
    it (host/math/driver_geom.h, the centrifuge field by default): position p0 - A/w^2
    sin(w t + C), orientation by one RK4 step per step of qdot = 1/2 (0, w(t)) q with
    w_i(t) = -A_{i+3}/w cos(w t + C_{i+3}). It starts from the identity, not from tumble's
    symmetric start (a rotation of A/w^2 = 2.3 mrad at most: the same contact, a slightly
    different drift)."""
    def angvel(t):
        return np.array([-amp[3 + i] / omega * math.cos(omega * t + phase[3 + i])
                         for i in range(3)])

    def deriv(q, w):
        return 0.5 * np.concatenate(([-w @ q[1:]], q[0] * w + np.cross(w, q[1:])))

    out = np.empty((1, nstep, 7))
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for k in range(nstep):
        t = k * h
        w0, wm, w1 = angvel(t), angvel(t + 0.5 * h), angvel(t + h)
        k1 = deriv(q, w0)
        k2 = deriv(q + 0.5 * h * k1, wm)
        k3 = deriv(q + 0.5 * h * k2, wm)
        k4 = deriv(q + h * k3, w1)
        q = q + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        q /= np.linalg.norm(q)
        out[0, k, :3] = [-amp[i] / omega ** 2 * math.sin(omega * (t + h) + phase[i])
                         for i in range(3)]
        out[0, k, 3:] = q
    return out


# (tumble scene, MJCF, scenes, steps, the plate's poses or None, tumble's extra arguments): the
# sizes of issue 13's table; the pendulum in tumble's maximal and minimal coordinates (MuJoCo's
# are minimal); Mylapilli & Jain's 12-link chain for its 20 s with their MNCP solver; the pile
# at its defaults (regularized contacts, auto) and rigid (soft 0) on PGS with 1000 sweeps in body
# space (no A in the step: host/engine/stage_bodies.h), where no solver meets the step's tolerance
SCENES = [
    ("sliding-sphere", SLIDING_SPHERE, 2000, 600, None, []),
    ("box-stack", BOX_STACK, 200, 1000, None, []),
    ("pendulum", pendulum(), 2000, 2000, None, []),
    ("pendulum", pendulum(), 2000, 2000, None, ["--param", "minimal=1"]),
    ("plate-particle", PLATE_PARTICLE, 2000, 2000, plate_poses, []),
    ("chain-wall", chain_wall(), 200, 20000, None, ["--solver", "mncp-rlm"]),
    ("sphere-pile", sphere_pile(), 20, 1000, None, []),
    ("sphere-pile", sphere_pile(), 20, 1000, None,
     ["--param", "soft=0", "--solver", "pgs", "--max-iter", "1000"]),
]


def mujoco_seconds(xml, nscene, nstep, threads, poses):
    m = mujoco.MjModel.from_xml_string(xml)
    datas = [mujoco.MjData(m) for _ in range(threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(m, spec)
    state = np.empty(nstate)
    if m.nkey:  # the initial velocity (sliding-sphere)
        mujoco.mj_resetDataKeyframe(m, datas[0], 0)
    mujoco.mj_getState(m, datas[0], state, spec)
    init = np.tile(state, (nscene, 1))
    # the trajectory buffer and the thread pool made before the clock starts: tumble's timed
    # call records nothing and keeps its threads
    out = np.empty((nscene, nstep, nstate))
    ctrl, spec = None, mujoco.mjtState.mjSTATE_CTRL
    if m.nu:  # the actuators' controls: the key's (tumble's ACTUATOR.ctrl default) in every step
        ctrl = np.tile(datas[0].ctrl, (nscene, nstep, 1))
    if poses:  # the mocap plate's pose in every step, as the rollout's controls
        ctrl = np.tile(poses(nstep, m.opt.timestep), (nscene, 1, 1))
        spec = mujoco.mjtState.mjSTATE_MOCAP_POS | mujoco.mjtState.mjSTATE_MOCAP_QUAT
    warm = min(10, nstep)  # (a run shorter than the warm-up has only that many controls)
    rollout.rollout(m, datas, init[:threads], None if ctrl is None else ctrl[:threads, :warm],
                    control_spec=spec, nstep=warm, persistent_pool=True)
    t0 = time.perf_counter()
    rollout.rollout(m, datas, init, ctrl, control_spec=spec, nstep=nstep, state=out,
                    persistent_pool=True)
    seconds = time.perf_counter() - t0
    if not np.all(np.isfinite(out)):
        raise RuntimeError("MuJoCo's rollout produced a non-finite state")
    return seconds


def tumble_run(binary, scene, nscene, nstep, threads, solver, extra):
    cmd = [binary, "simulate", scene, "--scenes", str(nscene), "--steps", str(nstep), "--threads",
           str(threads), "--device", "cpu", "--solver", solver] + extra
    return json_status(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def json_status(out):
    """the JSON line `tumble simulate` ends its stdout with"""
    # a diverged scene's residual prints as inf or nan, which JSON spells otherwise
    line = re.sub(r"\binf\b", "Infinity", out.strip().splitlines()[-1])
    return json.loads(re.sub(r"\bnan\b", "NaN", line))


def commit():
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tumble", default="build/tumble", help="the tumble binary")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=2, choices=range(1, 101), metavar="1..100")
    ap.add_argument("--solver", default="auto", help="tumble's step solver")
    ap.add_argument("--scale", type=float, default=1.0, help="scenes x this (a quick run: 0.1)")
    ap.add_argument("--only", action="append", metavar="SCENE",
                    help="this scene's rows alone (repeatable; default: every row)")
    a = ap.parse_args()

    print("# tumble's CPU path against MuJoCo's rollout\n")
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs,"
          f" load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"- commit: {commit()}")
    print(f"- MuJoCo {mujoco.__version__} (Newton, elliptic cone); tumble step solver "
          f"{a.solver}; {a.threads} threads on both; best of {a.reps}, alternated\n")
    print("| scene | scenes x steps | tumble scene-steps/s | MuJoCo scene-steps/s | "
          "tumble / MuJoCo | tumble: failed, unconverged scenes, max residual |")
    print("|---|---|---:|---:|---:|---|")
    for scene, xml, nscene, nstep, poses, extra in SCENES:
        if a.only and scene not in a.only:
            continue
        nscene = max(a.threads, int(nscene * a.scale))
        best_t = best_m = float("inf")
        run = None
        for _ in range(a.reps):
            run = tumble_run(a.tumble, scene, nscene, nstep, a.threads, a.solver, extra)
            best_t = min(best_t, run["seconds"])
            best_m = min(best_m, mujoco_seconds(xml, nscene, nstep, a.threads, poses))
        work = nscene * nstep
        print(f"| {' '.join([scene] + extra)} | {nscene} x {nstep} | {work / best_t:.3g} | {work / best_m:.3g} | "
              f"{best_m / best_t:.2f} | {run['failed']}, {run['unconverged']}/{nscene}, "
              f"{run['max_residual']:.2g} |",
              flush=True)


if __name__ == "__main__":
    main()
