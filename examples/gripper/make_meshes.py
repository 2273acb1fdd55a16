"""Writes the example gripper's and part's meshes (meshes/): no third-party assets.

    python3 make_meshes.py      # from examples/gripper

palm.stl and finger.stl are binary STL boxes with chamfered edges (a convex mesh that is not a
primitive box); part.obj is a hexagonal prism (OBJ), 40 mm across its corners and 50 mm tall.
The files are committed; rerunning this script rewrites them byte for byte.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def chamfered_box(hx, hy, hz, c):
    """the corners of a box of half-extents h whose 12 edges are cut by c (24 points)"""
    pts = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                pts += [(sx * (hx - c), sy * hy, sz * (hz - c)) if k == 0 else
                        (sx * hx, sy * (hy - c), sz * (hz - c)) if k == 1 else
                        (sx * (hx - c), sy * (hy - c), sz * hz) for k in range(3)]
    return pts


def hull_triangles(pts):
    """the convex hull's faces of a small point set, as outward triangles (a brute force over
    triples: fine for the 24 points here)"""
    tris, n = [], len(pts)
    sub = lambda a, b: (a[0] - b[0], a[1] - b[1], a[2] - b[2])
    cross = lambda a, b: (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                          a[0] * b[1] - a[1] * b[0])
    dot = lambda a, b: a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    faces = {}
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                nrm = cross(sub(pts[j], pts[i]), sub(pts[k], pts[i]))
                if dot(nrm, nrm) < 1e-18:
                    continue
                side = [dot(nrm, sub(p, pts[i])) for p in pts]
                if all(s <= 1e-12 for s in side):
                    out = nrm
                elif all(s >= -1e-12 for s in side):
                    out = (-nrm[0], -nrm[1], -nrm[2])
                else:
                    continue
                key = tuple(round(x / math.sqrt(dot(out, out)), 9) for x in out)
                on = [m for m in range(n) if abs(side[m]) <= 1e-12]
                faces[key] = (out, on)
    for out, on in faces.values():
        # the face's corners in order about its centre, counter-clockwise seen from outside
        c = [sum(pts[m][a] for m in on) / len(on) for a in range(3)]
        u = sub(pts[on[0]], c)
        v = cross(out, u)
        on.sort(key=lambda m: math.atan2(dot(sub(pts[m], c), v), dot(sub(pts[m], c), u)))
        for t in range(1, len(on) - 1):
            tris.append((pts[on[0]], pts[on[t]], pts[on[t + 1]]))
    return tris


def write_stl(path, tris):
    with open(path, "wb") as f:
        f.write(b"tumble example mesh".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for a, b, c in tris:
            f.write(struct.pack("<3f", 0.0, 0.0, 0.0))
            for p in (a, b, c):
                f.write(struct.pack("<3f", *p))
            f.write(b"\0\0")


def write_prism_obj(path, sides, radius, half):
    with open(path, "w") as f:
        f.write(f"# a {sides}-sided prism, circumradius {radius} m, height {2 * half} m\n")
        for z in (-half, half):
            for i in range(sides):
                th = 2 * math.pi * i / sides
                f.write(f"v {radius * math.cos(th):.6f} {radius * math.sin(th):.6f} {z:.6f}\n")
        f.write("f " + " ".join(str(i + 1) for i in reversed(range(sides))) + "\n")
        f.write("f " + " ".join(str(sides + i + 1) for i in range(sides)) + "\n")
        for i in range(sides):
            j = (i + 1) % sides
            f.write(f"f {i + 1} {j + 1} {sides + j + 1} {sides + i + 1}\n")


def main():
    out = os.path.join(HERE, "meshes")
    os.makedirs(out, exist_ok=True)
    write_stl(os.path.join(out, "palm.stl"), hull_triangles(chamfered_box(0.05, 0.015, 0.01, 0.003)))
    write_stl(os.path.join(out, "finger.stl"),
              hull_triangles(chamfered_box(0.005, 0.01, 0.025, 0.001)))
    write_prism_obj(os.path.join(out, "part.obj"), 6, 0.02, 0.025)


if __name__ == "__main__":
    main()
