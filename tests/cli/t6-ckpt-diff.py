#!/usr/bin/env python3
# tests/cli/t6-ckpt-diff.py A B [TOL]: compares two imc-train checkpoints
# (checkpoint.h's format): same header, tensors and step; parameters and
# velocity equal within TOL relative to the largest magnitude (default
# 1e-4). Prints the largest difference; exits 0 when within, 1 when not.
import struct, sys

def load(path):
    b = open(path, "rb").read()
    if b[:8] != b"IMCCKPT\0":
        sys.exit("%s: not a checkpoint" % path)
    step, = struct.unpack_from("<Q", b, 80)
    ntens, flags = struct.unpack_from("<II", b, 112)
    off, count = 120, 0
    for _ in range(ntens):
        l, = struct.unpack_from("<I", b, off); off += 4 + l
        nd, = struct.unpack_from("<I", b, off); off += 4
        dims = struct.unpack_from("<%dI" % nd, b, off); off += 4 * nd
        n = 1
        for x in dims: n *= x
        count += n
    nf = count * (2 if flags & 1 else 1)
    vals = struct.unpack_from("<%df" % nf, b, off)
    return b[:off], step, vals

ha, sa, va = load(sys.argv[1])
hb, sb, vb = load(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
if ha != hb or len(va) != len(vb):
    print("headers differ (step %d vs %d)" % (sa, sb)); sys.exit(1)
scale = max(max(abs(x) for x in va), 1e-30)
diff = max(abs(x - y) for x, y in zip(va, vb))
print("step %d, %d floats, max abs diff %.3g, relative %.3g" % (sa, len(va), diff, diff / scale))
sys.exit(0 if diff / scale <= tol and diff == diff else 1)
