#!/usr/bin/python3
"""t6-attack.py: a hostile client of imc-train's parameter server, for
t6003. Usage: t6-attack.py HOST:PORT STOPFILE PROGRESSFILE [SECRETFILE]

With SECRETFILE the PS runs authenticated (imc-train --secret): the attacks
still go without the secret (the PS must refuse them all), and only the
probe that checks the PS still serves authenticates, with Python's own
hmac/hashlib (wire-auth.h's handshake) and python3-cryptography's AES-GCM
(its frame tags: GMAC, the frame as additional data).

Each attack opens its own connection, misbehaves, and checks that the PS
closes that connection (after an ERROR frame or not) within 10 s. Rounds of
every attack repeat until STOPFILE exists; after each full round a line
"round N" is appended to PROGRESSFILE. Exits 1 at the first attack the PS
did not answer by closing the connection, when the PS refused a valid
probe (i.e. it stopped serving), or when no attack ran after the first
round (the test starts the job after the first round: some must hit the PS
while it trains).
"""
import hashlib, hmac, os, random, socket, struct, sys, time

SECRET = None  # the key bytes, in SECRETFILE mode

MAGIC, VERSION = 0x54434D49, 1
HELLO, WELCOME, INIT, PULL, PUSH, ERROR = 1, 2, 3, 4, 5, 15
MLP = [("fc1.weight", [256, 784]), ("fc1.bias", [256]),
       ("fc2.weight", [10, 256]), ("fc2.bias", [10])]
TOTAL = 256 * 784 + 256 + 10 * 256 + 10


def hdr(typ, length, version=VERSION, magic=MAGIC, reserved=0):
    return struct.pack("<IHHII", magic, version, typ, length, reserved)


def hello(layout=MLP, role=3, mode=1, n_workers=2, shard=TOTAL, ps_index=0):
    body = struct.pack("<HHIIIIIQQ", role, mode, 0, 0, ps_index, 1, n_workers, 0, shard)
    body += struct.pack("<I", len(layout))
    for name, dims in layout:
        body += struct.pack("<HBB", len(name), len(dims), 0) + name.encode()
        body += b"".join(struct.pack("<I", d) for d in dims)
    return hdr(HELLO, len(body)) + body


