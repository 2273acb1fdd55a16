#!/usr/bin/env python3
"""The fp32 twin of the step's source: the shared TB_HD headers, the GPU launcher and what it
calls, rewritten for single precision, the way LAPACK's and MAGMA's s-routines are generated
from their d-routines. One source stays the truth; the twin is a build product.

Each file reachable by #include from the roots is rewritten into OUTDIR/f32/:
  - `double` becomes `float`, and every floating literal single precision (`0.5` -> `0.5f`; the
    two beyond float's range, 1e+-300, become 1e+-38), so that no expression is promoted back to
    double;
  - cuBLAS's and cuSOLVER's D routines become their S routines;
  - every macro the files define (the field tables, TB_HD, the include guards) gets the suffix
    _F32, and the C linkage blocks go: the twin is compiled inside `namespace tbf32`, where its
    types and functions live beside the fp64 originals in one program;
  - an #include of a file of the set becomes #include "f32/NAME".
A root that is a source file (.c, .cu) becomes a translation unit (.cc, .cu) that includes every
system header of its closure first and then its rewritten body inside the namespace; OUTDIR/f32/
tbf32.h does the same for the headers, for hand-written code that uses both precisions
(host/rollout/rollout_fp32.cc).

    f32twin.py --list ROOT...          the files the roots reach (for CMake's outputs)
    f32twin.py OUTDIR ROOT...          write the twin
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SEARCH = [os.path.join(REPO, "host"), os.path.join(REPO, "include", "tumble")]
# precision-free: included as they are, outside the namespace (paths under host/)
KEEP = {"util/error.h", "gpu/gpu_settings.h"}
KEEP_NAMES = {os.path.basename(k) for k in KEEP}
# what OUTDIR/f32/tbf32.h includes
UMBRELLA = ["problem.h", "newton_phased.h", "gpu.h"]
# functions the files declare that have no precision: the twin drops the declaration and calls
# the fp64 program's own
GLOBAL = ["tb_clock"]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
FLOAT = re.compile(r"(?<![\w.])((?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)(?![\w.])")
# code, or a comment, string or character literal (kept as they are)
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
EXTERN_C = re.compile(
    r'#ifdef __cplusplus\s*\nextern "C" \{\s*\n#endif[^\n]*\n|#ifdef __cplusplus\s*\n\}\s*\n'
    r"#endif[^\n]*\n")


def resolve(name, here):
    """The file an #include names, if it is one of the project's."""
    if name.startswith("tumble/"):
        cands = [os.path.join(REPO, "include", name)]
    else:
        cands = [os.path.join(os.path.dirname(here), name)] + [os.path.join(d, name) for d in SEARCH]
    for c in cands:
        if os.path.exists(c):
            return os.path.normpath(c)
    return None


def closure(roots):
    """Every project file the roots reach, dependencies first, and the system headers."""
    seen, order, system = set(), [], []
    def walk(path):
        if path in seen:
            return
        seen.add(path)
        for kind, name in INCLUDE.findall(open(path).read()):
            target = resolve(name, path)
            if target and os.path.basename(target) not in KEEP_NAMES:
                walk(target)
            elif target is None and name not in system:
                system.append(name)
        order.append(path)
    for r in roots:
        walk(os.path.normpath(os.path.abspath(r)))
    return order, system


def twin_name(path):
    base = os.path.basename(path)
    return base[:-2] + ".cc" if base.endswith(".c") else base


def single(m):
    text = m.group(1)
    v = float(text)
    if v > 3.0e38:
        return "1e38f"
    if 0.0 < v < 1.2e-38:
        return "1.2e-38f"
    return text + "f"


def rewrite(text, names, macros):
    text = EXTERN_C.sub("", text)
    for name in GLOBAL:
        text = re.sub(r"^\w[\w \*]*\b%s\([^)]*\);[^\n]*\n" % name, "", text, flags=re.M)
    text = re.sub(r'\bextern "C" ', "", text)

    def include(m):
        kind, name = m.group(1), m.group(2)
        base = os.path.basename(name)
        if base in names and base not in KEEP_NAMES:
            return '#include "f32/%s"' % twin_name(base)
        return m.group(0)

    text = INCLUDE.sub(include, text)
    macro = re.compile(r"\b(%s)\b" % "|".join(sorted(macros, key=len, reverse=True)))

    def code(part):
        part = re.sub(r"\bdouble\b", "float", part)
        part = re.sub(r"\b(cublas|cusolverDn)D(?=[a-z]+Batched\b)", r"\1S", part)
        part = FLOAT.sub(single, part)
        part = re.sub(r"(?<![\w:])(%s)(?=\()" % "|".join(GLOBAL), r"::\1", part)
        return macro.sub(r"\1_F32", part)

    out, at = [], 0
    for m in TOKEN.finditer(text):
        out.append(code(text[at:m.start()]))
        tok = m.group(0)
        # a comment keeps its words; a macro named in an #include line's comment is harmless
        out.append(tok)
        at = m.end()
    out.append(code(text[at:]))
    return "".join(out)


def translation_unit(body, system, keep, tags):
    """body inside the namespace, after every system header and the kept ones. The struct tags
    are declared first: an elaborated `struct tbWork` in the twin would otherwise name the fp64
    struct of the enclosing namespace where one is visible."""
    head = ["// generated by scripts/f32twin.py: the fp32 twin, do not edit"]
    head += ["#include <%s>" % s for s in system]
    head += ['#include "%s"' % k for k in keep]
    tags = "".join("struct %s;\n" % t for t in tags)
    return ("\n".join(head) + "\nnamespace tbf32 {\n" + tags + body +
            "\n}  // namespace tbf32\n")


def main(argv):
    if argv[0] == "--list":
        order, _ = closure(argv[1:])
        print(";".join(twin_name(p) for p in order))
        return 0
    out = os.path.join(argv[0], "f32")
    os.makedirs(out, exist_ok=True)
    roots = argv[1:]
    order, system = closure(roots)
    names = {os.path.basename(p) for p in order}
    macros, tags = set(), []
    for p in order:
        text = open(p).read()
        macros.update(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
        tags += [t for t in re.findall(r"\bstruct\s+(\w+)\s*\{", text) if t not in tags]
    keep = sorted(KEEP)
    for p in order:
        body = rewrite(open(p).read(), names, macros)
        if p.endswith((".c", ".cu")):
            _, sys_p = closure([p])
            body = translation_unit(body, sys_p, keep, tags)
        else:
            body = "// generated by scripts/f32twin.py: the fp32 twin, do not edit\n" + body
        dest = os.path.join(out, twin_name(p))
        if not os.path.exists(dest) or open(dest).read() != body:
            open(dest, "w").write(body)
    inc = "\n".join('#include "f32/%s"' % h for h in UMBRELLA)
    umbrella = translation_unit(inc, [s for s in system if not s.startswith("cu")], keep, tags)
    umbrella = umbrella.replace("namespace tbf32 {", "#ifndef TUMBLE_F32_TWIN_H_\n"
                                "#define TUMBLE_F32_TWIN_H_\nnamespace tbf32 {", 1) + "#endif\n"
    dest = os.path.join(out, "tbf32.h")
    if not os.path.exists(dest) or open(dest).read() != umbrella:
        open(dest, "w").write(umbrella)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
