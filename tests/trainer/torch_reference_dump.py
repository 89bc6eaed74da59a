#!/usr/bin/python3
# torch_reference_dump.py: a copy of the PyTorch reference trainer imc-train
# is measured against, extended with --dump-first-step DIR, for imc-train's PyTorch
# cross-check (tests/cli/t5003-trainer-torch.sh): it writes the initial
# parameters (float32 LE, torch's parameter order), one batch (x float32,
# y uint8) and the first step's loss, per-tensor gradient norms and
# post-update parameter norms, then exits. Everything below the docstring is
# the reference unchanged except for dump_first_step() and its option.
"""PyTorch CPU reference trainer for Fashion-MNIST (the peer `imc`'s C trainer is compared against).

Reads the IDX files shipped by Debian's `dataset-fashion-mnist` package directly
(own IDX reader, no torchvision) and trains one of two fixed models with plain
single-process SGD.  Everything a C re-implementation has to match is fixed
here and listed below; nothing is tuned implicitly.

Data
    /usr/share/datasets/fashion-mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
    60000 train / 10000 test, 28x28 uint8, 10 classes.  Pixels are scaled to
    [0, 1] (x / 255.0) and NOT mean/std normalised.  No augmentation.  The test
    set is never used for training or tuning.

Models (NCHW layout; flatten is channel-major: index = c*H*W + h*W + w)
    mlp : 784 -> 256 ReLU -> 10                                  203,530 params
    cnn : conv 5x5, 1->32, stride 1, pad 2, ReLU, maxpool 2x2/2  (28x28 -> 14x14)
          conv 5x5, 32->64, stride 1, pad 2, ReLU, maxpool 2x2/2 (14x14 -> 7x7)
          fc 3136 -> 256 ReLU -> fc 256 -> 10                    857,738 params
    Every conv/fc has a bias.  Init: weights AND biases ~ U(-b, b) with
    b = 1/sqrt(fan_in), fan_in = in_channels*k*k (conv) or in_features (fc).
    (This is numerically what PyTorch's default init gives; done explicitly so
    it does not depend on the torch version.)

Training
    loss      : softmax cross-entropy, mean over the batch
    optimizer : SGD, lr 0.02 (constant), momentum 0.9, no dampening, no
                Nesterov, no weight decay.  PyTorch's update form:
                    v <- mu*v + g ;  w <- w - lr*v        (v starts at 0)
                lr was picked on a train[:50000]/train[50000:] split at batch 64
                (validation accuracy, seed 1):
                    cnn after 2 epochs: lr 0.01 .874, 0.02 .893, 0.05 .893, 0.1 .882
                    mlp after 3 epochs: lr 0.01 .860, 0.02 .866, 0.05 .858, 0.1 .837
                0.02 and 0.05 tie for the cnn; 0.02 is kept for both models
                because it is the best mlp setting and leaves more margin for
                stale gradients in asynchronous parameter-server training.
    batches   : each epoch a fresh random permutation of the 60000 examples,
                cut into floor(60000/batch) full batches; the remainder is
                dropped (batch 64: 937 steps/epoch, 32 examples unused).
    seed      : one torch.Generator seeded with --seed drives init and shuffling.
    A C implementation cannot reproduce torch's RNG stream, so runs are
    comparable statistically (accuracy within run-to-run noise), not bitwise.

Measurements (one JSON line on stdout with --json; progress goes to stderr)
    train_examples_per_sec : examples / time spent in forward+backward+update,
        summed over all steps except the first --warmup-steps.  Excludes data
        loading, batch assembly (gathering the shuffled batch from memory),
        and evaluation.
    train_examples_per_sec_median_step : batch / median step time over the
        same steps; robust to other processes stealing the CPU now and then
        (on a shared host compare this one, and report both).
    train_examples_per_cpu_sec : all training examples / process CPU seconds
        in the training loop (all steps, incl. batch gathering).  With
        --threads 1 this approximates the uncontended single-core throughput
        even on a busy host; with more threads OpenMP spin-waiting inflates
        the CPU time, so it is only a lower bound on per-core speed.
    infer_examples_per_sec : forward-only throughput over the 10000 test
        images at --eval-batch (default 64), no autograd (measured on the final
        evaluation); infer_examples_per_cpu_sec is the same per process
        CPU-second.  (Large eval batches are slower per example here: at 1000
        the cnn's conv1 output alone is 100 MB.)
    test_accuracy          : on the 10000 test images after the last step;
        epoch_test_accuracy lists it after every completed epoch.
    wall_seconds           : from start of main() (after `import torch`) to the
        end, including data loading and evaluation.
    peak_rss_mib           : getrusage ru_maxrss (includes ~210 MiB of float32
        dataset held in memory plus the torch runtime).

Threads
    --threads sets torch.set_num_threads() (Debian's torch 1.13 defaulted to 1
    on the 2-vCPU dev VM).  BLAS threads are separate: set OPENBLAS_NUM_THREADS
    too.  On a host shared with other busy processes, multi-threaded runs
    degrade far more than single-threaded ones; OMP_WAIT_POLICY=PASSIVE and
    OPENBLAS_NUM_THREADS=1 soften that.  The JSON `libs` field shows which
    BLAS/oneDNN libraries were actually loaded.

Example
    /usr/bin/python3 torch_reference.py --model cnn --epochs 1 --threads 2 --json
"""
import argparse
import gzip
import json
import math
import os
import resource
import statistics
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULT_DATA_DIR = "/usr/share/datasets/fashion-mnist"
IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


