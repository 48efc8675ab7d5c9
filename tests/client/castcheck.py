#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""castcheck: reads an asciicast v3 file strictly, as docs.asciinema.org/manual/asciicast/v3 defines it.

castcheck.py CAST                        check it; print "ok COLSxROWS EVENTS MARKERS SECONDS"
castcheck.py CAST --frames DIR LABEL...  also write DIR/LABEL (spaces as '-') for each marker LABEL:
                                         the output ("o") events' data before it, the screen a
                                         player shows at that marker
Exit 1 with the line and the reason when the file is not asciicast v3.
"""
import json
import sys


def fail(lineno, why):
    print(f"castcheck: line {lineno}: {why}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) == 3 or (len(sys.argv) > 3 and sys.argv[2] != "--frames") or len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    outdir = sys.argv[3] if len(sys.argv) > 3 else None
    wanted = set(sys.argv[4:])
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(0, f"not UTF-8: {e}")
    if not text.endswith("\n"):
        fail(0, "the last line has no newline")
    lines = text[:-1].split("\n")
    if not lines or lines[0].startswith("#"):
        fail(1, "the first line must be the header, not a comment")
    try:
        hdr = json.loads(lines[0])
    except ValueError as e:
        fail(1, f"header is not JSON: {e}")
    if not isinstance(hdr, dict) or hdr.get("version") != 3 or type(hdr.get("version")) is not int:
        fail(1, "header: version must be the integer 3")
    term = hdr.get("term")
    if not isinstance(term, dict):
        fail(1, "header: no term object")
    for k in ("cols", "rows"):
        if type(term.get(k)) is not int or term[k] <= 0:
            fail(1, f"header: term.{k} must be a positive integer")
    if "type" in term and not isinstance(term["type"], str):
        fail(1, "header: term.type must be a string")
    events = markers = 0
    seconds = 0.0
    out = []
    found = set()
    for n, line in enumerate(lines[1:], start=2):
        if line.startswith("#"):
            continue
        try:
            ev = json.loads(line)
        except ValueError as e:
            fail(n, f"event is not JSON: {e}")
        if not isinstance(ev, list) or len(ev) != 3:
            fail(n, "an event is a 3-element array")
        interval, code, data = ev
        if type(interval) not in (int, float) or interval < 0:
            fail(n, "the interval must be a number >= 0 (v3: relative to the previous event)")
        if not isinstance(code, str) or code not in ("o", "i", "r", "m", "x") or not isinstance(data, str):
            fail(n, f"unknown event code {code!r} or data not a string")
        if code == "r":
            c, _, r = data.partition("x")
            if not (c.isdigit() and r.isdigit()):
                fail(n, "a resize event's data is COLSxROWS")
        events += 1
        seconds += interval
        if code == "m":
            markers += 1
            if data in wanted:
                found.add(data)
                with open(f"{outdir}/{data.replace(' ', '-')}", "wb") as f:
                    f.write("".join(out).encode("utf-8"))
        if code == "o":
            out.append(data)
    if wanted - found:
        fail(0, f"no marker {sorted(wanted - found)}")
    print(f"ok {term['cols']}x{term['rows']} {events} {markers} {seconds:.3f}")


main()
