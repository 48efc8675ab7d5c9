#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The layers of docs/architecture.md, checked on every #include "..." of the sources:
#   common/ (the rules) at the bottom; bots/ and proto/ on it, beside each other;
#   server/ on proto/ and common/; client/ on all of them.
# No file includes one of a folder above or beside its own (common/ never sees a bot),
# and no two files include each other (file a: a.c and a.h; a.c may include a.h;
# a header without a .c, such as a module's internal.h, is no file of its own here).
# TAP output. Usage: layers.py SOURCE_ROOT
import os
import re
import sys

# What each folder may include from, besides itself.
BELOW = {
    "common": set(),
    "bots": {"common"},
    "proto": {"common"},
    "server": {"common", "proto"},
    "client": {"common", "proto", "bots", "server"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    where = {}  # header name -> folder
    files = []
    for folder in BELOW:
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")):
                files.append((folder, name))
                if name.endswith(".h"):
                    where.setdefault(name, folder)
    n = 0
    failed = 0

    def report(ok, what):
        nonlocal n, failed
        n += 1
        failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))

    edges = set()  # (folder/stem, folder/stem)
    for folder, name in files:
        text = open(os.path.join(root, folder, name), encoding="utf-8").read()
        bad = []
        for inc in INCLUDE.findall(text):
            base = os.path.basename(inc)
            # A header of the file's own folder first, as the compiler finds it.
            owner = folder if os.path.exists(os.path.join(root, folder, base)) else where.get(base)
            if owner is None:
                continue  # generated (help_data) or a system header spelled with quotes
            if owner != folder and owner not in BELOW[folder]:
                bad.append("%s/%s" % (owner, base))
            a, b = "%s/%s" % (folder, name[:-2]), "%s/%s" % (owner, base[:-2])
            if a != b:
                edges.add((a, b))
        report(not bad, "%s/%s includes only its own layer and those below%s" %
               (folder, name, (": not " + ", ".join(bad)) if bad else ""))
    # A header with no .c of its own (internal.h, a module's shared declarations) is not a
    # file that calls back: only two files with code can make a circle.
    code = {"%s/%s" % (f, name[:-2]) for f, name in files if name.endswith(".c")}
    mutual = sorted("%s <-> %s" % (a, b) for a, b in edges
                    if (b, a) in edges and a < b and a in code and b in code)
    report(not mutual, "no two files include each other%s" % ((": " + "; ".join(mutual)) if mutual else ""))
    report(n > 50, "the sources were found (%d checks)" % n)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
