#!/usr/bin/env python3
"""Every command's options, three ways: what its parser accepts, what `tumble CMD --help` says,
and the options table of its page in docs/. They must be the same set.

  cli_options_check.py SOURCE_DIR TUMBLE

The parser's options are the string literals that start with "--" in the command's source file,
together with those of the shared parsers it calls (host/cli/cli_args.c and cli_replay.c: a
function whose body compares its argument with "--device" ... accepts those); where a file
holds an option table with a bit per subcommand (estimate's), which gates every option, the
subcommand's bit picks its rows. The help's options are the --NAME words of the command's usage (the block of lines from
"tumble CMD" to the next command's line). The page's are the `--NAME` words of the first column
of the table under the page's "## Options" heading for the command.
Catches: an option added to a parser and to neither the help nor the docs, a help or a page that
names an option no parser has (renamed, removed, misspelled), a command without --help.
"""
import os
import re
import subprocess
import sys

# (docs page, heading, command words, source file, the option table's bit or None)
COMMANDS = [
    ("simulate.md", "## Options", ["simulate"], "cli_simulate.c", None),
    ("solvers.md", "## Options: tumble solve", ["solve"], "cli_solve.c", None),
    ("mjcf.md", "## Options: tumble model", ["model"], "cli_model.c", None),
    ("plate.md", "## Options: tumble plate field", ["plate", "field"], "cli_plate.c", None),
    ("plate.md", "## Options: tumble plate optimize", ["plate", "optimize"],
     "cli_plate_optimize.c", None),
    ("estimate.md", "## Options: tumble estimate synth", ["estimate", "synth"], "cli_estimate.c", 1),
    ("estimate.md", "## Options: tumble estimate pf", ["estimate", "pf"], "cli_estimate.c", 2),
    ("estimate.md", "## Options: tumble estimate fit", ["estimate", "fit"], "cli_estimate.c", 4),
    ("grasp.md", "## Options", ["grasp"], "cli_grasp.c", None),
    ("grasp3d.md", "## Options", ["grasp3d"], "cli_grasp3d.c", None),
]
SHARED = ["cli_args.c", "cli_replay.c"]
LITERAL = re.compile(r'"(--[a-z][a-z0-9-]*)')
WORD = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
FUNCTION = re.compile(r"^[a-z][^\n;]*?\b(tb_\w+)\([^;{]*\)\s*\{\n(.*?)^\}", re.M | re.S)
TABLE_ROW = re.compile(r'\{"(--[a-z][a-z0-9-]*)",\s*(\d+)\}')


def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def shared_parsers(cli):
    """Each shared parser function's name and the options its body compares with."""
    out = {}
    for name in SHARED:
        text = strip_comments(open(os.path.join(cli, name)).read())
        for m in FUNCTION.finditer(text):
            opts = set(LITERAL.findall(m.group(2)))
            if opts:
                out[m.group(1)] = opts
    return out


def parser_options(cli, name, bit, shared):
    text = strip_comments(open(os.path.join(cli, name)).read())
    rows = TABLE_ROW.findall(text)
    if bit is not None:
        # the table gates every option, the shared parsers' too
        return {o for o, mask in rows if int(mask) & bit}
    opts = set(LITERAL.findall(text))
    for fn, fopts in shared.items():
        if re.search(r"\b%s\(" % fn, text):
            opts |= fopts
    opts.discard("--help")
    return opts


def help_options(tumble, words):
    run = subprocess.run([tumble] + words + ["--help"], capture_output=True, text=True)
    if run.returncode != 0:
        return None, "tumble %s --help: exit %d: %s" % (" ".join(words), run.returncode,
                                                          run.stderr.strip()[:200])
    # the usage block of this command: from its line to the next line naming another command
    block, inside = [], False
    for line in run.stdout.splitlines():
        head = re.match(r"^(?:usage:)?\s*tumble ((?:[a-z0-9]+ ?)+)", line)
        if head:
            inside = head.group(1).split()[:len(words)] == words
        if inside:
            block.append(line)
    if not block:
        return None, "tumble %s --help: no usage line for the command" % " ".join(words)
    opts = set(WORD.findall("\n".join(block)))
    opts.discard("--help")
    return opts, None


def docs_options(path, heading):
    lines = open(path).read().splitlines()
    try:
        at = lines.index(heading)
    except ValueError:
        return None
    opts = set()
    for line in lines[at + 1:]:
        if line.startswith("## "):
            break
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            opts |= set(WORD.findall(cells[1]))
    opts.discard("--help")
    return opts


def main(argv):
    if len(argv) != 3:
        print("usage: cli_options_check.py SOURCE_DIR TUMBLE", file=sys.stderr)
        return 2
    src, tumble = argv[1], argv[2]
    cli = os.path.join(src, "host", "cli")
    shared = shared_parsers(cli)
    faults = []
    for page, heading, words, source, bit in COMMANDS:
        command = "tumble " + " ".join(words)
        parsed = parser_options(cli, source, bit, shared)
        helped, err = help_options(tumble, words)
        documented = docs_options(os.path.join(src, "docs", page), heading)
        if err:
            faults.append(err)
            continue
        if documented is None:
            faults.append("docs/%s: no heading '%s'" % (page, heading))
            continue
        for what, opts in (("its --help", helped), ("docs/" + page, documented)):
            for o in sorted(parsed - opts):
                faults.append("%s: the parser takes %s; %s does not name it" % (command, o, what))
            for o in sorted(opts - parsed):
                faults.append("%s: %s names %s; the parser has no such option" % (command, what, o))
    for f in faults:
        print(f)
    print("options: %d commands, %d faults" % (len(COMMANDS), len(faults)))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