def closed_by_ps(s, timeout=10.0):
    """True when the PS closes s (reading and discarding what it sends)."""
    s.settimeout(timeout)
    end = time.time() + timeout
    try:
        while time.time() < end:
            b = s.recv(65536)
            if not b:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def connect(addr):
    s = socket.create_connection(addr, timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def send(s, data):
    try:
        s.sendall(data)
    except (ConnectionResetError, BrokenPipeError):
        pass


def mac(key, seq, *parts):
    return hmac.new(key, struct.pack("<Q", seq) + b"".join(parts), hashlib.sha256).digest()


def frame_tag(key, seq, *parts):
    """GMAC: AES-256-GCM of no plaintext, IV = u64le(seq) | 4 zero bytes."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    return AESGCM(key).encrypt(struct.pack("<Q", seq) + bytes(4), b"", b"".join(parts))


def proof(label, a, b):
    return mac(hmac.new(SECRET, label.encode(), hashlib.sha256).digest(), 0, a, b)


def recv_n(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b


def probe(addr):
    """A valid probe HELLO must be welcomed: the PS is still serving."""
    s = connect(addr)
    k_out = k_in = None
    if SECRET:
        nc = os.urandom(32)
        s.sendall(nc)
        r = recv_n(s, 64)
        if r is None or not hmac.compare_digest(r[32:], proof("imc-train server", nc, r[:32])):
            return None, s
        s.sendall(proof("imc-train client", r[:32], nc))
        k_out = proof("imc-train c2s", nc, r[:32])
        k_in = proof("imc-train s2c", nc, r[:32])
    frame = hello()
    s.sendall(frame + (frame_tag(k_out, 0, frame) if k_out else b""))
    h = recv_n(s, 16)
    if h is None:
        return None, s
    magic, ver, typ, length, _ = struct.unpack("<IHHII", h)
    body = recv_n(s, length)
    if k_in:
        tag = recv_n(s, 16)
        if body is None or tag is None or not hmac.compare_digest(tag, frame_tag(k_in, 0, h, body)):
            return None, s
    return typ, s


def dropped_as_slow(s):
    """Whether the PS closed this connection because the client was slower
    than --io-timeout (the test sets 1 s, for the stalled-header attack):
    on a loaded machine the probe itself can be that slow. That is the PS
    doing what it should; the log line says so (T6_PS_LOG names the PS's
    log, written before the connection closes)."""
    log = os.environ.get("T6_PS_LOG")
    try:
        port = s.getsockname()[1]
        text = open(log, errors="replace").read() if log else ""
    except OSError:
        return False
    return any(f"from 127.0.0.1:{port} " in line and "--io-timeout" in line
               for line in text.splitlines())


def welcomed_probe(addr):
    """probe(), again when the PS dropped it only for being slow (at most
    5 times): any other refusal is the answer."""
    for _ in range(5):
        typ, s = probe(addr)
        if typ == WELCOME or not dropped_as_slow(s):
            break
        s.close()
    return typ, s


def attacks(addr):
    rnd = random.Random(42)
    yield "garbage bytes", [bytes(rnd.getrandbits(8) for _ in range(64))]
    yield "an HTTP request", [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]
    yield "a wrong version", [hdr(HELLO, 48, version=9) + b"\0" * 48]
    yield "an unknown type", [hdr(99, 0)]
    yield "reserved bits", [hdr(HELLO, 48, reserved=7)]
    yield "a 100 MB HELLO", [hdr(HELLO, 100 << 20)]
    yield "a truncated frame", [hello()[:40]]
    yield "wrong shapes", [hello(layout=[("fc1.weight", [256, 783])] + MLP[1:])]
    yield "a wrong tensor count", [hello(layout=MLP[:3])]
    yield "a wrong name", [hello(layout=[("fc9.weight", [256, 784])] + MLP[1:])]
    yield "rank 0 in HELLO", [hello()[:16 + 44] + b"\x0a\x00\x00\x00fc1.weight"]
    yield "PUSH before HELLO", [hdr(PUSH, 24 + 4 * TOTAL)]
    yield "a wrong shard", [hello(shard=TOTAL - 1)]
    yield "a wrong worker count", [hello(n_workers=7)]
    yield "a wrong mode", [hello(mode=2)]
    # after a valid probe HELLO:
    yield "PUSH with a wrong length", ["probe", hdr(PUSH, 24 + 4 * (TOTAL - 1))]
    yield "PUSH from a probe", ["probe", hdr(PUSH, 24 + 4 * TOTAL) +
                                struct.pack("<QIIfI", 0, TOTAL, 64, 1.0, 0) + b"\0" * (4 * TOTAL)]
    yield "INIT from a probe", ["probe", hdr(INIT, 24 + 4 * TOTAL) +
                                struct.pack("<QIIff", 0, TOTAL, 0, 0.1, 0.9) + b"\0" * (4 * TOTAL)]
    yield "a second HELLO", ["probe", hello()]
    # 128 PULLs at once, nothing read: their replies (800 KB each once the
    # PS is initialised) overflow any loopback socket buffers, so the PS
    # meets a request while a reply is still pending. With a handful, the
    # kernel could take each reply whole before the PS looked at the next
    # request: served in order, never closed, and this attack failed now
    # and then.
    yield "pipelined requests", ["probe", hdr(PULL, 0) * 128]
    yield "a stalled half header", [hdr(HELLO, 100)[:7]]


class JobEnded(Exception):
    """The PS closed a valid probe because the job ended: the chief and
    worker are done and the PS is exiting, while the test has not yet
    created STOPFILE (it does once it has reaped them)."""


def job_ending(stop):
    """Whether STOPFILE appears within 10 s of a refused probe."""
    for _ in range(200):
        if os.path.exists(stop):
            return True
        time.sleep(0.05)
    return False


def refused(s, what, stop):
    """A valid probe got no WELCOME: the end of the job, or a failure
    (printed with the PS's log lines about that connection)."""
    if job_ending(stop):
        raise JobEnded()
    print(f"FAIL: {what}")
    try:
        port = s.getsockname()[1]
        text = open(os.environ.get("T6_PS_LOG", ""), errors="replace").read()
        for line in text.splitlines():
            if f"127.0.0.1:{port}" in line:
                print(f"  PS log: {line}")
    except OSError:
        pass
    return False


def run_attack(addr, name, parts, stop):
    if parts[0] == "probe":
        typ, s = welcomed_probe(addr)
        if typ != WELCOME:
            return refused(s, f"a valid probe was refused (got type {typ}) before '{name}'", stop)
        parts = parts[1:]
    else:
        s = connect(addr)
    for p in parts:
        send(s, p)
    if name == "a truncated frame":
        s.shutdown(socket.SHUT_WR)
    if not closed_by_ps(s):
        print(f"FAIL: the PS did not close the connection after {name}")
        return False
    s.close()
    return True


def main():
    global SECRET
    if len(sys.argv) > 4:
        SECRET = open(sys.argv[4], "rb").read().rstrip(b"\r\n")
    host, port = sys.argv[1].rsplit(":", 1)
    addr = (host, int(port))
    stop, progress = sys.argv[2], sys.argv[3]
    n = 0
    done = 0  # attacks the PS answered correctly
    per_round = len(list(attacks(addr)))
    while not os.path.exists(stop) or n == 0:
        try:
            for name, parts in attacks(addr):
                if not run_attack(addr, name, parts, stop):
                    return 1
                done += 1
            typ, s = welcomed_probe(addr)
            if typ != WELCOME and not refused(s, "the PS no longer welcomes a valid probe", stop):
                return 1
            s.close()
        except (ConnectionRefusedError, ConnectionResetError, JobEnded):
            # the PS is gone: fine only when the job ended (the test then
            # creates STOPFILE and checks the PS's exit status itself)
            if job_ending(stop):
                print(f"{done} attacks in {n} full rounds; the PS exited at the end of the job")
                return 0 if done > per_round else 1
            print("FAIL: the PS stopped accepting connections during the job")
            return 1
        n += 1
        with open(progress, "a") as f:
            f.write(f"round {n}\n")
        time.sleep(0.05)  # pacing only: leave CPU to the training job
    print(f"{done} attacks in {n} rounds, the PS closed every hostile connection")
    return 0 if done > per_round else 1


if __name__ == "__main__":
    sys.exit(main())
