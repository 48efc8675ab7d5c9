#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docclient: a wizwar client's decoding half, written from docs/protocol.md alone.

It reads the server-to-client frames of a duel (from WELCOME on, as they lie in the
records' plaintext: the encryption around them is Noise's, checked elsewhere), inflates,
decodes every message, keeps the player's view by applying START and each UPDATE, and
formats the messages with the tables it parses out of the document itself. Nothing here
comes from the C sources: where the document left something to guess, the document was
fixed. The test (`meson test proto/docclient`) records selfplay duels with the reference
encoder (proto_record) and checks that this decoder rebuilds, frame by frame, exactly
the views and message texts the reference client does.

Usage: docclient.py --doc docs/protocol.md --record build/tests/proto/proto_record
       docclient.py --doc docs/protocol.md STREAM.bin EXPECTED.views
"""

import argparse
import os
import hashlib
import re
import subprocess
import sys
import tempfile
import zlib


class Broken(Exception):
    """The peer's bytes break the protocol: a client would drop the connection."""


# ---- the tables, from the document ----

def doc_blocks(text):
    blocks = {}
    for m in re.finditer(r"<!-- gen:([\w-]+) -->\n(.*?)<!-- /gen:\1 -->\n", text, re.S):
        blocks[m.group(1)] = m.group(2)
    return blocks


