#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cells: a `tmux capture-pane -e -p` screen as one line per cell: the character and what shows of
its colours and attributes. A blank's foreground, bold and dim cannot be seen, so only its background
counts: two curses programs that paint the same screen through different updates (one drew blanks
with the default foreground, the other with white) compare equal, and any visible difference does not.

cells.py FILE...  ->  FILE.cells for each, "row col char fg bg attrs" a line
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def apply(state, params):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            state.update(fg="default", bg="default", attrs=set())
        elif c in (1, 2, 3, 4, 5, 7, 8, 9):
            state["attrs"].add(c)
        elif c == 22:
            state["attrs"] -= {1, 2}
        elif 23 <= c <= 29:
            state["attrs"].discard(c - 20)
        elif 30 <= c <= 37 or 90 <= c <= 97:
            state["fg"] = str(c - 30 if c < 90 else c - 82)
        elif 40 <= c <= 47 or 100 <= c <= 107:
            state["bg"] = str(c - 40 if c < 100 else c - 92)
        elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
            state["fg" if c == 38 else "bg"] = str(codes[i + 2])
            i += 2
        elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
            state["fg" if c == 38 else "bg"] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
            i += 4
        elif c == 39:
            state["fg"] = "default"
        elif c == 49:
            state["bg"] = "default"
        i += 1


def cells_of(path, out):
    text = open(path, encoding="utf-8").read()
    # tmux carries the attributes and the line-drawing set from one line to the next (a line starts in
    # the state the one before ended in), so the state is not reset per line.
    state = {"fg": "default", "bg": "default", "attrs": set()}
    acs = False
    for row, line in enumerate(text.split("\n")):
        col = 0
        pos = 0
        cells = []
        for m in SGR.finditer(line + "\x1b[39m"):
            for ch in line[pos:m.start()]:
                # tmux writes a cell of the line-drawing set (DEC graphics: "x" a vertical line) between
                # SO and SI: those take no column; the character is named as the set's.
                if ch in "\x0e\x0f":
                    acs = ch == "\x0e"
                    continue
                a = state["attrs"]
                if acs and ch != " ":
                    ch = "acs-" + ch
                if ch == " " and not a & {4, 7, 9}:
                    cells.append(f"{row} {col} blank {state['bg']}")
                else:
                    cells.append(f"{row} {col} {ch!r} {state['fg']} {state['bg']} {','.join(map(str, sorted(a)))}")
                col += 1
            pos = m.end()
            if m.start() < len(line):
                apply(state, m.group(1))
        # Blanks at a line's end are printed or left out depending on how they were cleared (a
        # clear to the end of the line, or spaces): they are left out on both sides.
        while cells and " blank " in cells[-1]:
            cells.pop()
        for c in cells:
            print(c, file=out)


def main():
    for path in sys.argv[1:]:
        with open(path + ".cells", "w", encoding="utf-8") as out:
            cells_of(path, out)


main()
