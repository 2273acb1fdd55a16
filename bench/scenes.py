"""Seeded MJCF scenes in the families users bring, for benchmarks and tests (issue 60).

Each family is a function of a seed: the same seed gives the same file on every machine (Python's
Mersenne Twister seeded with an integer), and different seeds change counts, sizes, masses,
friction and layout, so that no single scene can be tuned for. Both engines read the same file:
MuJoCo's Newton solver with the elliptic cone (tumble: `auto` on the exact cone), condim 3, a time
step of 1 ms, nothing outside tumble's MJCF subset (docs/mjcf.md).

  stack  boxes as a tower (2 to 10) or a pyramid (3 to 15), resting 1 mm apart, mu 0.3 to 0.9
  pile   4 to 20 spheres, capsules and boxes dropped into a bin
  arm    a 2- to 7-hinge arm with joint limits, released swinging, striking 1 to 3 free boxes
  chain  a 4- to 12-link hinged chain of spheres swinging into a wall (Mylapilli & Jain's shape)
  gripper  two mesh finger pads on slides, closed by force-limited position actuators onto a
         mesh prism of 5 to 8 sides on the floor (issue 62)

Usage: python3 bench/scenes.py FAMILY SEED > scene.xml     (--list: the families and steps)
"""

import math
import random
import sys

HEADER = """<mujoco model='{name}'>
  <compiler angle='radian'/>
  <option timestep='1e-3' gravity='0 0 -9.81' cone='elliptic' solver='Newton'/>
  <default><geom condim='3' friction='{mu:.3f} 0 0'/></default>
  <worldbody>
    <geom name='floor' type='plane' size='0 0 1'/>
"""
FOOTER = """  </worldbody>
{keyframe}</mujoco>
"""


def _quat_z(yaw):
    return f"{math.cos(yaw / 2):.6f} 0 0 {math.sin(yaw / 2):.6f}"


def stack(seed):
    r = random.Random(seed)
    mu = r.uniform(0.3, 0.9)
    half = r.uniform(0.05, 0.1)
    bodies = []
    if r.random() < 0.5:  # a tower, each box a little off the one below and turned
        n = r.randint(2, 10)
        z, x, y = 0.0, 0.0, 0.0
        for _ in range(n):
            h = half * r.uniform(0.9, 1.1)
            x += r.uniform(-0.15, 0.15) * h
            y += r.uniform(-0.15, 0.15) * h
            bodies.append((x, y, z + h + 1e-3, h, r.uniform(-0.3, 0.3)))
            z += 2 * h + 1e-3
    else:  # a pyramid of rows k, k - 1, ..., 1, the boxes of a row 2 mm apart
        rows = r.randint(2, 5)
        z = 0.0
        for k in range(rows, 0, -1):
            h = half
            for i in range(k):
                x = (i - (k - 1) / 2) * (2 * h + 2e-3) + r.uniform(-0.02, 0.02) * h
                bodies.append((x, 0.0, z + h + 1e-3, h, 0.0))
            z += 2 * h + 1e-3
    xml = HEADER.format(name=f"stack-{seed}", mu=mu)
    for i, (x, y, z, h, yaw) in enumerate(bodies):
        density = r.uniform(300, 1500)
        xml += (f"    <body name='box{i}' pos='{x:.5f} {y:.5f} {z:.5f}' quat='{_quat_z(yaw)}'>"
                f"<freejoint/><geom type='box' size='{h:.5f} {h:.5f} {h:.5f}' "
                f"density='{density:.1f}'/></body>\n")
    return xml + FOOTER.format(keyframe="")


def pile(seed):
    r = random.Random(seed)
    mu = r.uniform(0.3, 0.9)
    n = r.randint(4, 20)
    side, wall = 0.15, 0.01  # the bin's inner half-width, its walls' half-thickness
    xml = HEADER.format(name=f"pile-{seed}", mu=mu)
    for k, (x, y, sx, sy) in enumerate([(side + wall, 0, wall, side + 2 * wall),
                                        (-side - wall, 0, wall, side + 2 * wall),
                                        (0, side + wall, side, wall),
                                        (0, -side - wall, side, wall)]):
        xml += (f"    <geom name='wall{k}' type='box' pos='{x} {y} 0.1' "
                f"size='{sx} {sy} 0.1'/>\n")
    # a grid of cells 0.1 m apart, one object in each, up from 5 cm: none touches another at first
    cells = [(i, j) for i in range(3) for j in range(3)]
    for k in range(n):
        i, j = cells[k % 9]
        level = k // 9
        x = (i - 1) * 0.1 + r.uniform(-0.01, 0.01)
        y = (j - 1) * 0.1 + r.uniform(-0.01, 0.01)
        z = 0.05 + 0.1 * level + r.uniform(0, 0.02)
        size = r.uniform(0.02, 0.04)
        kind = r.choice(["sphere", "capsule", "box"])
        if kind == "sphere":
            geom = f"type='sphere' size='{size:.4f}'"
        elif kind == "capsule":
            geom = f"type='capsule' size='{0.6 * size:.4f} {0.7 * size:.4f}'"
        else:
            geom = f"type='box' size='{0.8 * size:.4f} {0.7 * size:.4f} {0.6 * size:.4f}'"
        roll, pitch = r.uniform(0, math.pi), r.uniform(0, math.pi)
        xml += (f"    <body name='part{k}' pos='{x:.4f} {y:.4f} {z:.4f}' "
                f"euler='{roll:.4f} {pitch:.4f} 0'><freejoint/>"
                f"<geom {geom} density='{r.uniform(500, 2000):.1f}'/></body>\n")
    return xml + FOOTER.format(keyframe="")