def table_rows(block):
    rows = []
    for line in block.splitlines():
        if not line.startswith("|") or line.startswith("| ---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(cells)
    return rows[1:]  # the header row


class Tables:
    def __init__(self, doc):
        b = doc_blocks(doc)
        self.types = {}
        for code, name, frm, pre, size in table_rows(b["types"]):
            lo, _, hi = size.partition("..")
            self.types[int(code.strip("`"), 16)] = (name, frm, int(lo), int(hi or lo))
        self.spells = {int(r[0]): r[1] for r in table_rows(b["spells"]) if r[0].isdigit()}
        self.appearances = {int(r[0]): r[1] for r in table_rows(b["appearances"])}
        self.kinds = {int(r[0]): r[1] for r in table_rows(b["potions"]) if r[0].isdigit()}
        self.elements = {int(r[0]): r[1] for r in table_rows(b["elements"])}
        self.effects = {int(r[0]): r[2] for r in table_rows(b["effects"])}
        self.handlers = len(table_rows(b["handlers"]))
        kinds = {r[0]: r for r in table_rows(b["arg-kinds"])}
        self.arg_range = {k: int(r[2].split("..")[1]) for k, r in kinds.items()}
        self.messages = {}
        for mid, name, a1, a2, nargs, text in table_rows(b["messages"]):
            text = "" if text == "(empty)" else text.strip("`")
            self.messages[int(mid)] = (name, a1, a2, int(nargs), text)
        self.proto_version = int(re.search(r"protocol version \(`PROTO_VERSION`\) \| (\d+)", b["versions"]).group(1))
        # "Padding": the sizes a record's plaintext is padded to, and the record lengths they make.
        self.pad_sizes = [int(r[1]) for r in table_rows(b["padding"])]
        self.record_lengths = {int(r[2]) for r in table_rows(b["padding"])}

    def pad(self, frames):
        """A record's plaintext: the frames, then zeros to the first size that holds them."""
        size = next(p for p in self.pad_sizes if p >= len(frames))
        return frames + bytes(size - len(frames))

    def arg_text(self, kind, v):
        names = {"spell": self.spells, "appearance": self.appearances, "kind": self.kinds,
                 "element": self.elements}
        if kind == "number":
            return str(v)
        return names[kind][v]

    def format(self, mid, args):
        name, a1, a2, n, text = self.messages[mid]
        subs = {"1": self.arg_text(a1, args[0]) if a1 else "", "2": self.arg_text(a2, args[1]) if a2 else ""}
        # {one/many}: the word for a first argument of 1, else the other (the document's rule).
        text = re.sub(r"\{([^/{}]*)/([^/{}]*)\}", lambda m: m.group(1) if args[0] == 1 else m.group(2), text)
        return re.sub(r"%([12])", lambda m: subs[m.group(1)], text)


# ---- bytes ----

class Reader:
    def __init__(self, data):
        self.b = data
        self.i = 0

    def left(self):
        return len(self.b) - self.i

    def take(self, n):
        if n > self.left():
            raise Broken("truncated")
        s = self.b[self.i:self.i + n]
        self.i += n
        return s

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return int.from_bytes(self.take(2), "big")

    def u32(self):
        return int.from_bytes(self.take(4), "big")

    def u64(self):
        return int.from_bytes(self.take(8), "big")

    def i8(self):
        v = self.u8()
        return v - 256 if v >= 128 else v

    def varint(self):
        v = shift = 0
        for n in range(5):
            byte = self.u8()
            v |= (byte & 0x7f) << shift
            shift += 7
            if not byte & 0x80:
                if n > 0 and byte == 0:
                    raise Broken("varint not in its shortest form")
                if v >= 1 << 32:
                    raise Broken("varint past 32 bits")
                return v
        raise Broken("varint longer than 5 bytes")

    def str8(self):
        return self.take(self.u8()).decode("utf-8")

    def end(self):
        if self.left():
            raise Broken("trailing bytes")


def frames(stream, tables):
    """Split the byte stream into (type, payload) pairs, inflating with one raw deflate stream."""
    r = Reader(stream)
    inflater = zlib.decompressobj(-15)
    joined = False
    while r.left():
        t = r.u8()
        length = r.varint()
        if length > 16383:
            raise Broken("frame longer than 16383 bytes")
        payload = r.take(length)
        code = t & 0x7f
        if code not in tables.types:
            raise Broken("unknown type 0x%02x" % code)
        name, frm, lo, hi = tables.types[code]
        if t & 0x80:
            if not joined:
                raise Broken("deflated frame before the join")
            payload = inflater.decompress(payload + b"\x00\x00\xff\xff", hi + 1)
            if inflater.unconsumed_tail or len(payload) > hi:
                raise Broken("inflates past the type's limit")
        if not lo <= len(payload) <= hi:
            raise Broken("%s payload of %d bytes" % (name, len(payload)))
        if frm == "client":
            raise Broken("%s from a server" % name)
        if name == "WELCOME":
            joined = True
        yield name, payload


# ---- the run-length and location codes ----

def layout_decode(text, n):
    cells = []
    i = 0
    while i < len(text):
        c = text[i]
        if "a" <= c <= "z":
            cells += [1] * (ord(c) - ord("a") + 1)
            i += 1
        elif "A" <= c <= "Z":
            cells += [2] * (ord(c) - ord("A") + 1)
            i += 1
        elif "1" <= c <= "9":
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            cells += [0] * int(text[i:j])
            i = j
        else:
            raise Broken("bad layout code")
        if len(cells) > n:
            raise Broken("layout code gives too many cells")
    if len(cells) != n:
        raise Broken("layout code gives %d cells, not %d" % (len(cells), n))
    return cells


def loc_decode(text):
    out = []
    if not text:
        return out
    for item in text.split(","):
        m = re.fullmatch(r"([a-z]{1,2})(0|[1-9][0-9]*)([a-z])", item)
        if not m:
            raise Broken("bad location code")
        letters = m.group(1)
        x = ord(letters[-1]) - ord("a") if len(letters) == 1 else \
            (ord(letters[0]) - ord("a") + 1) * 26 + ord(letters[1]) - ord("a")
        y = int(m.group(2))
        if x >= 51 or y >= 51:
            raise Broken("location off any level")
        out.append((x, y, ord(m.group(3)) - ord("a")))
    return out


def coded(r):
    return r.take(r.varint()).decode("ascii")


# ---- the field of view (docs/protocol.md, "The field of view") ----

RADIUS = 6


def line_clear(wall, x0, y0, x1, y1):
    dx, sx = abs(x1 - x0), (1 if x0 < x1 else -1)
    dy, sy = -abs(y1 - y0), (1 if y0 < y1 else -1)
    err = dx + dy
    while (x0, y0) != (x1, y1):
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
        if (x0, y0) != (x1, y1) and wall[y0][x0]:
            return False
    return True


def square(size, vx, vy):
    return max(0, vx - RADIUS), max(0, vy - RADIUS), min(size - 1, vx + RADIUS), min(size - 1, vy + RADIUS)


def field_of_view(wall, size, vx, vy):
    x0, y0, x1, y1 = square(size, vx, vy)
    first = set()
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            if line_clear(wall, vx, vy, x, y) or line_clear(wall, x, y, vx, vy):
                first.add((x, y))
    seen = set(first)
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            if not wall[y][x] or (x, y) in first:
                continue
            for ny in range(y - 1, y + 2):
                for nx in range(x - 1, x + 2):
                    if (nx, ny) != (x, y) and x0 <= nx <= x1 and y0 <= ny <= y1 and \
                            not wall[ny][nx] and (nx, ny) in first:
                        seen.add((x, y))
    return seen


# ---- the view ----

UNKNOWN, WALL, FLOOR, VISIBLE = 0, 1, 2, 0x80


class View:
    def __init__(self):
        self.size, self.fov, self.potions, self.me = 0, 0, 0, 0
        self.cell = [[0] * 51 for _ in range(51)]
        self.potion = [[0] * 51 for _ in range(51)]
        self.x = self.y = self.steps = self.hp = self.opp_hp = 0
        self.opp = (0, 0, 0)
        self.turn = self.turn_no = self.result = self.end_reason = 0
        self.offered = [0xff] * 3
        self.ninv, self.inv = 0, [0] * 9
        self.kind_of = [0xff] * 5
        self.intrinsics = 0
        self.turns_left = None

    def known_level(self):
        """What PREDICT and SIGHT compute on: wall where a wall is known, floor elsewhere."""
        return [[(self.cell[y][x] & 0x7f) == WALL for x in range(self.size)] for y in range(self.size)]

    def ring(self):
        s = self.size
        pts = [(x, 0) for x in range(s)] + [(s - 1, y) for y in range(1, s)]
        pts += [(x, s - 1) for x in range(s - 2, -1, -1)] + [(0, y) for y in range(s - 2, 0, -1)]
        return pts

    def dump(self, n, typ, msgs, fx):
        out = ["frame %d %s" % (n, typ),
               "opt %d %d %d me %d" % (self.size, self.fov, self.potions, self.me),
               "pos %d %d steps %d hp %d opp_hp %d" % (self.x, self.y, self.steps, self.hp, self.opp_hp),
               "opp %d %d %d" % self.opp,
               "turn %d %d result %d %d" % (self.turn, self.turn_no, self.result, self.end_reason),
               "offered %d %d %d" % tuple(self.offered),
               "inv %d " % self.ninv + " ".join(map(str, self.inv)),
               "kind " + " ".join(map(str, self.kind_of)),
               "intrinsics %d turns " % self.intrinsics + " ".join(map(str, self.turns_left))]
        for y in range(self.size):
            out.append("".join("uwf"[c & 0x7f].upper() if c & VISIBLE else "uwf"[c & 0x7f]
                               for c in self.cell[y][:self.size]))
        pots = ["%d,%d,%d" % (x, y, self.potion[y][x]) for y in range(self.size) for x in range(self.size)
                if self.potion[y][x]]
        out.append(" ".join(["potions"] + pots))
        out += ["msg " + m for m in msgs]
        out.append(" ".join(["fx"] + ["%d,%d,%d" % f for f in fx]))
        return out


def apply_update(v, payload, tables):
    """Decode an UPDATE's payload and apply it to v in the document's order; return (msgs, fx)."""
    r = Reader(payload)
    has = r.varint()
    if has >> 20:
        raise Broken("unknown field bits")
    f = {}
    if has & 1 << 0:
        f["pos"] = (r.u8(), r.u8())
    if has & 1 << 1:
        f["steps"] = r.u8()
    if has & 1 << 2:
        mode = r.u8()
        vis = {"mode": mode}
        if mode == 0:
            vis["rect"] = (r.u8(), r.u8(), r.u8(), r.u8())
            n = vis["rect"][2] * vis["rect"][3]
            vis["bits"] = r.take((n + 7) // 8)
        elif mode == 1:
            n = r.varint()
            if n > 169:
                raise Broken("square bits")
            vis["n"] = n
            vis["bits"] = r.take((n + 7) // 8)
        elif mode == 4:
            fixes, at = [], 0
            for i in range(r.u8()):
                at += r.varint() + (1 if i else 0)
                fixes.append(at)
            vis["fix"] = fixes
        elif mode not in (2, 3):
            raise Broken("visibility mode")
        f["vis"] = vis
    if has & 1 << 3:
        mode = r.u8()
        if mode not in (0, 1, 2, 3, 7):
            raise Broken("layout mode")
        rect = None if mode & 2 else (r.u8(), r.u8(), r.u8(), r.u8())
        f["layout"] = (mode, rect, coded(r))
    if has & 1 << 4:
        f["opp"] = (r.u8(), r.u8(), r.u8())
    msgs = []
    if has & 1 << 5:
        count = r.u8()
        if not 1 <= count <= 32:
            raise Broken("message count")
        for _ in range(count):
            mid, n = r.varint(), r.u8()
            args = r.take(n)
            if mid not in tables.messages:
                continue  # a later table's id: skipped, as the count allows
            name, a1, a2, want, text = tables.messages[mid]
            if n != want:
                raise Broken("message %s with %d argument bytes" % (name, n))
            args = list(args) + [0, 0]
            for kind, val in ((a1, args[0]), (a2, args[1])):
                if kind and val > tables.arg_range[kind]:
                    raise Broken("argument out of range")
            msgs.append(tables.format(mid, args))
    fx = []
    if has & 1 << 6:
        fx = loc_decode(coded(r))
    if has & 1 << 7:
        b = r.u8()
        if b > 3:
            raise Broken("turn byte")
        f["turn"] = (b & 1, None if b & 2 else r.varint())
    if has & 1 << 8:
        f["offered"] = list(r.take(3))
    if has & 1 << 9:
        f["hp"] = r.i8()
    if has & 1 << 10:
        f["opp_hp"] = r.i8()
    if has & 1 << 11:
        f["potions"] = loc_decode(coded(r))
    if has & 1 << 12:
        f["ring"] = coded(r)
    if has & 1 << 13:
        ninv, n = r.u8(), r.u8()
        if ninv > 9 or n > 9:
            raise Broken("inventory")
        f["inv"] = (ninv, list(r.take(n)) + [0] * (9 - n))
    if has & 1 << 14:
        f["kind"] = list(r.take(5))
    if has & 1 << 15:
        f["intrinsics"] = r.varint()
    if has & 1 << 16:
        mask = r.varint()
        if mask >> tables.handlers:
            raise Broken("turns_left mask")
        f["turns_left"] = [r.u8() if mask & 1 << h else 0 for h in range(tables.handlers)]
    if has & 1 << 17:
        f["result"] = (r.u8(), r.u8())
    if has & 1 << 18:
        size, flags = r.u8(), r.u8()
        if flags > 3 or size % 2 == 0 or not 15 <= size <= 51:
            raise Broken("options")
        f["opt"] = (size, flags & 1, flags >> 1 & 1)
    if has & 1 << 19:
        f["me"] = r.u8()
    r.end()

    # Apply: OPT, ME, POS, STEPS, LAYOUT, RING, VIS, then the rest.
    if "opt" in f:
        v.size, v.fov, v.potions = f["opt"]
    if "me" in f:
        v.me = f["me"]
    if not v.size:
        raise Broken("no level size")
    s = v.size
    if "pos" in f:
        v.x, v.y = f["pos"]
    if "steps" in f:
        v.steps = f["steps"]
    if "layout" in f:
        mode, rect, text = f["layout"]
        rx, ry, rw, rh = (1, 1, s - 2, s - 2) if mode & 2 else rect
        if rx < 1 or ry < 1 or rw < 1 or rh < 1 or rx + rw > s - 1 or ry + rh > s - 1:
            raise Broken("layout rectangle")
        may_see = None
        if mode == 7 and v.fov:
            k = v.known_level()
            fov = field_of_view(k, s, v.x, v.y)
            may_see = set(fov)
            x0, y0, x1, y1 = square(s, v.x, v.y)
            for y in range(y0, y1 + 1):
                for x in range(x0, x1 + 1):
                    if any((nx, ny) in fov and not k[ny][nx] for ny in range(y - 1, y + 2)
                           for nx in range(x - 1, x + 2) if x0 <= nx <= x1 and y0 <= ny <= y1):
                        may_see.add((x, y))
        coded_cells = [(x, y) for y in range(ry, ry + rh) for x in range(rx, rx + rw)
                       if not (mode & 1) or (v.cell[y][x] & 0x7f) == UNKNOWN
                       if mode != 7 or may_see is None or (x, y) in may_see]
        for (x, y), c in zip(coded_cells, layout_decode(text, len(coded_cells))):
            v.cell[y][x] = (v.cell[y][x] & VISIBLE) | c
    if "ring" in f:
        pts = v.ring()
        for (x, y), c in zip(pts, layout_decode(f["ring"], len(pts))):
            if c == FLOOR:
                raise Broken("floor on the ring")
            v.cell[y][x] = (v.cell[y][x] & VISIBLE) | c
    if "vis" in f:
        vis = f["vis"]
        mode = vis["mode"]
        insight = set()
        if mode == 0:
            x0, y0, w, h = vis["rect"]
            if x0 + w > s or y0 + h > s:
                raise Broken("visibility rectangle")
            insight = {(x0 + i % w, y0 + i // w) for i in range(w * h) if vis["bits"][i // 8] >> (i % 8) & 1}
        elif mode == 1:
            x0, y0, x1, y1 = square(s, v.x, v.y)
            known = [(x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1) if v.cell[y][x] & 0x7f]
            if len(known) != vis["n"]:
                raise Broken("square bit count")
            insight = {c for i, c in enumerate(known) if vis["bits"][i // 8] >> (i % 8) & 1}
        elif mode == 2:
            insight = {(x, y) for y in range(s) for x in range(s)}
        elif mode == 4:
            if not v.fov:
                insight = {(x, y) for y in range(s) for x in range(s)}
            else:
                insight = {(x, y) for (x, y) in field_of_view(v.known_level(), s, v.x, v.y)
                           if v.cell[y][x] & 0x7f}
            for i in vis["fix"]:
                if i >= s * s:
                    raise Broken("correction off the level")
                insight ^= {(i % s, i // s)}
        for y in range(s):
            for x in range(s):
                v.cell[y][x] = (v.cell[y][x] & 0x7f) | (VISIBLE if (x, y) in insight else 0)
    if "opp" in f:
        v.opp = f["opp"]
    if "turn" in f:
        v.turn = f["turn"][0]
        v.turn_no = v.turn_no + 1 if f["turn"][1] is None else f["turn"][1]
    if "offered" in f:
        v.offered = f["offered"]
    if "hp" in f:
        v.hp = f["hp"]
    if "opp_hp" in f:
        v.opp_hp = f["opp_hp"]
    for x, y, pid in f.get("potions", []):
        v.potion[y][x] = pid
    if "inv" in f:
        v.ninv, v.inv = f["inv"]
    if "kind" in f:
        v.kind_of = f["kind"]
    if "intrinsics" in f:
        v.intrinsics = f["intrinsics"]
    if "turns_left" in f:
        v.turns_left = f["turns_left"]
    if "result" in f:
        v.result, v.end_reason = f["result"]
    return msgs, fx


def play(stream, tables):
    """Every START and UPDATE's view dump, in order, and what else came."""
    v, lines, n, seen = None, [], 0, []
    for name, payload in frames(stream, tables):
        seen.append(name)
        if name == "START":
            r = Reader(payload)
            flags, first, turn_time = r.u8(), r.u8(), r.u16()
            if flags > 7 or first > 1:
                raise Broken("start")
            r.take(32)
            v = View()
            v.turns_left = [0] * tables.handlers
            msgs, fx = apply_update(v, payload[r.i:], tables)
            lines += v.dump(n, name, msgs, fx)
        elif name == "UPDATE":
            if v is None:
                raise Broken("UPDATE before START")
            msgs, fx = apply_update(v, payload, tables)
            lines += v.dump(n, name, msgs, fx)
        elif name == "CHAT":
            r = Reader(payload)
            frm, text = r.u8(), r.str8()
            r.end()
            if frm > 1 or not text:
                raise Broken("chat")
        elif name == "END":
            r = Reader(payload)
            result, how, seed, server_part, bits = r.u8(), r.u8(), r.u64(), r.take(32), r.u8()
            parts = [r.take(32), r.take(32)]
            h, log_len = r.u64(), r.u32()
            r.end()
            if bits > 3 or any(not bits >> p & 1 and parts[p] != bytes(32) for p in range(2)):
                raise Broken("END: a part whose bit is clear must be zeros")
            if v is None or (result, how) != (v.result, v.end_reason):
                raise Broken("END disagrees with the last view's RESULT")
        elif name == "LOBBY":
            r = Reader(payload)
            size, flags, turn_time, controller, present, ready, bots, rematch, bits = (
                r.u8(), r.u8(), r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8())
            commit = r.take(32)
            if bits > 3:
                raise Broken("LOBBY: parts bits")
            names = [r.str8(), r.str8()]
            r.end()
            for p in range(2):
                if bool(names[p]) != bool(present >> p & 1):
                    raise Broken("a name exactly when connected")
        elif name == "WELCOME":
            r = Reader(payload)
            player, flags, token = r.u8(), r.u8(), r.take(r.u8())
            hold, grace = r.u16(), r.u16()
            r.end()
            if player > 1 or flags > 3 or not 16 <= len(token) <= 32:
                raise Broken("WELCOME: player, flags or token length")
            if not 1 <= grace or hold > grace:
                raise Broken("WELCOME: a grace of 0, or a lobby hold longer than the grace")
        n += 1
    return lines, seen


def compare(stream_path, views_path, tables):
    with open(stream_path, "rb") as fh:
        lines, seen = play(fh.read(), tables)
    with open(views_path) as fh:
        want = fh.read().splitlines()
    for i, (a, b) in enumerate(zip(lines, want)):
        if a != b:
            return "%s line %d: decoded %r, the reference client has %r" % (views_path, i + 1, a, b)
    if len(lines) != len(want):
        return "%s: %d lines decoded, %d expected" % (views_path, len(lines), len(want))
    return None, seen


# ---- the document's own worked examples ----

def seed_commit(server_part):
    """The Seed, step 1: BLAKE2b-256 keyed with "wizwar-seed-commit-4", of the server's part."""
    return hashlib.blake2b(server_part, digest_size=32, key=b"wizwar-seed-commit-4").digest()


def seed_mix(server_part, bits, parts):
    """The seed, step 3: the first 8 bytes, big-endian, of BLAKE2b-256 keyed with "wizwar-seed-4"."""
    data = server_part + b"".join(parts[p] for p in range(2) if bits >> p & 1)
    return int.from_bytes(hashlib.blake2b(data, digest_size=32, key=b"wizwar-seed-4").digest()[:8], "big")


def check_seed(block, items):
    """The seed's worked example, made again from the section "The seed" alone."""
    got = {c: bytes.fromhex(h) for c, n, h in items}

    def one(prefix):
        for c, v in got.items():
            if c.startswith(prefix):
                return v
        raise Broken("no example %r" % prefix)
    srv, commit = one("The server's part of the seed"), one("Its commitment")
    p1, p0 = one("Player 1's part"), one("Player 0's part")
    if seed_commit(srv) != commit:
        raise Broken("the example's commitment is not the commitment of its server part")
    m = re.search(r"player 1's: `([0-9a-f]{16})`.*?player 0's, then player 1's: `([0-9a-f]{16})`", block, re.S)
    if not m or int(m.group(1), 16) != seed_mix(srv, 2, [p0, p1]) or int(m.group(2), 16) != seed_mix(srv, 3, [p0, p1]):
        raise Broken("the example's seeds are not the hash of its parts")
    lobby = one("LOBBY payload")
    if lobby[9] != 2 or lobby[10:42] != commit:
        raise Broken("the LOBBY example does not carry the parts bits and the commitment")
    end = one("END payload")
    r = Reader(end)
    r.u8(), r.u8()
    seed, s, bits, q0, q1 = r.u64(), r.take(32), r.u8(), r.take(32), r.take(32)
    if s != srv or bits != 2 or q0 != bytes(32) or q1 != p1 or seed != seed_mix(s, bits, [q0, q1]):
        raise Broken("the END example does not reveal what made its seed")


def check_examples(doc, tables):
    """Read the worked examples as a stranger would: every caption's claims, from the bytes."""
    block = doc_blocks(doc)["examples"]
    items = re.findall(r"(?:^|\n)([^\n]+) \((\d+) bytes?\):\n\n```\n(.*?)```", block, re.S)
    if len(items) < 20:
        raise Broken("only %d hex examples found" % len(items))
    first_start = None
    for caption, n, hexes in items:
        data = bytes.fromhex(hexes)
        if len(data) != int(n):
            raise Broken("%r: %d bytes, the caption says %s" % (caption, len(data), n))
        m = re.search(r": a (\d+)-byte payload, (sent raw|deflated)$", caption)
        if not m:
            continue  # a payload on its own, read below
        r = Reader(data)
        t, length = r.u8(), r.varint()
        payload = r.take(length)
        r.end()
        deflated = m.group(2) == "deflated"
        if bool(t & 0x80) != deflated:
            raise Broken("%r: the type byte's bit 7 says otherwise" % caption)
        if deflated:
            if "in the stream that carried the first START frame" in caption:
                inflater = first_start
            else:
                inflater = zlib.decompressobj(-15)
            payload = inflater.decompress(payload + b"\x00\x00\xff\xff")
            if (t & 0x7f) == 0x30 and first_start is None:
                first_start = inflater
        if len(payload) != int(m.group(1)):
            raise Broken("%r: a %d-byte payload" % (caption, len(payload)))
        name, frm, lo, hi = tables.types[t & 0x7f]
        if not lo <= len(payload) <= hi or name not in caption:
            raise Broken("%r: a %s frame" % (caption, name))
    check_seed(block, items)
    # The WELCOME example, field by field, against its caption: the index, the token and the two holds.
    w = re.search(r"WELCOME as player (\d), (not )?controller, token ([0-9a-f]{2}) \.\.\. ([0-9a-f]{2}), a lobby seat "
                  r"held (\d+) s and a duel's (\d+) s.*?:\n\n\.\.\. its frame, the record's plaintext before its padding \(\d+ bytes\):"
                  r"\n\n```\n(.*?)```", block, re.S)
    r = Reader(bytes.fromhex(w.group(7)))
    t, length = r.u8(), r.varint()
    r = Reader(r.take(length))
    player, flags, token = r.u8(), r.u8(), r.take(r.u8())
    hold, grace = r.u16(), r.u16()
    r.end()
    name, frm, lo, hi = tables.types[t]
    if name != "WELCOME" or not lo <= length <= hi:
        raise Broken("the WELCOME example is a %s frame of %d bytes" % (name, length))
    if (player, flags, token[0], token[-1], hold, grace) != (
            int(w.group(1)), 0 if w.group(2) else 1, int(w.group(3), 16), int(w.group(4), 16),
            int(w.group(5)), int(w.group(6))):
        raise Broken("the WELCOME example is not what its caption says")
    # The START example, field by field, against its caption and its map.
    start_caption = re.search(r"START for player (\d), who moves first.*?stands at \((\d+),(\d+)\); the update "
                              r"has fields 0x([0-9a-f]+), layout mode (\d+) \((\d+) cells coded\), visibility mode "
                              r"(\d+), (\d+) potions known", block)
    payload = bytes.fromhex([h for c, n, h in items if c == "START payload"][0])
    r = Reader(payload)
    flags, first, turn_time, commit = r.u8(), r.u8(), r.u16(), r.take(32)
    v = View()
    v.turns_left = [0] * tables.handlers
    apply_update(v, payload[r.i:], tables)
    me, x, y = (int(g) for g in start_caption.groups()[:3])
    has, npot = int(start_caption.group(4), 16), int(start_caption.group(8))
    rh = Reader(payload[r.i:])
    if (v.me, first, v.x, v.y, rh.varint()) != (me, me, x, y, has):
        raise Broken("the START example is not what its caption says")
    mp = re.search(r"The level \(`#` wall.*?```\n(.*?)```", block, re.S).group(1).split()
    for yy, row in enumerate(mp):
        for xx, ch in enumerate(row):
            know = v.cell[yy][xx] & 0x7f
            if ch in "#.@" and know != (WALL if ch == "#" else FLOOR):
                raise Broken("the START example's map at (%d,%d): %r, decoded %d" % (xx, yy, ch, know))
            if ch in "X," and know != UNKNOWN:
                raise Broken("the START example's map at (%d,%d): unseen, decoded %d" % (xx, yy, know))
            if ch == "@" and (xx, yy) != (v.x, v.y):
                raise Broken("the START example's map: the player is not at (%d,%d)" % (xx, yy))
    if sum(1 for row in v.potion for p in row if p) != npot:
        raise Broken("the START example's potions")
    # The UPDATE example: one step north, applied to that START.
    step = re.search(r"Player (\d) steps north \(direction 8\): the UPDATE it gets has fields 0x([0-9a-f]+)", block)
    payload = bytes.fromhex([h for c, n, h in items if c == "UPDATE payload"][0])
    if Reader(payload).varint() != int(step.group(2), 16):
        raise Broken("the UPDATE example's fields")
    x0, y0 = v.x, v.y
    apply_update(v, payload, tables)
    if (v.x, v.y) != (x0, y0 - 1):
        raise Broken("the UPDATE example is not a step north")
    return len(items)


DUELS = [  # size, fov, potions, seed, bot level
    (25, 1, 1, 1, 0),
    (15, 0, 1, 2, 0),
    (51, 1, 1, 3, 3),
    (21, 1, 0, 4, 2),
]


def check_deflate_settings(doc):
    """The deflated START example (FoV off, too long to fit a record's padding raw) made
    again, byte for byte, on a fresh stream, with the settings the
    worked examples name (level, raw window bits, memLevel, strategy; one stream, a sync flush
    per frame, its 00 00 ff ff left off)."""
    m = re.search(r"`deflateInit2\(level (\d+), Z_DEFLATED, windowBits (-\d+)`[^`]*`, memLevel (\d+), "
                  r"Z_DEFAULT_STRATEGY\)`", doc)
    level, wbits, memlevel = (int(x) for x in m.groups())

    def block(caption):
        return bytes.fromhex(re.search(re.escape(caption) + r"[^\n]*:\n\n```\n(.*?)```", doc, re.S).group(1))
    z = zlib.compressobj(level, zlib.DEFLATED, wbits, memlevel, zlib.Z_DEFAULT_STRATEGY)
    for payload, framed in (("START payload with FoV off", "That START frame"),):
        out = z.compress(block(payload)) + z.flush(zlib.Z_SYNC_FLUSH)
        f = block(framed)
        if out[-4:] != b"\x00\x00\xff\xff" or out[:-4] != f[2 if f[1] < 0x80 else 3:]:
            raise Broken("%s: zlib with the stated settings makes other bytes" % framed)
    return level, wbits, memlevel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", required=True)
    ap.add_argument("--record", help="the proto_record program: record duels and check every view")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    with open(a.doc, encoding="utf-8") as fh:
        tables = Tables(fh.read())
    pairs = []
    tmp = tempfile.TemporaryDirectory()
    if a.record:
        for i, duel in enumerate(DUELS):
            d = os.path.join(tmp.name, "duel%d" % i)
            os.mkdir(d)
            subprocess.run([a.record, d] + [str(x) for x in duel], check=True)
            pairs += [(os.path.join(d, "p%d.bin" % p), os.path.join(d, "p%d.views" % p)) for p in range(2)]
    else:
        pairs = [tuple(a.files)]
    print("1..%d" % (len(pairs) + 2))
    bad = 0
    try:
        print("ok 1 - the %d worked examples of the document read as their captions say" %
              check_examples(open(a.doc, encoding="utf-8").read(), tables))
    except (Broken, AttributeError, IndexError, ValueError) as e:
        print("not ok 1 - the worked examples: %s" % e)
        bad += 1
    for i, (stream, views) in enumerate(pairs, 2):
        try:
            res = compare(stream, views, tables)
        except Broken as e:
            res = "%s: refused: %s" % (stream, e)
        if isinstance(res, str):
            print("not ok %d - %s" % (i, res))
            bad += 1
        else:
            _, seen = res
            print("ok %d - %s: %d frames (%s) decoded from the document alone, every view as the reference's" %
                  (i, os.path.basename(os.path.dirname(stream)) + "/" + os.path.basename(stream), len(seen),
                   ", ".join(sorted(set(seen)))))
    try:
        print("ok %d - the deflated examples made again with zlib at level %d, windowBits %d, memLevel %d"
              % ((len(pairs) + 2,) + check_deflate_settings(open(a.doc, encoding="utf-8").read())))
    except (Broken, AttributeError, ValueError) as e:
        print("not ok %d - the deflate settings: %s" % (len(pairs) + 2, e))
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
