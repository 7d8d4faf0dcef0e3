#!/usr/bin/env python3
"""The stranger of the tcp attack tests (tests/security/tcp_*.sh), run as an
unprivileged user. It speaks the real wire formats (transport/tcp/tcp.h,
launcher/rtd_wire.h), old and new, and prints one line per connection:
    conn <kind> <local ip>:<local port> <outcome>
outcome "refused" means the listener closed the connection on us, "open"
that it was still open when we gave up, "answered" that it sent us
something we did not expect (a sign it took us for a peer).

  forge HOST PORT NSPACE CLAIM TARGET SIZE    HELLO claiming rank CLAIM to rank
        TARGET of a SIZE-rank job, then an EAGER frame, in both handshake
        versions (v1: job tag only; v2: a PROOF we cannot compute)
  replay HOST PORT STRACE TARGET [patch]      the HELLO (and PROOF) rank 0 sent,
        as strace -xx recorded them, to rank TARGET; patch: with the HELLO's
        peer rank set to TARGET
  garbage HOST PORT KIND                      KIND: random, trunc-hello,
        huge-frame (v2 HELLO, then a 4 GiB frame for PROOF), huge-v1 (v1 HELLO,
        then a 4 GiB frame), tree-huge (daemon-tree header with a 4 GiB
        length), tree-trunc (half a daemon-tree HELLO), tree-badmac (HELLO,
        then a PROOF we cannot compute)
  idle HOST PORT N                            hold N connections that send
        nothing, reopening each the listener closes; "ready" once N are open;
        prints "pid P" first; on SIGUSR1 "idle open=K reopened=R" (K
        connections open now); exits on SIGTERM
"""
import os
import re
import signal
import socket
import struct
import sys
import time

HS_MAGIC = 0x73687472
FRAME_CHECK = 0x5452
AM_EAGER = 1
TREE_HELLO, TREE_CHALLENGE, TREE_PROOF = 1, 15, 16
WAIT = 10.0      # how long we wait for an answer (against a hang only)


def fnv1a(s):
    h = 2166136261
    for c in s.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def hello_v1(rank, size, tag):
    return struct.pack("<IBBHiiII64s", HS_MAGIC, 1, 1, 0, rank, size, tag, 0, b"forger")


def hs_v2(typ, rank, size, peer, nonce=b"\0" * 32, mac=b"\0" * 32):
    return struct.pack("<IBBHiiiI32s32s64s", HS_MAGIC, typ, 2, 0, rank, size, peer, 0,
                       nonce, mac, b"forger")


def eager_frame(src, tag, payload):
    body = struct.pack("<Iiihh", 0, src, tag, 0, 0) + payload   # match header: ctx 0 = world
    pad = (-len(body)) % 8
    return struct.pack("<IBBH", len(body), AM_EAGER, 0, FRAME_CHECK) + body + b"\0" * pad


def connect(host, port):
    s = socket.create_connection((host, port), timeout=WAIT)
    return s


def name(s):
    ip, port = s.getsockname()
    return "%s:%d" % (ip, port)


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        try:
            chunk = s.recv(n - len(data))
        except (socket.timeout, ConnectionResetError):
            return data
        if not chunk:
            return data
        data += chunk
    return data


def outcome(s, expect_eof=True):
    """Wait for the listener to close the connection (bounded)."""
    s.settimeout(WAIT)
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return "refused"
            return "answered"
    except ConnectionResetError:
        return "refused"
    except socket.timeout:
        return "open"


def report(kind, s, result):
    print("conn %s %s %s" % (kind, name(s), result), flush=True)
    s.close()


def forge(host, port, nspace, claim, target, size):
    frame = eager_frame(claim, 99, b"forged message " * 4)
    # v1: what the job tag alone let in
    s = connect(host, port)
    try:
        s.sendall(hello_v1(claim, size, fnv1a(nspace)) + frame)
    except OSError:
        pass
    report("forge-v1", s, outcome(s))
    # v2: HELLO, their CHALLENGE, a PROOF we cannot compute, the frame
    s = connect(host, port)
    try:
        s.sendall(hs_v2(1, claim, size, target, nonce=os.urandom(32)))
        ch = recv_exact(s, 152)
        if len(ch) < 152:
            report("forge-v2", s, "refused")
            return
        s.sendall(hs_v2(3, claim, size, target, mac=os.urandom(32)) + frame)
    except OSError:
        report("forge-v2", s, "refused")
        return
    report("forge-v2", s, outcome(s))


def recorded(path):
    """The handshake messages rank 0 sent, from strace -xx output."""
    msgs = []
    for line in open(path, errors="replace"):
        m = re.search(r'(?:sendto|write|sendmsg)\(\d+, .*?"((?:\\x[0-9a-f]{2})+)"', line)
        if not m:
            continue
        data = bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", m.group(1)))
        if len(data) >= 88 and struct.unpack_from("<I", data)[0] == HS_MAGIC:
            msgs.append(data)
    return msgs