def arm(seed):
    """links collide with the floor and the boxes, not with one another (contype 2, conaffinity
    1: MuJoCo skips a parent and its child by itself, tumble's jointed bodies likewise)"""
    r = random.Random(seed)
    mu = r.uniform(0.3, 0.9)
    nlink = r.randint(2, 7)
    lengths = [r.uniform(0.1, 0.2) for _ in range(nlink)]
    reach = sum(lengths)
    xml = HEADER.format(name=f"arm-{seed}", mu=mu)
    nbox = r.randint(1, 3)
    placed = []  # (x, y, h) of the boxes so far
    for b in range(nbox):
        h = r.uniform(0.03, 0.06)
        while True:  # drawn again while it would overlap a box placed (seed 11's did)
            ang = r.uniform(-0.6, 0.6)
            dist = r.uniform(0.3, 0.8) * reach
            x, y = dist * math.cos(ang), dist * math.sin(ang)
            if all(math.hypot(x - px, y - py) > math.sqrt(2) * (h + ph) + 2e-3
                   for px, py, ph in placed):
                break
        placed.append((x, y, h))
        xml += (f"    <body name='box{b}' pos='{x:.4f} "
                f"{y:.4f} {h + 1e-3:.4f}' quat='{_quat_z(r.uniform(0, 1))}'>"
                f"<freejoint/><geom type='box' size='{h:.4f} {h:.4f} {h:.4f}' "
                f"density='{r.uniform(200, 1000):.1f}'/></body>\n")
    # the arm hangs from a fixed base above the floor, its first hinge about z, the others
    # about y or x alternately, each with limits; the links point along +x
    chain = ""
    for i in reversed(range(nlink)):
        L, rad = lengths[i], r.uniform(0.015, 0.025)
        axis = "0 0 1" if i == 0 else ("0 1 0" if i % 2 else "1 0 0")
        lim = r.uniform(1.0, 2.5)
        pos = f"0 0 {reach * 0.6 + 0.05:.4f}" if i == 0 else f"{lengths[i - 1]:.4f} 0 0"
        chain = (f"<body name='link{i}' pos='{pos}'>"
                 f"<joint name='j{i}' type='hinge' axis='{axis}' range='{-lim:.3f} {lim:.3f}' "
                 f"limited='true'/><geom type='capsule' fromto='0 0 0 {L:.4f} 0 0' "
                 f"size='{rad:.4f}' contype='2' conaffinity='1' "
                 f"density='{r.uniform(500, 1500):.1f}'/>{chain}</body>")
    qvel = [r.uniform(-3, 3) for _ in range(nlink)]
    xml += f"    {chain}\n"
    # the boxes at rest where their bodies put them (6 speeds each, first), the hinges swinging
    keyframe = ("  <keyframe><key qvel='" + " ".join(["0"] * (6 * nbox) +
                                                     [f"{v:.3f}" for v in qvel]) +
                "'/></keyframe>\n")
    return xml + FOOTER.format(keyframe=keyframe)


