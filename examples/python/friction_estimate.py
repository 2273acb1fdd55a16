"""Friction from an observed trajectory: a particle filter whose particles are scenes, each with
its own friction coefficient. The observations are a CSV `t,<body>.<coordinate>...` (tumble
estimate synth writes one; --synth makes it here, from a known mu).

    python examples/python/friction_estimate.py --synth 0.3 --obs obs.csv [--particles 500]
"""
import argparse
import subprocess

import tumble


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obs", default="obs.csv")
    ap.add_argument("--synth", type=float, help="write OBS first, from this mu (needs tumble CLI)")
    ap.add_argument("--cli", default="tumble")
    ap.add_argument("--particles", type=int, default=500)
    a = ap.parse_args()
    if a.synth is not None:
        subprocess.run([a.cli, "estimate", "synth", "--scene", "falling-particle", "--param",
                        f"mu={a.synth}", "--noise", "gauss:0.01", "--out", a.obs], check=True,
                       capture_output=True)
    model = tumble.Model.builtin("falling-particle")
    r = tumble.estimate_pf(model, a.obs, {"mu": ("uniform", 0.0, 1.0)}, ("gauss", 0.01),
                           particles=a.particles)
    print(f"mu = {r['mean'][-1, 0]:.5f} +- {r['std'][-1, 0]:.2g} "
          f"(90% in [{r['q05'][-1, 0]:.4f}, {r['q95'][-1, 0]:.4f}]) after {len(r['t'])} "
          f"observations, effective sample size {r['ess'][-1]:.0f} of {a.particles}")


if __name__ == "__main__":
    main()