def replay(host, port, path, target, patch):
    msgs = recorded(path)
    hellos = [m for m in msgs if m[4] == 1]
    proofs = [m for m in msgs if m[4] == 3]
    if not hellos:
        print("no recorded HELLO in %s" % path)
        sys.exit(2)
    hello = hellos[0]
    frame = eager_frame(0, 98, b"replayed message " * 4)
    kind = "replay" + ("-patched" if patch else "")
    s = connect(host, port)
    if hello[5] == 1:
        # v1: HELLO then data, no answer awaited (the old protocol)
        try:
            s.sendall(hello + frame)
        except OSError:
            pass
        report(kind + "-v1", s, outcome(s))
        return
    proof = proofs[0] if proofs else b""
    if patch:
        # the fields the MAC would have to cover, rewritten for the new target
        hello = hello[:16] + struct.pack("<i", target) + hello[20:]
        if proof:
            proof = proof[:16] + struct.pack("<i", target) + proof[20:]
    try:
        s.sendall(hello)
        ch = recv_exact(s, 152)
        if len(ch) < 152 or not proofs:
            report(kind, s, "refused" if len(ch) < 152 else "no-proof-recorded")
            return
        s.sendall(proof + frame)
    except OSError:
        report(kind, s, "refused")
        return
    report(kind, s, outcome(s))


def garbage(host, port, kind):
    s = connect(host, port)
    huge = 0xFFFFFFFF
    try:
        if kind == "random":
            s.sendall(os.urandom(300))
        elif kind == "trunc-hello":
            s.sendall(hs_v2(1, 0, 4, 1, nonce=os.urandom(32))[:40])
            s.shutdown(socket.SHUT_WR)
        elif kind == "huge-frame":
            s.sendall(hs_v2(1, 0, 4, 1, nonce=os.urandom(32)))
            recv_exact(s, 152)
            s.sendall(struct.pack("<IBBH", huge, AM_EAGER, 0, FRAME_CHECK) + b"x" * 200)
        elif kind == "huge-v1":
            s.sendall(hello_v1(0, 4, 0) + struct.pack("<IBBH", huge, AM_EAGER, 0, FRAME_CHECK) +
                      b"x" * 200)
        elif kind == "tree-huge":
            s.sendall(struct.pack("!IIiiii", TREE_HELLO, huge, -1, 0, 0, 0) + b"x" * 200)
        elif kind == "tree-trunc":
            s.sendall(struct.pack("!IIiiii", TREE_HELLO, 32, -1, 1, 0, 0) + b"x" * 10)
            s.shutdown(socket.SHUT_WR)
        elif kind == "tree-badmac":
            s.sendall(struct.pack("!IIiiii", TREE_HELLO, 32, -1, 1, 0, 0) + os.urandom(32))
            hdr = recv_exact(s, 24)
            if len(hdr) == 24:
                recv_exact(s, struct.unpack("!IIiiii", hdr)[1] & 0xFFFF)
                s.sendall(struct.pack("!IIiiii", TREE_PROOF, 32, -1, 1, 0, 0) + os.urandom(32))
        else:
            print("unknown kind %s" % kind)
            sys.exit(2)
    except OSError:
        pass
    report(kind, s, outcome(s))


def idle(host, port, n):
    socks = []
    reopened = [0]
    stop = [False]

    snapshot = [False]

    def on_term(signum, frame):
        stop[0] = True

    def on_usr1(signum, frame):
        snapshot[0] = True
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGUSR1, on_usr1)
    print("pid %d" % os.getpid(), flush=True)
    for _ in range(n):
        socks.append(connect(host, port))
    print("ready", flush=True)
    def is_open(s):
        if s is None:
            return False
        s.setblocking(False)
        try:
            return s.recv(4096) != b""
        except BlockingIOError:
            return True
        except OSError:
            return False

    def hold():
        """Reopen what the listener closed; how many are open (or reopened) now."""
        held = 0
        for i, s in enumerate(socks):
            if is_open(s):
                held += 1
                continue
            if s is not None:
                s.close()
            socks[i] = None
            try:
                socks[i] = connect(host, port)
                reopened[0] += 1
                held += 1
            except OSError:
                pass
        return held

    while not stop[0]:
        held = hold()
        if snapshot[0]:
            snapshot[0] = False
            print("idle open=%d reopened=%d" % (held, reopened[0]), flush=True)
        time.sleep(0.05)


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    cmd, host, port = argv[1], argv[2], int(argv[3])
    if cmd == "forge":
        forge(host, port, argv[4], int(argv[5]), int(argv[6]), int(argv[7]))
    elif cmd == "replay":
        replay(host, port, argv[4], int(argv[5]), len(argv) > 6 and argv[6] == "patch")
    elif cmd == "garbage":
        garbage(host, port, argv[4])
    elif cmd == "idle":
        idle(host, port, int(argv[4]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
