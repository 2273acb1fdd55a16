"""The Python package against the command line: the same study gives bitwise the same numbers
(the trajectories CSV, the grasp map, the plate field), and bad input raises tumble.Error.
TUMBLE_CLI names the `tumble` executable (ctest sets it)."""
import csv
import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import tumble

CLI = os.environ.get("TUMBLE_CLI", "tumble")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True)


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def expect_trajectories_equal(path, model, out):
    """Every row of the CLI's --out CSV is bitwise the rollout's record."""
    bodies = model.bodies
    got = rows(path)
    assert got, "no rows"
    keys = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
    for r in got:
        s, k, b = int(r["scene"]), int(r["step"]), bodies.index(r["body"])
        rec = list(out.step).index(k)
        assert float(r["t"]) == out.time[s, rec]
        np.testing.assert_array_equal(np.array([float(r[c]) for c in keys]),
                                      out.state[s, rec, b], err_msg=str(r))


def test_builtin_rollout_is_the_cli_csv_bitwise(tmp_path):
    path = str(tmp_path / "stack.csv")
    cli("simulate", "box-stack", "--scenes", "5", "--steps", "60", "--every", "20", "--seed", "7",
        "--param", "mu=uniform:0.2:0.8", "--param", "dt=0.002", "--out", path)
    model = tumble.Model.builtin("box-stack")
    out = model.batch(5, mu="uniform:0.2:0.8", dt=0.002, seed=7).rollout(60, record_every=20)
    assert out.pos.shape == (5, 4, 4, 3)
    np.testing.assert_array_equal(out.step, [0, 20, 40, 60])
    expect_trajectories_equal(path, model, out)
    summary = rows(str(tmp_path / "stack-scenes.csv"))
    np.testing.assert_array_equal([int(r["status"]) for r in summary], out.status)
    assert [r["max_residual"] for r in summary] == ["%.6g" % v for v in out.max_residual]
    assert [int(r["iterations"]) for r in summary] == list(out.iterations)
    # the uniform draws: the summary keeps each scene's value to 17 digits
    mu = next(i for i, p in enumerate(model.params) if p["name"] == "mu")
    assert mu >= 0 and all(0.2 <= float(r["mu"]) <= 0.8 for r in summary)


def test_mjcf_rollout_is_the_cli_csv_bitwise_with_array_parameters(tmp_path):
    xml = os.path.join(ROOT, "models", "pendulum.xml")
    path = str(tmp_path / "p.csv")
    cli("simulate", "--model", xml, "--scenes", "4", "--steps", "100", "--every", "50",
        "--param", "link1.mass=0.5:2", "--out", path)
    model = tumble.Model.from_mjcf(xml)
    masses = [0.5 + 1.5 * s / 3 for s in range(4)]  # the CLI's LO:HI spread, as a list
    out = model.batch(4, params={"link1.mass": masses}).rollout(100, record_every=50)
    expect_trajectories_equal(path, model, out)
    assert not out.failed.any()


def test_mjcf_read_past_is_a_warning_and_an_attribute():
    # bug caught: what a file held for looks or MuJoCo's soft contact was read past unsaid
    xml = ("<mujoco><worldbody><geom type='plane' solref='0.02 1'/><body pos='0 0 1'><freejoint/>"
           "<geom size='0.1'/><site/></body></worldbody></mujoco>")
    with pytest.warns(UserWarning, match="read past: 1 <site>"):
        model = tumble.Model.from_mjcf(xml)
    assert "1 solref on <geom> (MuJoCo's soft contact" in model.read_past
    assert tumble.Model.from_mjcf(os.path.join(ROOT, "models", "box-stack.xml")).read_past == ""


def test_solver_settings_are_the_clis(tmp_path):
    path = str(tmp_path / "stack.csv")
    cli("simulate", "box-stack", "--scenes", "3", "--steps", "80", "--every", "40", "--solver",
        "auto", "--max-iter", "60", "--solver-tol", "1e-9", "--out", path)
    model = tumble.Model.builtin("box-stack")
    assert (model.solver, model.max_iter, model.tol) == ("auto", 200, 1e-8)  # the scene's own
    model.solver, model.max_iter, model.tol = "auto", 60, 1e-9
    assert (model.solver, model.max_iter, model.tol) == ("auto", 60, 1e-9)
    out = model.batch(3).rollout(80, record_every=40)
    expect_trajectories_equal(path, model, out)
    assert not (out.status & tumble.STATUS_UNCONVERGED).any(), "auto converges the stack"


