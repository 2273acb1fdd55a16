#!/usr/bin/env python3
"""The layers of docs/layout.md, checked on the source and on the built objects.

  layout_check.py SOURCE_DIR BUILD_DIR

Fails (exit 1, one line a fault) when
  - a file of host/LAYER/ includes a header of a higher layer (the folders' order is LAYERS);
  - files include one another in a circle;
  - a public header (include/tumble/) includes an internal one;
  - an object of a layer calls a function or reads a variable that only a higher layer's objects
    define (a call through a public header's declaration, which no include shows);
  - a source file of host/, include/ or kernels/ is over MAX_LINES lines.
Catches: a stage that reaches up into the rollout or a job, a solver that calls the engine, a
helper that lands in the wrong folder, a header that starts to include its includer, a public
header that exposes the engine's internals.
"""
import os
import re
import subprocess
import sys

LAYERS = ["util", "math", "solver", "engine", "gpu", "rollout", "jobs", "io", "plot", "cli"]
MAX_LINES = 800
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE = (".c", ".h", ".cc", ".cu")


def layer_of(rel):
    """The layer of a path under host/ ('engine/model.c'), or None."""
    top = rel.split("/", 1)[0]
    return LAYERS.index(top) if top in LAYERS else None


def host_files(src):
    out = []
    for layer in LAYERS:
        folder = os.path.join(src, "host", layer)
        for name in sorted(os.listdir(folder)):
            if name.endswith(SOURCE):
                out.append(layer + "/" + name)
    return out


def include_faults(src, files):
    faults, graph = [], {}
    for rel in files:
        text = open(os.path.join(src, "host", rel)).read()
        graph[rel] = []
        for kind, name in INCLUDE.findall(text):
            if kind != '"' or layer_of(name) is None:
                continue
            graph[rel].append(name)
            if layer_of(name) > layer_of(rel):
                faults.append("host/%s includes %s, a higher layer" % (rel, name))
    faults += circles(graph)
    public = os.path.join(src, "include", "tumble")
    for name in sorted(os.listdir(public)):
        for kind, inc in INCLUDE.findall(open(os.path.join(public, name)).read()):
            if kind == '"' and not os.path.exists(os.path.join(public, inc)):
                faults.append("include/tumble/%s includes %s, not a public header" % (name, inc))
    return faults


def circles(graph):
    """An include circle, as one fault naming its files (depth-first search)."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return ["include circle: " + " -> ".join("host/" + f for f in found)]
    return []


def symbols(obj):
    """(defined, undefined) external symbols of an object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRCVW":  # global definitions (lower case: the object's own)
            defined.add(name)
    return defined, undefined


def objects(build):
    """Each built object of host/LAYER/ with its layer; the kernels and the fp32 twin sit with
    the gpu layer, whose host side they are."""
    out = []
    for root, _, names in os.walk(os.path.join(build, "CMakeFiles")):
        for name in names:
            if not name.endswith(".o"):
                continue
            path = os.path.join(root, name)
            rel = path.replace(os.sep, "/")
            m = re.search(r"\.dir/host/(\w+)/", rel)
            if m and m.group(1) in LAYERS:
                out.append((path, LAYERS.index(m.group(1))))
            elif re.search(r"tumble\.dir/(kernels|f32)/", rel):
                out.append((path, LAYERS.index("gpu")))
    return out


def call_faults(build):
    objs = objects(build)
    if not objs:
        return ["no objects of host/ under %s/CMakeFiles: build first" % build]
    owner = {}
    undefined = []
    for path, layer in objs:
        d, u = symbols(path)
        for s in d:
            owner.setdefault(s, set()).add(layer)
        undefined.append((path, layer, u))
    faults = []
    for path, layer, u in undefined:
        for s in sorted(u):
            layers = owner.get(s)
            if layers and min(layers) > layer:
                faults.append("%s (%s) uses %s, defined only in %s" % (
                    os.path.relpath(path, build), LAYERS[layer], s,
                    ", ".join(LAYERS[k] for k in sorted(layers))))
    return faults


def size_faults(src):
    faults = []
    for top in ("host", "include", "kernels"):
        for root, _, names in os.walk(os.path.join(src, top)):
            for name in sorted(names):
                if name.endswith(SOURCE):
                    path = os.path.join(root, name)
                    n = sum(1 for _ in open(path))
                    if n > MAX_LINES:
                        faults.append("%s: %d lines, over %d" % (
                            os.path.relpath(path, src), n, MAX_LINES))
    return faults


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    src, build = argv[1], argv[2]
    faults = include_faults(src, host_files(src)) + call_faults(build) + size_faults(src)
    for f in faults:
        print(f)
    print("layout: %d faults" % len(faults))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
