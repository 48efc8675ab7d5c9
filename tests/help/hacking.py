#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Keeps docs/hacking.md's "## A spell" true: in a scratch copy of the source tree, add the
# section's example spell exactly as it says (its numbered files, and only those, at most 5;
# each code block where the <!-- apply ... --> line before it says), build the rules, the
# bots and their tests, run regen.sh's steps for docs/rules.md and tests/common/bot.golden,
# and run the whole rules suite there. TAP output.
# Usage: hacking.py SOURCE_ROOT [--keep]   (--keep: leave the scratch folder, and say where)
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_FILES = 5
# The rules suite's programs (tests/common/meson.build, bench_absent for bench/absent_smoke and bench_bot for
# bench/strength_smoke) and doc_rules.
TARGETS = ["test_common_" + t for t in ("level", "fov", "rules", "spells", "potions", "effects", "view",
                                        "turnlog", "bot", "mind", "describe", "gpack", "spect")] + ["doc_rules", "bench_absent",
                                                                                                    "bench_bot"]
APPLY = re.compile(r"^<!-- apply (\S+): (.*) -->$")
STEP = re.compile(r"^\d+\. `([^`]+)`")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, detail=""):
        self.n += 1
        self.failed += not cond
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, what))
        if not cond and detail:
            for line in detail.rstrip().splitlines()[-40:]:
                print("# " + line)
        sys.stdout.flush()
        return cond


def section(doc, title):
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), doc, re.M | re.S)
    return m.group(1) if m else None


def parse(text):
    """The numbered files, and each apply line with the code block after it (None for a bump)."""
    files = [m.group(1) for m in map(STEP.match, text.splitlines()) if m]
    steps = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = APPLY.match(line)
        if not m:
            continue
        path, how = m.group(1), m.group(2)
        block = None
        if not how.startswith("bump "):
            j = i + 1
            if j >= len(lines) or not lines[j].startswith("```"):
                raise ValueError("%s: no code block after the apply line" % line)
            k = lines.index("```", j + 1)
            block = "\n".join(lines[j + 1:k]) + "\n"
        steps.append((path, how, block))
    return files, steps


def regex(how, word):
    m = re.search(r"%s /((?:[^/\\]|\\.)*)/" % word, how)
    return re.compile(m.group(1)) if m else None


def apply(root, path, how, block):
    f = os.path.join(root, path)
    lines = open(f, encoding="utf-8").read().split("\n")
    if how.startswith("bump "):
        r = regex(how, "bump")
        for i, line in enumerate(lines):
            if r.search(line):
                lines[i] = re.sub(r"(\d+)(?!.*\d)", lambda m: str(int(m.group(1)) + 1), line)
                break
        else:
            raise ValueError("%s: no line matches %s" % (path, r.pattern))
    else:
        start = 0
        within = regex(how, "within")
        if within:
            start = next((i for i, line in enumerate(lines) if within.search(line)), None)
            if start is None:
                raise ValueError("%s: no line matches %s" % (path, within.pattern))
        before = regex(how, "before")
        at = next((i for i in range(start, len(lines)) if before.search(lines[i])), None)
        if at is None:
            raise ValueError("%s: no line matches %s" % (path, before.pattern))
        lines[at:at] = block[:-1].split("\n")  # the block as the document gives it, blank lines included
    open(f, "w", encoding="utf-8").write("\n".join(lines))


def run(tap, what, argv, cwd=None, env=None, timeout=900):
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        return tap.ok(p.returncode == 0, what, p.stdout)
    except subprocess.TimeoutExpired as e:
        return tap.ok(False, what + " (timed out)", str(e.output or ""))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    keep = "--keep" in sys.argv
    tap = Tap()
    doc = open(os.path.join(root, "docs", "hacking.md"), encoding="utf-8").read()
    text = section(doc, "A spell")
    if not tap.ok(text is not None, "docs/hacking.md has a section \"## A spell\""):
        print("1..%d" % tap.n)
        return 1
    files, steps = parse(text)
    touched = sorted({p for p, _, _ in steps})
    tap.ok(0 < len(files) <= MAX_FILES, "it lists %d files to touch by hand (at most %d)" % (len(files), MAX_FILES))
    tap.ok(sorted(files) == touched, "its example touches exactly the files it lists",
           "listed: %s\ntouched: %s" % (", ".join(files), ", ".join(touched)))
    for f in files:
        tap.ok(os.path.isfile(os.path.join(root, f)), "%s exists" % f)

    scratch = tempfile.mkdtemp(prefix="wizwar-hacking-")
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], stdout=subprocess.PIPE)
        if listed.returncode != 0:  # not a git checkout (a release tarball): every file but build folders
            names = []
            for d, ds, ns in os.walk(root):
                ds[:] = [x for x in ds if x != ".git" and not os.path.isdir(os.path.join(d, x, "meson-private"))]
                names += [os.path.relpath(os.path.join(d, n), root) for n in ns]
        else:
            names = [n for n in listed.stdout.decode().split("\0") if n]
        src = os.path.join(scratch, "src")
        for n in names:
            if not os.path.isfile(os.path.join(root, n)):
                continue  # deleted in the work tree, not yet committed
            os.makedirs(os.path.dirname(os.path.join(src, n)), exist_ok=True)
            shutil.copy2(os.path.join(root, n), os.path.join(src, n))
        applied = True
        for path, how, block in steps:
            try:
                apply(src, path, how, block)
            except (ValueError, OSError) as e:
                applied = tap.ok(False, "apply %s: %s" % (path, how), str(e))
        tap.ok(applied, "every step applies to the scratch copy")
        build = os.path.join(scratch, "build")
        env = dict(os.environ, WIZWAR_SRCDIR=src)
        if applied and run(tap, "meson setup (tests on, -Dwerror=true)",
                           ["meson", "setup", build, src, "-Dwerror=true", "-Dtests=true"]):
            if run(tap, "the rules, the bots and the rules suite's programs build",
                   ["meson", "compile", "-C", build] + TARGETS):
                run(tap, "regen.sh's docs/rules.md step",
                    [os.path.join(build, "tests", "common", "doc_rules"), "--write", os.path.join(src, "docs", "rules.md")])
                tap.ok("| Mend |" in open(os.path.join(src, "docs", "rules.md"), encoding="utf-8").read(),
                       "docs/rules.md has the new spell's rows")
                run(tap, "regen.sh's tests/common/bot.golden step",
                    [os.path.join(build, "tests", "common", "test_common_bot"), "--filter",
                     "bot/hard_decides_as_before_its_caches"], env=dict(env, WIZWAR_REGEN="1"))
                # Not rules/port (suite port): it compares the program's selfplay with rules_hash, both
                # outside TARGETS, and says nothing of the new spell that the rest of the suite does not.
                run(tap, "the rules suite passes with the new spell",
                    ["meson", "test", "-C", build, "--suite", "rules", "--no-suite", "port", "--no-rebuild", "--print-errorlogs"])
    finally:
        if keep:
            print("# scratch tree kept in %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