def test_fp32_rollout_is_the_cli_csv_bitwise(tmp_path):
    path = str(tmp_path / "p.csv")
    cli("simulate", "pendulum", "--scenes", "3", "--steps", "90", "--every", "30", "--precision",
        "fp32", "--device", "cpu", "--out", path)
    model = tumble.Model.builtin("pendulum")
    out = model.batch(3).rollout(90, record_every=30, device="cpu", precision="fp32")
    expect_trajectories_equal(path, model, out)
    fp64 = model.batch(3).rollout(90, record_every=30, device="cpu")
    assert not np.array_equal(out.state, fp64.state), "single precision is another arithmetic"
    np.testing.assert_allclose(out.pos, fp64.pos, rtol=0, atol=1e-4)


def test_grasp_is_the_cli_map(tmp_path):
    prefix = str(tmp_path / "g")
    cli("grasp", "--grid", "3x3", "--extent", "4mm", "--center", "0,-18mm", "--trials", "5",
        "--seed", "3", "--out", prefix)
    g = tumble.grasp(grid=(3, 3), extent=0.004, center=(0.0, -0.018), trials=5, seed=3)
    want = rows(prefix + ".csv")
    assert len(want) == 9
    for c, r in enumerate(want):
        assert int(r["trials"]) == g["trials"][c]
        assert int(r["successes"]) == g["successes"][c]
        assert int(r["failed"]) == g["failed"][c]
        for key in ("p", "lo95", "hi95"):
            assert r[key] == "%.9g" % g[key][c], (c, key)
        assert float(r["x_mm"]) == pytest.approx(1e3 * g["x"][c])
    assert g["successes"].sum() > 0, "the cells chosen hold successes"


EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


def test_grasp3d_on_files_is_the_cli_map(tmp_path):
    """the study on the example gripper and part files, through both doors: the same cells (a
    binding that sets another default, or splits the study into pieces whose counts do not add
    up, differs), held at the centre and not 15 mm aside in y, and the files' floor said"""
    gripper = os.path.join(EXAMPLES, "gripper", "gripper.xml")
    part = os.path.join(EXAMPLES, "gripper", "part.xml")
    prefix = str(tmp_path / "g")
    cli("grasp3d", "--gripper", gripper, "--object", part, "--grid", "1x3", "--extent", "30mm",
        "--trials", "3", "--seed", "2", "--out", prefix)
    with pytest.warns(UserWarning, match="world shape"):
        g = tumble.grasp3d(gripper, part, grid=(1, 3), extent=0.03, trials=3, seed=2)
    want = rows(prefix + ".csv")
    assert len(want) == 3
    for c, r in enumerate(want):
        assert int(r["trials"]) == g["trials"][c]
        assert int(r["successes"]) == g["successes"][c]
        assert r["p"] == "%.9g" % g["p"][c], c
        assert float(r["y_mm"]) == pytest.approx(1e3 * g["y"][c])
    assert list(g["successes"]) == [0, 3, 0], g["successes"]
    with pytest.warns(UserWarning):
        c = tumble.grasp3d(gripper, part, candidates=[(0.0, 0.0, 0.0), (0.0, 0.06, 0.0)],
                           trials=2)
    assert list(c["successes"]) == [2, 0] and list(c["yaw"]) == [0.0, 0.0], c


def test_plate_field_is_the_cli_table(tmp_path):
    prefix = str(tmp_path / "f")
    cli("plate", "field", "--motion", "circle-vose", "--grid", "3x2", "--seconds", "0.3",
        "--out", prefix)
    f = tumble.plate_field("circle-vose", grid=(3, 2), seconds=0.3)
    want = rows(prefix + ".csv")
    assert len(want) == 6
    names = {"stick": "stick_fraction", "separated": "separated_fraction"}
    for i, r in enumerate(want):
        for key in ("x0", "y0", "mean_x", "mean_y", "vx", "vy", "speed", "stick", "separated"):
            assert float(r[names.get(key, key)]) == f[key][i], (i, key)
        assert int(r["status"]) == f["status"][i]


