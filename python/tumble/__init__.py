"""tumble: batches of rigid-body scenes with frictional contact (Stewart-Trinkle time stepping),
on the CPU or the GPU.

    import tumble
    model = tumble.Model.builtin("box-stack")             # or tumble.Model.from_mjcf("part.xml")
    batch = model.batch(1000, mu="uniform:0.2:0.8", seed=1)
    out = batch.rollout(1000, record_every=100)
    out.pos.shape                                         # (1000, records, bodies, 3)

Errors from the engine raise tumble.Error (a ValueError) with its message.
"""
import warnings
from dataclasses import dataclass

import numpy as np

from ._tumble import Batch, Error, Model, plate_motions, scenes
from . import _tumble

__all__ = ["Batch", "Error", "Model", "Rollout", "estimate_fit", "estimate_pf", "grasp", "grasp3d",
           "plate_field", "plate_optimize", "plate_motions", "scenes", "STATUS_NAN",
           "STATUS_OVERFLOW", "STATUS_UNCONVERGED", "STATUS_SOLVER", "STATUS_START",
           "STATUS_BALANCE"]

# per-scene status bits (tumble.h): all but STATUS_UNCONVERGED stop the scene
STATUS_NAN, STATUS_OVERFLOW, STATUS_UNCONVERGED, STATUS_SOLVER, STATUS_START = 1, 2, 4, 8, 16
STATUS_BALANCE = 32


@dataclass
class Rollout:
    """A rollout's records and per-scene outcome. state is (scenes, records, bodies, 13):
    pos[3], quat[4] (w, x, y, z), vel[6] ([v; w], world); pos, quat and vel are views of it."""

    state: np.ndarray
    time: np.ndarray  # (scenes, records) s
    step: np.ndarray  # (records) the steps recorded
    status: np.ndarray  # (scenes) STATUS_* bits
    fail_step: np.ndarray  # (scenes) the failing step, -1 if none
    contacts: np.ndarray  # (scenes) contacts in the last step
    iterations: np.ndarray  # (scenes) solver iterations over all steps
    last_residual: np.ndarray
    max_residual: np.ndarray

    @property
    def pos(self):
        return self.state[..., 0:3]

    @property
    def quat(self):
        return self.state[..., 3:7]

    @property
    def vel(self):
        return self.state[..., 7:13]

    @property
    def failed(self):
        return (self.status & (STATUS_NAN | STATUS_OVERFLOW | STATUS_SOLVER | STATUS_START |
                               STATUS_BALANCE)) != 0


def _rollout(self, steps, record_every=0, device="auto", threads=0, chunk=0, precision="fp64"):
    """Advance every scene `steps` steps, recording the bodies every `record_every` steps (0: the
    first and the last). Releases the GIL; Ctrl-C stops it between pieces of the batch (the
    batch is then part advanced). device: "auto", "cpu" or "gpu"; threads 0: OpenMP's count;
    precision "fp32": the stages' single-precision twin (simulate --precision fp32), the batch's
    arrays stay float64."""
    r = self._rollout(steps, record_every, chunk, device, threads, precision)
    return Rollout(r["state"], r["record_time"], r["record_step"], r["status"], r["fail_step"],
                   r["contacts"], r["iterations"], r["last_residual"], r["max_residual"])


Batch.rollout = _rollout


def grasp(grid=(21, 21), extent=0.02, center=(0.0, -0.01), trials=30, seed=1,
          surface_mu="medium", gripper_mu="high", speed="normal", chunk=512, device="auto",
          threads=0):
    """One condition of the planar grasp study (tumble grasp's defaults): per grid cell (x
    fastest; x, y in m) the trials, successes, numerical failures, success probability and
    its 95% Wilson interval, the numbers of the map CSV."""
    return _tumble._grasp(tuple(grid), extent, tuple(center), trials, seed, surface_mu,
                          gripper_mu, speed, chunk, device, threads)


