"""Each script in examples/python runs on small inputs and says what it found."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TUMBLE_CLI", "tumble")


def run(script, *args, cwd=ROOT):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", script), *args],
                         check=True, capture_output=True, text=True, cwd=cwd)
    return out.stdout


def test_grasp_map():
    out = run("grasp_map.py", "--grid", "3", "--trials", "2")
    assert "18 trials, 0 failed numerically" in out
    assert "best offset" in out


def test_plate_field(tmp_path):
    path = str(tmp_path / "f.csv")
    out = run("plate_field.py", "--grid", "3", "--seconds", "0.3", "--out", path)
    assert "circle-vose: mean speed" in out and "0 failed" in out
    with open(path) as f:
        assert len(f.readlines()) == 1 + 9


def test_friction_estimate(tmp_path):
    out = run("friction_estimate.py", "--synth", "0.3", "--obs", str(tmp_path / "o.csv"),
              "--cli", CLI, "--particles", "100")
    mu = float(out.split()[2])
    assert abs(mu - 0.3) < 1e-3, out


def test_mjcf_sweep():
    out = run("mjcf_sweep.py", "--scenes", "40", "--steps", "800").splitlines()
    assert out[0].startswith("mu in [0.05, 0.20]: top box stays in 0 of")
    assert " stays in 0 of" not in out[2] and "(p = 1.00" in out[2]
    assert out[3] == "0 scenes failed numerically"


def test_grasp_mjcf():
    out = run("grasp_mjcf.py", "--grid", "3", "--trials", "2").splitlines()
    assert out[0].startswith("18 trials, 0 failed numerically"), out[0]
    # y up: at +20 mm the bar passes above the fingers (only the foot is clamped); at 0 and
    # -20 mm the fingers clamp the whole bar
    assert out[1].split() == ["0.00"] * 3 and out[2].split() == out[3].split() == ["1.00"] * 3