def test_estimate_pf_is_the_cli_posterior(tmp_path):
    obs = str(tmp_path / "obs.csv")
    cli("estimate", "synth", "--scene", "falling-particle", "--param", "mu=0.3", "--noise",
        "gauss:0.01", "--seed", "4", "--out", obs)
    prefix = str(tmp_path / "pf")
    cli("estimate", "pf", "--scene", "falling-particle", "--obs", obs, "--params", "mu",
        "--prior", "mu=uniform:0:1", "--noise", "gauss:0.01", "--particles", "150", "--seed", "2",
        "--out", prefix)
    r = tumble.estimate_pf(tumble.Model.builtin("falling-particle"), obs,
                           {"mu": ("uniform", 0.0, 1.0)}, ("gauss", 0.01), particles=150, seed=2)
    want = rows(prefix + ".csv")
    assert len(want) == len(r["t"]) == 101
    for i, row in enumerate(want):
        for key in ("mean", "std", "q05", "q50", "q95"):
            assert float(row["mu_" + key]) == r[key][i, 0], (i, key)
        assert float(row["ess"]) == r["ess"][i]
    assert abs(r["mean"][-1, 0] - 0.3) < 1e-3


def test_estimate_fit_is_the_cli_fit(tmp_path):
    obs = str(tmp_path / "obs.csv")
    cli("estimate", "synth", "--scene", "falling-particle", "--param", "mu=0.25", "--noise",
        "gauss:0.01", "--seed", "5", "--out", obs)
    out = cli("estimate", "fit", "--scene", "falling-particle", "--obs", obs, "--params", "mu",
              "--fit-state", "--bounds", "mu=0:0.9", "--out", str(tmp_path / "fit"))
    want = json.loads(out.stdout.strip().splitlines()[-1])
    r = tumble.estimate_fit(tumble.Model.builtin("falling-particle"), obs, ["mu"],
                            bounds={"mu": (0.0, 0.9)}, fit_state=True)
    assert r["params"][0] == "mu" and len(r["params"]) > 1, "mu, then the initial state"
    for name, x in zip(r["params"], r["x"]):
        assert want[name] == x, name
    assert want["rss"] == r["rss"] and want["iterations"] == r["iterations"]
    assert abs(r["x"][0] - 0.25) < 1e-3


def test_plate_optimize_is_the_cli_search(tmp_path):
    prefix = str(tmp_path / "po")
    cli("plate", "optimize", "--target", "circle", "--optimizer", "both", "--evals", "16",
        "--budget", "1e6", "--starts", "2", "--horizon", "1", "--out", prefix)
    r = tumble.plate_optimize("circle", optimizer="both", evals=16, starts=2, horizon=1.0)
    best = {row["name"]: float(row["value"]) for row in rows(prefix + "-best.csv")}
    names = [f"A{i}" for i in range(1, 7)] + [f"C{i}" for i in range(1, 7)]
    for name, v in zip(names, r["params"]):
        assert best[name] == v, name
    for opt in ("nelder-mead", "cmaes"):
        hist = rows(f"{prefix}-{opt}.csv")
        assert float(hist[-1]["best"]) == r["runs"][opt]["best"], opt
        assert int(hist[-1]["evaluations"]) == r["runs"][opt]["evaluations"], opt
    assert r["best"] < r["start"]


def test_params_bodies_and_state():
    model = tumble.Model.builtin("pendulum", options={"links": 4})
    assert model.bodies == ["ground", "link0", "link1", "link2", "link3"]
    names = [p["name"] for p in model.params]
    assert "mu" in names and "mass" in names
    mu = next(p for p in model.params if p["name"] == "mu")
    assert mu["unit"] == "" and mu["default"] == 0.5 and mu["lo"] == 0.0
    batch = model.batch(2)
    state = batch.state()
    assert state["pos"].shape == (2, 5, 3) and state["vel"].shape == (2, 5, 6)
    assert tumble.Model.from_mjcf(os.path.join(ROOT, "models", "box-stack.xml")).name == \
        "box-stack"