# --------------------------------------------------------------------------- data

def read_idx(path):
    """Read an IDX file (optionally gzip-compressed) into a numpy array.

    Format: 2 zero bytes, 1 byte type code (0x08 = uint8), 1 byte rank, then
    `rank` big-endian uint32 dimensions, then the data in C order.
    """
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    zero, type_code, rank = struct.unpack(">HBB", raw[:4])
    if zero != 0 or type_code not in IDX_DTYPES:
        raise ValueError(f"{path}: not an IDX file (header {raw[:4].hex()})")
    dims = struct.unpack(f">{rank}I", raw[4:4 + 4 * rank])
    dtype = np.dtype(IDX_DTYPES[type_code])
    count = math.prod(dims)
    offset = 4 + 4 * rank
    if len(raw) != offset + count * dtype.itemsize:
        raise ValueError(f"{path}: size mismatch for dims {dims}")
    return np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(dims)


def find_idx(data_dir, stem):
    for name in (stem, stem + ".gz"):
        path = os.path.join(data_dir, name)
        if os.path.exists(path):
            return path
    sys.exit(f"error: {stem}[.gz] not found in {data_dir} "
             "(apt-get install dataset-fashion-mnist, or pass --data-dir)")


def load_split(data_dir, prefix):
    """Return (images float32 [N,1,28,28] in [0,1], labels int64 [N])."""
    images = read_idx(find_idx(data_dir, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(find_idx(data_dir, f"{prefix}-labels-idx1-ubyte"))
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{prefix}: {images.shape[0]} images vs {labels.shape[0]} labels")
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)
    y = torch.from_numpy(labels.astype(np.int64))
    return x.contiguous(), y


# -------------------------------------------------------------------------- models

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, kernel_size=5, padding=2)
        self.fc1 = nn.Linear(64 * 7 * 7, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


MODELS = {"mlp": MLP, "cnn": CNN}


def init_params(model, gen):
    """Weights and biases ~ U(-1/sqrt(fan_in), +1/sqrt(fan_in))."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                fan_in = m.weight[0].numel()
                bound = 1.0 / math.sqrt(fan_in)
                m.weight.uniform_(-bound, bound, generator=gen)
                m.bias.uniform_(-bound, bound, generator=gen)


# ---------------------------------------------------------------------- utilities

def loaded_blas_libs():
    """BLAS/LAPACK libraries actually mapped (torch's Linear layers use them)."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "blas" in path or "lapack" in path or "dnnl" in path:
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    return sorted(libs)


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


@torch.no_grad()
def evaluate(model, x, y, batch):
    """Return (accuracy, mean loss, forward-only seconds, forward-only CPU seconds)."""
    model.eval()
    correct, loss_sum, seconds, cpu_seconds = 0, 0.0, 0.0, 0.0
    for i in range(0, x.shape[0], batch):
        xb, yb = x[i:i + batch], y[i:i + batch]
        c0, t0 = time.process_time(), time.perf_counter()
        logits = model(xb)
        seconds += time.perf_counter() - t0
        cpu_seconds += time.process_time() - c0
        loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(1) == yb).sum().item()
    model.train()
    return correct / x.shape[0], loss_sum / x.shape[0], seconds, cpu_seconds


# ------------------------------------------------------------------ first-step dump

def dump_first_step(args, model, gen):
    """Write params, one batch and the first SGD step's figures to args.dump_first_step."""
    os.makedirs(args.dump_first_step, exist_ok=True)
    out = args.dump_first_step
    if os.path.isdir(args.data_dir) and not args.synthetic:
        x_train, y_train = load_split(args.data_dir, "train")
        perm = torch.randperm(x_train.shape[0], generator=gen)
        idx = perm[:args.batch]
        xb, yb = x_train.index_select(0, idx), y_train.index_select(0, idx)
    else:
        xb = torch.rand(args.batch, 1, 28, 28, generator=gen)
        yb = torch.randint(0, 10, (args.batch,), generator=gen)
    names = [n for n, _ in model.named_parameters()]
    with open(os.path.join(out, "params.bin"), "wb") as f:
        for p in model.parameters():
            f.write(p.detach().contiguous().numpy().astype("<f4").tobytes())
    with open(os.path.join(out, "x.bin"), "wb") as f:
        f.write(xb.contiguous().numpy().astype("<f4").tobytes())
    with open(os.path.join(out, "y.bin"), "wb") as f:
        f.write(yb.numpy().astype(np.uint8).tobytes())
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    lines = [f"loss {loss.item():.9g}"]
    for n, p in zip(names, model.parameters()):
        lines.append(f"grad {n} {p.grad.double().norm().item():.9g}")
    opt.step()
    for n, p in zip(names, model.parameters()):
        lines.append(f"param {n} {p.detach().double().norm().item():.9g}")
    with open(os.path.join(out, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    log(f"dumped first step of {args.model} (batch {args.batch}) to {out}: loss {loss.item():.6f}")
    return 0


# --------------------------------------------------------------------------- main

def main():
    t_main = time.perf_counter()
    ap = argparse.ArgumentParser(
        description="PyTorch CPU reference trainer for Fashion-MNIST (see module docstring).")
    ap.add_argument("--model", choices=sorted(MODELS), default="cnn")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    ap.add_argument("--max-steps", type=int, default=0,
                    help="stop after this many optimizer steps in total (0 = no limit)")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warmup-steps", type=int, default=10,
                    help="initial steps excluded from train_examples_per_sec")
    ap.add_argument("--eval-batch", type=int, default=64)
    ap.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    ap.add_argument("--json", action="store_true", help="print a JSON summary line on stdout")
    ap.add_argument("--dump-first-step", metavar="DIR",
                    help="write initial params, one batch and the first step's figures, then exit")
    ap.add_argument("--synthetic", action="store_true",
                    help="with --dump-first-step: a random batch instead of the dataset's first")
    args = ap.parse_args()
    if args.epochs < 1 or args.batch < 1 or args.threads < 1:
        ap.error("--epochs, --batch and --threads must be >= 1")

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    gen = torch.Generator().manual_seed(args.seed)

    if args.dump_first_step:
        model = MODELS[args.model]()
        init_params(model, gen)
        return dump_first_step(args, model, gen)

    t0 = time.perf_counter()
    x_train, y_train = load_split(args.data_dir, "train")
    x_test, y_test = load_split(args.data_dir, "t10k")
    data_load_seconds = time.perf_counter() - t0

    model = MODELS[args.model]()
    init_params(model, gen)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    n_train = x_train.shape[0]
    steps_per_epoch = n_train // args.batch
    log(f"{args.model}: {n_params} params, {n_train} train / {x_test.shape[0]} test, "
        f"batch {args.batch}, {steps_per_epoch} steps/epoch, lr {args.lr}, "
        f"momentum {args.momentum}, threads {torch.get_num_threads()}, "
        f"data load {data_load_seconds:.2f}s")

    step = 0
    timed_seconds, timed_examples = 0.0, 0
    step_times = []
    train_cpu, train_wall = 0.0, 0.0
    epoch_acc = []
    last_loss = float("nan")
    diverged = False
    done = False
    for epoch in range(1, args.epochs + 1):
        perm = torch.randperm(n_train, generator=gen)
        loss_sum, loss_n = 0.0, 0
        e_cpu, e_wall = time.process_time(), time.perf_counter()
        for b in range(steps_per_epoch):
            idx = perm[b * args.batch:(b + 1) * args.batch]
            xb = x_train.index_select(0, idx)
            yb = y_train.index_select(0, idx)

            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            dt = time.perf_counter() - t0

            step += 1
            if step > args.warmup_steps:
                timed_seconds += dt
                timed_examples += args.batch
                step_times.append(dt)
            loss_sum += loss.item()
            loss_n += 1
            if not math.isfinite(loss_sum):
                diverged = True
            if diverged or (args.max_steps and step >= args.max_steps):
                done = True
                break
        train_cpu += time.process_time() - e_cpu
        train_wall += time.perf_counter() - e_wall
        last_loss = loss_sum / max(loss_n, 1)
        if b + 1 == steps_per_epoch:  # completed epoch
            acc = evaluate(model, x_test, y_test, args.eval_batch)[0]
            epoch_acc.append(round(acc, 4))
            eps = timed_examples / timed_seconds if timed_seconds else float("nan")
            log(f"epoch {epoch}: train loss {last_loss:.4f}, test acc {acc:.4f}, "
                f"{eps:.0f} train ex/s so far, {time.perf_counter() - t_main:.1f}s")
        if done:
            break

    acc, test_loss, fwd_seconds, fwd_cpu_seconds = evaluate(model, x_test, y_test, args.eval_batch)
    summary = {
        "model": args.model,
        "params": n_params,
        "batch": args.batch,
        "threads": torch.get_num_threads(),
        "lr": args.lr,
        "momentum": args.momentum,
        "seed": args.seed,
        "steps": step,
        "epochs": round(step / steps_per_epoch, 3),
        "train_examples_per_sec": round(timed_examples / timed_seconds, 1) if timed_seconds else None,
        "train_examples_per_sec_median_step":
            round(args.batch / statistics.median(step_times), 1) if step_times else None,
        "infer_examples_per_sec": round(x_test.shape[0] / fwd_seconds, 1),
        "infer_examples_per_cpu_sec": round(x_test.shape[0] / fwd_cpu_seconds, 1),
        "eval_batch": args.eval_batch,
        "test_accuracy": round(acc, 4),
        "test_loss": round(test_loss, 4),
        "epoch_test_accuracy": epoch_acc,
        "train_loss_last_epoch": round(last_loss, 4),
        "diverged": diverged,
        "wall_seconds": round(time.perf_counter() - t_main, 2),
        "data_load_seconds": round(data_load_seconds, 2),
        "train_cpu_util": round(train_cpu / train_wall, 2) if train_wall else None,
        "train_examples_per_cpu_sec": round(step * args.batch / train_cpu, 1) if train_cpu else None,
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "torch": torch.__version__,
        "libs": loaded_blas_libs(),
    }
    log(f"final: test acc {acc:.4f}, {summary['train_examples_per_sec']} train ex/s, "
        f"{summary['infer_examples_per_sec']} infer ex/s, peak RSS {summary['peak_rss_mib']} MiB")
    if args.json:
        print(json.dumps(summary), flush=True)
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main())
