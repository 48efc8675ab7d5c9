#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check proto/noise.c against python3-dissononce, an independent Noise implementation.

Usage: noise_interop.py NOISE_VECTOR_EXE [WIZWAR_EXE]
For random keys, prologues and payloads, dissononce plays both roles of
Noise_NX_25519_ChaChaPoly_BLAKE2b and every byte (both messages, the payload, the
handshake hash, one transport message each way) must equal what noise_vector prints.
With WIZWAR_EXE, a dissononce client also joins a real `wizwar server` over loopback:
HELLO, CHALLENGE (its static key checked against the printed fingerprint), IDENT and AUTH in a
record, WELCOME and LOBBY back. Exit 77 (skipped) when dissononce is not installed.
"""
import base64, hashlib, os, socket, subprocess, sys, tempfile, time

try:
    from dissononce.processing.impl.handshakestate import HandshakeState
    from dissononce.processing.impl.symmetricstate import SymmetricState
    from dissononce.processing.impl.cipherstate import CipherState
    from dissononce.processing.handshakepatterns.interactive.NX import NXHandshakePattern
    from dissononce.cipher.chachapoly import ChaChaPolyCipher
    from dissononce.dh.x25519.x25519 import X25519DH
    from dissononce.dh.x25519.private import PrivateKey
    from dissononce.hash.blake2b import Blake2bHash
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("1..0 # SKIP python3-dissononce is not installed")
    sys.exit(77)


class FixedDH(X25519DH):
    """X25519 whose "fresh" ephemeral key is a given one: dissononce makes e itself."""
    def __init__(self, e=None):
        super().__init__()
        self.fixed = e

    def generate_keypair(self, privatekey=None):
        if privatekey is None and self.fixed is not None:
            privatekey = PrivateKey(self.fixed)
        return super().generate_keypair(privatekey)


def hs(e=None):
    return HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), Blake2bHash()), FixedDH(e))


def keypair(sk):
    return X25519DH().generate_keypair(PrivateKey(sk))


def vectors(exe, rounds):
    fails = 0
    for r in range(rounds):
        ssk, e1, e2 = os.urandom(32), os.urandom(32), os.urandom(32)
        pro = os.urandom(r % 9)
        pay = os.urandom(r % 40)
        ping, pong = os.urandom(1 + r % 50), os.urandom(1 + (r * 7) % 50)
        out = subprocess.run([exe] + [x.hex() for x in (ssk, e1, e2, pro, pay, ping, pong)],
                             capture_output=True, text=True, check=True).stdout
        c = dict(line.split(" ") if " " in line else (line, "") for line in out.split("\n") if line)
        ini, resp = hs(e1), hs(e2)
        ini.initialize(NXHandshakePattern(), True, pro)
        resp.initialize(NXHandshakePattern(), False, pro, s=keypair(ssk))
        m1 = bytearray()
        ini.write_message(b"", m1)
        resp.read_message(bytes(m1), bytearray())
        m2 = bytearray()
        rcs = resp.write_message(pay, m2)
        got = bytearray()
        ics = ini.read_message(bytes(m2), got)
        h = ini.symmetricstate.get_handshake_hash()
        c1 = ics[0].encrypt_with_ad(b"", ping)
        c2 = rcs[1].encrypt_with_ad(b"", pong)
        want = {"msg1": bytes(m1).hex(), "msg2": bytes(m2).hex(), "payload": bytes(got).hex(), "h": bytes(h).hex(),
                "ping": bytes(c1).hex(), "pong": bytes(c2).hex()}
        for k, v in want.items():
            ok = c.get(k, None) == v
            fails += not ok
            print("%s - round %d: %s" % ("ok" if ok else "not ok", r, k))
    return fails


B32 = "abcdefghijklmnopqrstuvwxyz234567"


def fingerprint(pk):
    h = hashlib.blake2b(pk, digest_size=32, key=b"wizwar-fingerprint-1").digest()[:16]
    bits = "".join("{:08b}".format(b) for b in h)
    bits += "0" * (-len(bits) % 5)
    return "".join(B32[int(bits[i:i + 5], 2)] for i in range(0, len(bits), 5))


def frame(t, payload):
    n = len(payload)
    return bytes([t]) + (bytes([n]) if n < 0x80 else bytes([0x80 | (n & 0x7f), n >> 7])) + payload


def ident_payload(h, key=None):
    """IDENT's payload (docs/protocol.md, "Identity"): an Ed25519 public key, then its signature of
    b"wizwar-ident-1" || h. Made with python3-cryptography, not libsodium: a second implementation."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    key = key or Ed25519PrivateKey.generate()
    pk = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return pk + key.sign(b"wizwar-ident-1" + h)


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        x = s.recv(n - len(b))
        if not x:
            raise EOFError("the server closed the connection")
        b += x
    return b


