#!/bin/sh
# t6007: short runs of imc-train's fuzz harnesses (built with
# --enable-fuzzing): the wire protocol decoders (fuzz-wire) and the cluster
# and model spec readers (fuzz-trainer-config), each from a seed corpus of
# valid messages and files. Longer runs:
#   tests/fuzz/fuzz-wire -max_total_time=60 DIR
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_require fuzz-wire fuzz-trainer-config
command -v "${PYTHON3:-python3}" >/dev/null 2>&1 || skip_all "python3 is needed to write the seeds"

# seeds: the selector byte, then a valid message or file
mkdir -p "$TMPD/wire" "$TMPD/config"
"${PYTHON3:-python3}" - "$TMPD/wire" <<'PY'
import struct, sys, os
d = sys.argv[1]
def seed(name, sel, payload):
    open(os.path.join(d, name), "wb").write(bytes([sel]) + payload)
tensors = [("fc1.weight", [256, 784]), ("fc1.bias", [256]), ("fc2.weight", [10, 256]), ("fc2.bias", [10])]
body = b"".join(struct.pack("<HBB", len(n), len(s), 0) + n.encode() + b"".join(struct.pack("<I", x) for x in s)
                for n, s in tensors)
seed("hello", 1, struct.pack("<HHIIIIIQQI", 2, 1, 0, 1, 0, 1, 2, 0, 203530, len(tensors)) + body)
seed("hdr", 0, struct.pack("<IHHI", 0x54434d49, 1, 5, 24 + 4 * 10) + bytes(4) + struct.pack("<Q", 10))
seed("welcome", 2, struct.pack("<QIIQQ", 7, 1, 2, 0, 203530))
seed("push", 3, struct.pack("<QIIfI", 7, 2, 64, 2.3, 0) + struct.pack("<ff", 0.5, -1))
seed("params", 4, struct.pack("<QIIII", 8, 2, 1, 2, 0) + struct.pack("<ff", 0.5, -1))
seed("init", 5, struct.pack("<QIIff", 0, 2, 1, 0.02, 0.9) + struct.pack("<ffff", 1, 2, 0, 0))
seed("stats", 6, struct.pack("<QQQQQQIIQd", 9, 9, 576, 100, 100, 3, 1, 0, 0, 1.5))
seed("error", 7, struct.pack("<II", 3, 5) + b"model")
PY
printf '\000{"cluster": {"ps": ["ps-0:2222", "[::1]:2223"], "chief": ["worker-0:2222"], "worker": ["worker-1:2222"]}, "task": {"type": "worker", "index": 0}}' >"$TMPD/config/tf"
printf '\000{"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]}' >"$TMPD/config/bare"
printf '\001input 1 28 28\nconv 32 3 pad 1\nrelu\nmaxpool 2\nflatten\ndense 128 # hidden\nrelu\ndense 10\n' >"$TMPD/config/cnn"
printf '\001input 3 32 32\nconv 16 5 stride 2 pad 2\nmaxpool 2 stride 2\nflatten\ndense 10\n' >"$TMPD/config/cifar"

fuzz_run fuzz-wire "$TMPD/wire" 4096
fuzz_run fuzz-trainer-config "$TMPD/config" 4096
done_testing