@pytest.mark.parametrize("call, message", [
    (lambda: tumble.Model.builtin("no-such-scene"), "unknown scene 'no-such-scene'"),
    (lambda: tumble.Model.builtin("pendulum", options={"links": 0}), "links"),
    (lambda: tumble.Model.builtin("box-stack").batch(3, mu=-1.0), "param 'mu' = -1"),
    (lambda: tumble.Model.builtin("box-stack").batch(3, mu=np.array([0.1, 0.2])),
     "parameter 'mu': 2 values for 3 scenes"),
    (lambda: tumble.Model.builtin("box-stack").batch(3, nope=1.0), "no parameter 'nope'"),
    (lambda: tumble.Model.builtin("box-stack").batch(3, mu=["a", "b", "c"]), "3 numbers"),
    (lambda: tumble.Model.builtin("box-stack").batch(2, mu=np.ones((2, 2))), "one-dimensional"),
    (lambda: tumble.Model.builtin("box-stack").batch(3, mu="uniform:1"), "uniform needs LO:HI"),
    (lambda: tumble.Model.builtin("box-stack").batch(0), "n 0"),
    (lambda: tumble.Model.builtin("box-stack").batch(1).rollout(-1), "steps"),
    (lambda: tumble.Model.builtin("box-stack").batch(1).rollout(1, device="tpu"), "device 'tpu'"),
    (lambda: tumble.Model.builtin("box-stack").batch(1).rollout(1, precision="fp16"),
     "precision 'fp16'"),
    (lambda: tumble.Model.builtin("box-stack").batch(1, mu=float("nan")), "mu"),
    (lambda: tumble.Model.from_mjcf("<mujoco><tendon/></mujoco>"), "<string>:1: <tendon>"),
    (lambda: tumble.Model.from_mjcf("/nonexistent.xml"), "cannot read the file"),
    (lambda: setattr(tumble.Model.builtin("box-stack"), "solver", "fast"), "solver 'fast'"),
    (lambda: setattr(tumble.Model.builtin("box-stack"), "max_iter", 0), "max_iter 0"),
    (lambda: setattr(tumble.Model.builtin("box-stack"), "tol", -1.0), "tol -1"),
    (lambda: tumble.grasp(surface_mu="sticky"), "friction 'sticky'"),
    (lambda: tumble.plate_field("no-motion"), "motion 'no-motion'"),
    (lambda: tumble.plate_field(seconds=-1.0), "seconds -1"),
    (lambda: tumble.plate_optimize("triangle"), "target 'triangle'"),
    (lambda: tumble.plate_optimize(np.zeros((3, 3))), "rows of x, y, vx, vy"),
    (lambda: tumble.plate_optimize(optimizer="gradient"), "optimizer 'gradient'"),
    (lambda: tumble.estimate_pf(tumble.Model.builtin("falling-particle"), "/nonexistent.csv",
                                {"mu": ("uniform", 0, 1)}, ("gauss", 0.01)), "/nonexistent.csv"),
    (lambda: tumble.estimate_pf(tumble.Model.builtin("falling-particle"), "x.csv",
                                {"mu": ("uniform", 1, 0)}, ("gauss", 0.01)), "prior mu"),
    (lambda: tumble.estimate_fit(tumble.Model.builtin("falling-particle"), "/nonexistent.csv",
                                 ["mu"]), "/nonexistent.csv"),
])
def test_bad_input_raises_the_engines_message(call, message):
    with pytest.raises(tumble.Error, match=None) as e:
        call()
    assert message in str(e.value)
    assert isinstance(e.value, ValueError)


def test_rollout_releases_the_gil():
    batch = tumble.Model.builtin("box-stack").batch(64)
    ticks = []
    worker = threading.Thread(target=lambda: batch.rollout(3000, threads=1))
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    assert len(ticks) > 20, "the main thread ran while the rollout did"


def interrupt_after(seconds, call):
    """call() with SIGINT (Ctrl-C) sent to this process after `seconds`: KeyboardInterrupt."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    old = signal.signal(signal.SIGALRM, lambda *a: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - start < 30


def test_ctrl_c_stops_a_rollout():
    batch = tumble.Model.builtin("box-stack").batch(256)
    interrupt_after(0.3, lambda: batch.rollout(20000, chunk=1, threads=1))
    done = batch.stats()["steps"]
    assert done[0] == 20000 and done[-1] == 0, "stopped between pieces, the first ones done"


@pytest.mark.parametrize("call", [
    lambda: tumble.plate_optimize("circle", starts=2, horizon=1.0, threads=1),
    lambda: tumble.grasp(grid=(21, 21), trials=30, chunk=16, threads=1),
])
def test_ctrl_c_stops_a_job(call):
    interrupt_after(0.5, call)