def live(wizwar):
    """A dissononce client joins a real wizwar server."""
    state = tempfile.mkdtemp(prefix="wizwar-noise-")
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    srv = subprocess.Popen([wizwar, "server", "--bind", "127.0.0.1", "--port", str(port), "--log-dir", state],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        line = srv.stdout.readline()  # "wizwar join ADDR:PORT#FP --new-room"
        fp = line.split("#")[1].split()[0]
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        # The prologue is HELLO's first 8 bytes: magic and this build's versions.
        proto, rules = map(int, subprocess.run([sys.argv[1], "--versions"], capture_output=True, text=True,
                                               check=True).stdout.split())
        prefix = b"WZWR" + proto.to_bytes(2, "big") + rules.to_bytes(2, "big")
        ini = hs()
        ini.initialize(NXHandshakePattern(), True, prefix)
        m1 = bytearray()
        ini.write_message(b"", m1)
        s.sendall(frame(0x10, prefix + bytes(m1)))
        t, = recv_exact(s, 1)
        n, = recv_exact(s, 1)
        body = recv_exact(s, n)
        assert t == 0x11, "CHALLENGE expected, got 0x%02x: %r" % (t, body)
        assert body[:8] == prefix
        secret = bytearray()
        cs = ini.read_message(bytes(body[8:]), secret)
        pk = bytes(ini.rs.data)
        ok_fp = fingerprint(pk) == fp
        print("%s - the server's static key has the fingerprint it printed" % ("ok" if ok_fp else "not ok"))
        h = bytes(ini.symmetricstate.get_handshake_hash())
        name, room = b"Dissononce", b"interop"
        # role 0x80: a player asking for the room to be made; no password: a zero proof
        auth = bytes([0x80, len(name)]) + name + bytes([len(room)]) + room + bytes(32)
        # docs/protocol.md, "Padding": a record's plaintext is its frames, then zeros to 240 bytes
        # (the first size; 1008, 4080 and 16386 hold more), and a 00 where a type would be starts them.
        # IDENT (0x14) first, then AUTH, both in this one record.
        pt = frame(0x14, ident_payload(h)) + frame(0x12, auth)
        ct = cs[0].encrypt_with_ad(b"", pt + bytes(240 - len(pt)))
        s.sendall(len(ct).to_bytes(2, "big") + ct)
        got = []
        while len(got) < 2:
            ln = int.from_bytes(recv_exact(s, 2), "big")
            pt = cs[1].decrypt_with_ad(b"", recv_exact(s, ln))
            i = 0
            while i < len(pt) and pt[i] != 0:
                t = pt[i] & 0x7f
                n = pt[i + 1]
                hl = 2
                if n & 0x80:
                    n = (n & 0x7f) | (pt[i + 2] << 7)
                    hl = 3
                got.append(t)
                i += hl + n
        ok_join = got[:2] == [0x13, 0x20]
        print("%s - WELCOME and LOBBY arrive in records (%s)" % ("ok" if ok_join else "not ok",
                                                                    " ".join("%02x" % g for g in got)))
        s.close()
        return (not ok_fp) + (not ok_join)
    finally:
        srv.terminate()
        srv.wait(10)


def main():
    fails = vectors(sys.argv[1], 24)
    if len(sys.argv) > 2:
        fails += live(sys.argv[2])
    print("1..%d" % (24 * 6 + (2 if len(sys.argv) > 2 else 0)))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":  # docplayer.py imports its Noise and framing from here
    main()