def chain(seed):
    """neighbours' spheres are a link apart and never touch; MuJoCo skips them anyway"""
    r = random.Random(seed)
    mu = r.uniform(0.3, 0.9)
    n = r.randint(4, 12)
    L = r.uniform(0.5, 1.0)
    rad = r.uniform(0.1, 0.4) * L
    top = n * L + 0.5
    wall = r.uniform(0.3, 0.6) * n * L
    xml = HEADER.format(name=f"chain-{seed}", mu=mu)
    xml += (f"    <geom name='wall' type='plane' size='0 0 1' pos='{wall:.4f} 0 0' "
            "zaxis='-1 0 0'/>\n")
    body = ""
    for i in reversed(range(n)):
        body = (f"<body name='link{i}' pos='0 0 {top if i == 0 else -L:.4f}'>"
                f"<joint type='hinge' axis='0 -1 0'/>"
                f"<geom type='sphere' pos='0 0 {-L:.4f}' size='{rad:.4f}' "
                f"mass='{r.uniform(0.5, 2):.3f}'/>{body}</body>")
    xml += f"    {body}\n"
    qpos = [r.uniform(-1.2, -0.4)] + [r.uniform(-0.2, 0.2) for _ in range(n - 1)]
    qvel = [r.uniform(0, 2)] + [0.0] * (n - 1)
    keyframe = (f"  <keyframe><key qpos='{' '.join(f'{v:.4f}' for v in qpos)}' "
                f"qvel='{' '.join(f'{v:.4f}' for v in qvel)}'/></keyframe>\n")
    return xml + FOOTER.format(keyframe=keyframe)


def _prism(n, radius, half, yaw):
    """a convex n-gon prism's corners (circumradius, half-height) as MJCF vertex numbers"""
    ring = [(radius * math.cos(yaw + 2 * math.pi * k / n), radius * math.sin(yaw + 2 * math.pi * k / n))
            for k in range(n)]
    return "  ".join(f"{x:.5f} {y:.5f} {z:.5f}" for z in (-half, half) for x, y in ring)


def gripper(seed):
    """fingers (contype 2) touch the part (3), not the floor (1): a pad floats at the part's
    height on its slide; each actuator's target is 5 mm inside the part, so its force bound
    squeezes it"""
    r = random.Random(seed)
    mu = r.uniform(0.5, 1.0)
    n = r.randint(5, 8)
    radius, half = r.uniform(0.02, 0.035), r.uniform(0.015, 0.03)
    pad = (0.01, 0.02, 0.02)  # the pads' half-sizes
    z = max(half, pad[2] + 0.001)
    gap = radius + pad[0] + 0.01  # each pad's centre from the part's axis at the start
    kp, fmax = r.uniform(200, 500), r.uniform(2, 10)
    corners = "  ".join(f"{sx * pad[0]:.5f} {sy * pad[1]:.5f} {sz * pad[2]:.5f}"
                        for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1))
    xml = HEADER.format(name=f"gripper-{seed}", mu=mu).replace(
        "  <worldbody>\n",
        f"  <asset><mesh name='pad' vertex='{corners}'/>"
        f"<mesh name='part' vertex='{_prism(n, radius, half, r.uniform(0, math.pi))}'/></asset>\n"
        "  <worldbody>\n")
    xml = xml.replace("type='plane' size='0 0 1'/>", "type='plane' size='0 0 1' contype='1' conaffinity='1'/>")
    xml += (f"    <body name='part' pos='0 0 {half:.5f}'><freejoint/><geom type='mesh' mesh='part' "
            f"contype='3' conaffinity='3' density='{r.uniform(300, 1500):.1f}'/></body>\n")
    for side, name in ((-1, "left"), (1, "right")):
        xml += (f"    <body name='{name}' pos='{side * gap:.5f} 0 {z:.5f}'>"
                f"<joint name='{name}' type='slide' axis='{-side} 0 0'/>"
                "<inertial pos='0 0 0' mass='0.05' diaginertia='1e-5 1e-5 1e-5'/>"
                "<geom type='mesh' mesh='pad' contype='2' conaffinity='2'/></body>\n")
    close = gap - radius - pad[0] + 0.005  # travel to 5 mm inside the part
    actuators = "".join(f"    <position name='{name}' joint='{name}' kp='{kp:.1f}' kv='5' "
                        f"ctrlrange='0 0.1' forcerange='{-fmax:.3f} {fmax:.3f}'/>\n"
                        for name in ("left", "right"))
    keyframe = (f"  <actuator>\n{actuators}  </actuator>\n"
                f"  <keyframe><key ctrl='{close:.5f} {close:.5f}'/></keyframe>\n")
    return xml + FOOTER.format(keyframe=keyframe)


# family: (maker, steps of a benchmark run, scenes of a benchmark run)
FAMILIES = {
    "stack": (stack, 1000, 64),
    "pile": (pile, 1000, 32),
    "arm": (arm, 1000, 64),
    "chain": (chain, 2000, 32),
    "gripper": (gripper, 1000, 32),
}


def scene(family, seed):
    return FAMILIES[family][0](seed)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        for name, (_, steps, scenes) in FAMILIES.items():
            print(f"{name} {steps} steps, {scenes} scenes")
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in FAMILIES or not sys.argv[2].isdigit():
        sys.stderr.write(f"usage: scenes.py {{{','.join(FAMILIES)}}} SEED   (or --list)\n")
        return 2
    sys.stdout.write(scene(sys.argv[1], int(sys.argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
