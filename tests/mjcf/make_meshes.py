"""Writes the mesh files of tests/mjcf/meshes.xml (tumble's own shapes, no third-party assets):

    python3 tests/mjcf/make_meshes.py tests/mjcf/meshes

tetra.stl and wedge.stl (binary STL), wedge-ascii.stl (the same wedge in ASCII STL, which
tumble reads and MuJoCo does not), icosphere.obj (a twice-subdivided icosahedron),
lprism.msh (MuJoCo's binary MSH: an L-shaped prism, not convex). Each surface is closed and
turned counter-clockwise seen from outside.
"""
import math
import os
import struct
import sys


def tetra():
    v = [(0.01, 0.0, 0.0), (0.11, 0.0, 0.0), (0.01, 0.08, 0.0), (0.01, 0.0, 0.06)]
    return v, [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def wedge():
    # a triangular prism: the right triangle (0,0) (0.06,0) (0,0.03) in xz, 0.04 along y
    t = [(0.0, 0.0), (0.06, 0.0), (0.0, 0.03)]
    v = [(x, 0.0, z) for x, z in t] + [(x, 0.04, z) for x, z in t]
    f = [(0, 1, 2), (3, 5, 4), (0, 3, 4), (0, 4, 1), (1, 4, 5), (1, 5, 2), (2, 5, 3), (2, 3, 0)]
    return v, f


def icosphere(r=0.05, levels=2):
    p = (1 + 5 ** 0.5) / 2
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p), (0, -1, -p),
         (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    v = [tuple(c / math.sqrt(sum(x * x for x in q)) for c in q) for q in v]
    for _ in range(levels):
        mid, g = {}, []

        def m(a, b):
            k = (min(a, b), max(a, b))
            if k not in mid:
                q = [(x + y) / 2 for x, y in zip(v[a], v[b])]
                n = math.sqrt(sum(x * x for x in q))
                v.append(tuple(x / n for x in q))
                mid[k] = len(v) - 1
            return mid[k]
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    return [tuple(r * x for x in q) for q in v], f


def lprism():
    poly = [(0, 0), (0.04, 0), (0.04, 0.01), (0.01, 0.01), (0.01, 0.03), (0, 0.03)]
    n = len(poly)
    v = [(x, y, 0.0) for x, y in poly] + [(x, y, 0.02) for x, y in poly]
    bottom = [(0, 2, 1), (0, 3, 2), (0, 5, 3), (5, 4, 3)]
    f = bottom + [(a + n, c + n, b + n) for a, b, c in bottom]
    for i in range(n):
        j = (i + 1) % n
        f += [(i, j, j + n), (i, j + n, i + n)]
    return v, f


def normal(v, t):
    a, b, c = (v[i] for i in t)
    u = [b[k] - a[k] for k in range(3)]
    w = [c[k] - a[k] for k in range(3)]
    return (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])


def write_stl_binary(path, v, f):
    with open(path, "wb") as out:
        out.write(b"tumble test mesh".ljust(80, b" "))
        out.write(struct.pack("<I", len(f)))
        for t in f:
            out.write(struct.pack("<3f", *normal(v, t)))
            for i in t:
                out.write(struct.pack("<3f", *v[i]))
            out.write(b"\0\0")


def write_stl_ascii(path, v, f):
    with open(path, "w") as out:
        out.write("solid wedge\n")
        for t in f:
            out.write("facet normal %.9g %.9g %.9g\n outer loop\n" % normal(v, t))
            for i in t:
                out.write("  vertex %.9g %.9g %.9g\n" % v[i])
            out.write(" endloop\nendfacet\n")
        out.write("endsolid wedge\n")


def write_obj(path, v, f):
    with open(path, "w") as out:
        out.write("# tumble test mesh\n")
        for q in v:
            out.write("v %.9g %.9g %.9g\n" % q)
        for t in f:
            out.write("f %d %d %d\n" % tuple(i + 1 for i in t))


def write_msh(path, v, f):
    with open(path, "wb") as out:
        out.write(struct.pack("<4i", len(v), 0, 0, len(f)))
        out.write(struct.pack("<%df" % (3 * len(v)), *[c for q in v for c in q]))
        out.write(struct.pack("<%di" % (3 * len(f)), *[i for t in f for i in t]))


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    write_stl_binary(os.path.join(d, "tetra.stl"), *tetra())
    write_stl_binary(os.path.join(d, "wedge.stl"), *wedge())
    write_stl_ascii(os.path.join(d, "wedge-ascii.stl"), *wedge())
    write_obj(os.path.join(d, "icosphere.obj"), *icosphere())
    write_msh(os.path.join(d, "lprism.msh"), *lprism())


if __name__ == "__main__":
    main()
