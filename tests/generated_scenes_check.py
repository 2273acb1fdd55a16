"""bench/scenes.py's generated families load, step and mean the same bodies in both engines.

    python3 tests/generated_scenes_check.py TUMBLE_BINARY

Seeds 0-4 of every family: tumble reads each file and steps 2 scenes 50 steps with no scene
failed (catches a generator that writes outside tumble's MJCF subset, or a scene that starts
buried); where the mujoco package is present, MuJoCo's masses, centres of mass, inertias and
initial twists agree with tumble's (tests/mjcf_mujoco_check.py: catches a generated body that
means another thing in either reader). Exits 1 on a failure, 0 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import scenes  # noqa: E402

try:
    import mjcf_mujoco_check as mujoco_check
except SystemExit:  # it exits 77 where mujoco is absent
    mujoco_check = None


def stepped(binary, path):
    out = subprocess.run([binary, "simulate", "--model", path, "--scenes", "2", "--steps", "50",
                          "--threads", "1", "--device", "cpu"], capture_output=True, text=True)
    if out.returncode != 0:
        return [f"{path}: tumble exits {out.returncode}: {out.stderr.strip()}"]
    run = json.loads(out.stdout.strip().splitlines()[-1])
    return [f"{path}: {run['failed']} of 2 scenes failed"] if run["failed"] else []


def main():
    binary = sys.argv[1]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in scenes.FAMILIES:
            for seed in range(5):
                path = os.path.join(tmp, f"{family}-{seed}.xml")
                with open(path, "w") as f:
                    f.write(scenes.scene(family, seed))
                errors += stepped(binary, path)
                if mujoco_check:
                    errors += mujoco_check.check(binary, path)
    print("\n".join(errors) if errors else
          f"{len(scenes.FAMILIES) * 5} generated files step in tumble"
          f"{' and agree with MuJoCo' if mujoco_check else ' (mujoco absent: not compared)'}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