def grasp3d(gripper, part, grid=(11, 11), extent=0.04, trials=20, seed=0, mass=None,
            mu=(0.2, 0.8), pos_noise=0.002, yaw_noise=10.0, tcp="tcp", grasp_height=None,
            open_ctrl=(), close_ctrl=(), close_time=0.3, disturb=None, slip=0.01, hold=0.25,
            dt=0.002, candidates=None, device="auto", threads=0):
    """The 3D grasp study on your own gripper and part, MJCF files (tumble grasp3d --gripper
    GRIPPER --object PART; docs/grasp3d.md): per grid cell of offsets (x fastest; m) the trials,
    successes, numerical failures, success probability and its 95% Wilson interval, with the
    trials that struck the part on the way down ('struck'). SI units: extent, pos_noise,
    grasp_height and slip in m, yaw_noise in degrees, mass (LO, HI) in kg (None: the part file's),
    disturb in N (None: the part's weight), open_ctrl and close_ctrl one control per actuator
    (empty: each ctrlrange's ends). candidates: rows (x, y, yaw) of candidate top-down grasps in
    the part's frame (m, m, degrees) instead of the grid, one row each in the result with its
    pose (docs/grasp3d.md#candidate-grasps). What the files held that tumble read past comes as a
    UserWarning."""
    def pair(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    r = _tumble._grasp3d_files(
        str(gripper), str(part), pair(grid), pair(extent), trials, seed,
        pair(mass) if mass is not None else (0.0, 0.0), pair(mu), pos_noise,
        yaw_noise * 3.141592653589793 / 180.0, tcp, -1.0 if grasp_height is None else grasp_height,
        list(open_ctrl), list(close_ctrl), close_time, 0.0 if disturb is None else disturb, slip,
        hold, dt, [v * (3.141592653589793 / 180.0 if k % 3 == 2 else 1.0)
                   for row in (candidates or ()) for k, v in enumerate(row)], device, threads)
    if r["read_past"]:
        warnings.warn(r["read_past"], UserWarning, stacklevel=2)
    return r


def plate_field(motion="centrifuge", grid=(8, 8), extent=0.05, seconds=2.0, dt=0.0, mu=-1.0,
                part="particle", params=None, device="auto", threads=0):
    """The velocity field of a named plate motion (tumble.plate_motions()) over a grid of starts
    on [-extent, extent]^2 (tumble plate field): per start the mean position and velocity, speed,
    stick and separation fractions, status. dt 0 and mu < 0: the defaults (1e-4 s, 0.5)."""
    return _tumble._plate_field(motion, tuple(grid), extent, seconds, dt, mu, part,
                                dict(params or {}), device, threads)


def estimate_pf(model, observations, priors, noise, particles=1000, params=None, seed=0,
                delta=0.98, replay=True, max_stage=64, device="auto", threads=0):
    """The particle filter of tumble estimate pf: each particle a scene of `model` with its own
    draw of the parameters in `priors` ({name: ("uniform", lo, hi) or ("gauss", mean, sd)}),
    weighted by the observations CSV (`t,<body>.<coordinate>...`, as tumble estimate synth
    writes) under `noise` (("gauss", sigma) or ("uniform", eps)); `params` fixes others.
    Returns the posterior mean, std, q05, q50, q95 (observations x parameters) after each
    observation, the effective sample size, and the filter's counts. Ctrl-C stops it between
    observations (KeyboardInterrupt)."""
    return _tumble._estimate_pf(model, str(observations), dict(priors), tuple(noise), particles,
                                dict(params or {}), seed, delta, replay, max_stage, device,
                                threads)


def estimate_fit(model, observations, params, init=None, bounds=None, fit_state=False, scan=16,
                 max_iter=100, fixed=None, device="auto", threads=0):
    """Levenberg-Marquardt of tumble estimate fit: the parameters named in `params` (with
    `init` values, else the model's; within `bounds` {name: (lo, hi)}, else their ranges; the
    observed coordinates' initial state too with fit_state) fitted to the observations CSV;
    `fixed` sets others. Returns the estimate x, its standard errors se, the residual sum of
    squares and the iteration counts. Ctrl-C stops it between batches (KeyboardInterrupt)."""
    return _tumble._estimate_fit(model, str(observations), list(params), dict(init or {}),
                                 dict(bounds or {}), fit_state, scan, max_iter,
                                 dict(fixed or {}), device, threads)


def plate_optimize(target="circle", optimizer="nelder-mead", starts=4, evals=100000,
                   budget=0.0, dt=5e-4, horizon=6.0, mu=0.5, device="auto", threads=0):
    """A plate motion whose velocity field does what the target asks (tumble plate optimize):
    "circle", "saddle", or rows of (x, y, vx, vy) in m and m/s. The thesis' trajectory objective
    (ch. 6) over `starts` parts, searched by "nelder-mead", "cmaes" or "both" for `evals`
    evaluations (and `budget` seconds, 0: no time limit, which keeps the result reproducible).
    Returns the best motion's A1..A6, C1..C6 (params), the start's and the best objective (m),
    and each optimizer's best value and counts. Ctrl-C stops it after an iteration."""
    return _tumble._plate_optimize(target, optimizer, starts, evals, budget, dt, horizon, mu,
                                   device, threads)
