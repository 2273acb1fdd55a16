"""Thesis §3.4, Theorem 1: a Model-DQC solution (q, lambda_n, ...) makes q a global minimizer of
the convex program Eq. 3.45 for that lambda_n, and lambda_n an optimal multiplier of its
constraint; with a polygonal cone the same holds for its polyhedral analogue (Eq. 3.51 for the
thesis's square). Random one-step fence-particle instances solved by tumble's quasistatic step
(tumble_qs_dump) are solved again here as that program by a conic interior-point solver (CVXPY
with Clarabel), in the step's velocity v = Delta q / h and impulses p = h lambda:

    min_v  -h f_app . v + sum_c mu_c p_nc sigma_c(T_c v + b_tc)   s.t.  n_c . v + b_nc >= 0,

sigma the norm (exact cone) or max_j d_j . (the n_d-gon's support function, pyramid). The
tumble's v must be feasible and no worse than the solver's optimum (and agree with it: the
optimum is unique here), and the constraints' multipliers must be tumble's normal impulses where
they are unique.

    python3 tests/quasistatic_convex_check.py TUMBLE_QS_DUMP

Exits 77 (ctest's skip) when cvxpy is absent.
"""
import json
import math
import subprocess
import sys

try:
    import cvxpy as cp
    import numpy as np
except ImportError:
    print("cvxpy or numpy not installed: skipped")
    sys.exit(77)

COUNT = 60


def program(inst):
    """The instance's program: its variable v, objective and constraints."""
    v = cp.Variable(3)
    hf = np.array(inst["hf"])
    terms, cons = [-hf @ v], []
    for c in inst["contacts"]:
        rows = c["rows"]
        n = rows[0]
        cons.append(np.array(n["J"]) @ v + n["b"] >= 0)
        if len(rows) == 1:
            continue
        T = np.array([r["J"] for r in rows[1:]])
        bt = np.array([r["b"] for r in rows[1:]])
        weight = c["mu"] * n["x"]
        if inst["facets"] == 0:
            terms.append(weight * cp.norm(T @ v + bt))
        elif len(rows) == 3:
            k = inst["facets"]
            D = np.array([[math.cos(c["angle"] + 2 * math.pi * j / k),
                           math.sin(c["angle"] + 2 * math.pi * j / k)] for j in range(k)])
            terms.append(weight * cp.max(D @ (T @ v + bt)))
        else:  # one tangent: the pyramid's two directions +-t
            terms.append(weight * cp.abs(T[0] @ v + bt[0]))
    return v, sum(terms), cons


def sliding(c, v):
    """Whether contact c slips at velocity v (its friction's direction then fixed)."""
    rows = c["rows"]
    slip = [np.array(r["J"]) @ v + r["b"] for r in rows[1:]]
    return len(rows) > 1 and math.hypot(*slip) > 1e-6


def check(binary, cone, facets, seed):
    out = subprocess.run([binary, cone, str(facets), str(COUNT), str(seed)], check=True,
                         capture_output=True, text=True).stdout
    worst_f = worst_v = worst_p = 0.0
    pushed = unique = 0
    for i, inst in enumerate(json.loads(out)):
        assert inst["status"] == 0, (i, inst["status"], inst["residual"])
        v, objective, cons = program(inst)
        prob = cp.Problem(cp.Minimize(objective), cons)
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        assert prob.status == cp.OPTIMAL, prob.status
        v_cvx = v.value
        # tumble's v: feasible, and no worse than the optimum (in N s m/s: the floor's h m g is
        # 0.1 N s, velocities up to 2 m/s)
        v.value = np.array(inst["v"])
        assert all(k.violation() < 1e-8 for k in cons), (i, [k.violation() for k in cons])
        worst_f = max(worst_f, objective.value - prob.value)
        worst_v = max(worst_v, float(np.max(np.abs(v.value - v_cvx))))
        # Theorem 1's multipliers: unique where every loaded contact but the floor slides (a
        # sticking fence's friction may carry some of the weight in z instead of the floor)
        walls = [c for c in inst["contacts"][1:] if c["rows"][0]["x"] > 0]
        if all(sliding(c, v.value) for c in walls):
            unique += 1
            for c, k in zip(inst["contacts"], cons):
                worst_p = max(worst_p, abs(float(k.dual_value) - c["rows"][0]["x"]))
        pushed += bool(walls)
    print(f"{cone} {facets}: {COUNT} instances, {pushed} pushed sideways, {unique} with unique "
          f"multipliers; objective above the optimum by at most {worst_f:.1e}, "
          f"max |v - v_cvx| = {worst_v:.1e} m/s, max |p_n - multiplier| = {worst_p:.1e} N s")
    assert pushed >= COUNT // 4, pushed
    assert unique >= COUNT // 2, unique
    # the sharp check is the objective's; the interior-point solver's own v and multipliers
    # are good to about 1e-5 relative (seen up to 6.5e-6 m/s and 2.1e-6 N s on other draws, its
    # objective then the higher)
    assert worst_f < 1e-9, worst_f
    assert worst_v < 5e-5, worst_v
    assert worst_p < 1e-5, worst_p


def main():
    binary = sys.argv[1]
    check(binary, "exact", 0, 1)
    check(binary, "pyramid", 4, 2)
    check(binary, "pyramid", 8, 3)


if __name__ == "__main__":
    main()
