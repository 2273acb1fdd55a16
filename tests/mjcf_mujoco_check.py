"""MuJoCo reads the same MJCF files as tumble and agrees on every moving body's mass, center of
mass, world inertia and twist at the initial state (the first keyframe's, as tumble starts from
it).

    python3 tests/mjcf_mujoco_check.py TUMBLE_BINARY MODEL.xml...

Exits 77 (ctest's skip) when the mujoco package is absent. Files with tumble's point particles
(spheres of radius 0, which MuJoCo refuses) are checked to be refused by MuJoCo for that reason.
"""
import csv
import io
import subprocess
import sys

try:
    import mujoco
    import numpy as np
except ImportError:
    print("mujoco or numpy not installed: skipped")
    sys.exit(77)

TOL = 1e-10


def tumble_bodies(binary, path):
    out = subprocess.run([binary, "model", path], check=True, capture_output=True, text=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


def mujoco_bodies(path):
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    bodies = []
    for b in range(1, m.nbody):
        R = d.ximat[b].reshape(3, 3)
        vel = np.zeros(6)  # [w; v] of the center of mass, world axes
        mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)
        bodies.append({
            "name": mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or "",
            "moving": m.body_dofnum[b] > 0 or m.body_weldid[b] != 0 and m.body_mocapid[b] < 0,
            "mass": m.body_mass[b],
            "com": d.xipos[b].copy(),
            "I": R @ np.diag(m.body_inertia[b]) @ R.T,
            "vel": np.concatenate([vel[3:], vel[:3]]),
        })
    return bodies


def check(binary, path):
    try:
        mj = mujoco_bodies(path)
    except ValueError as e:
        if "size 0 must be positive" in str(e):
            print(f"{path}: tumble's point particles, which MuJoCo refuses (as expected)")
            return []
        raise
    tb = [b for b in tumble_bodies(binary, path) if b["body"] != "world"]
    errors, largest = [], 0.0
    if len(tb) != len(mj):
        return [f"{path}: tumble has {len(tb)} bodies, MuJoCo {len(mj)}"]
    for t, j in zip(tb, mj):
        name = t["body"]
        if j["name"] and j["name"] != name:
            errors.append(f"{path}: body {name} is MuJoCo's {j['name']}")
        if t["type"] != "dynamic":
            continue
        lock = int(t["lock"])
        com = np.array([float(t[f"com_{a}"]) for a in "xyz"])
        I = np.zeros((3, 3))
        for r, a in enumerate("xyz"):
            for c, b in enumerate("xyz"):
                key = f"I_{a}{b}" if r <= c else f"I_{b}{a}"
                I[r, c] = float(t[key])
        vel = np.array([float(t[k]) for k in ("vx", "vy", "vz", "wx", "wy", "wz")])
        diffs = {"mass": abs(float(t["mass"]) - j["mass"]), "com": np.abs(com - j["com"]).max(),
                 "twist": np.abs(vel - j["vel"]).max()}
        # a locked rotation's inertia is tumble's own choice; compare the free axes
        free = [k for k in range(3) if not (lock >> (3 + k)) & 1]
        if free:
            diffs["inertia"] = np.abs(I[np.ix_(free, free)] - j["I"][np.ix_(free, free)]).max()
        for what, d in diffs.items():
            largest = max(largest, d)
            if not d <= TOL * max(1.0, j["mass"]):
                errors.append(f"{path}: body {name}: {what} differs by {d:.3g}")
    print("\n".join(errors) if errors else f"{path}: {len(tb)} bodies agree (largest difference {largest:.2g})", flush=True)
    return errors


def main():
    binary, paths = sys.argv[1], sys.argv[2:]
    errors = [e for p in paths for e in check(binary, p)]
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
