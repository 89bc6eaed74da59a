#!/usr/bin/python3
"""bench/trainer.py: imc-train against torch_reference.py, same machine, same run.

Runs the PyTorch reference (tests/trainer/torch_reference_dump.py, the
reference trainer unchanged but for a dump option it does not use here) and imc-train
--local with the same model, batch, lr, momentum and seed, alternating the two
programs so that both see the same host load, at each thread count, and prints
training throughput (mean over timed steps, batch/median step, examples per
CPU-second), inference throughput, peak RSS and the imc/torch ratios. With
--winograd imc-train also runs with IMC_TRAIN_WINOGRAD=1 (row 'imc-w', its
own ratios), in the same alternation. With --epochs E it then trains both
(all three) for E full epochs and prints the test accuracy after every epoch.

Not a test: it never fails on speed. On a shared host, compare the
median-step and per-CPU-second figures and look at the load average printed
with every row.

    bench/trainer.py [--imc-train PATH] [--steps 300] [--threads 2,1] [--repeat 1]
                  [--epochs 0] [--model cnn] [--openblas-env asis|unset] [--winograd]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def default_imc_train():
    for p in (os.environ.get("IMC_TRAIN"), os.path.join(os.getcwd(), "imc-train"),
              os.path.join(SRC, "imc-train"), os.path.join(SRC, "build", "imc-train")):
        if p and os.access(p, os.X_OK):
            return p
    return "imc-train"


def loadavg():
    try:
        return float(open("/proc/loadavg").read().split()[0])
    except OSError:
        return float("nan")


def run(cmd, env):
    t0 = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"bench/trainer.py: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}\n")
        return None
    line = [l for l in p.stdout.splitlines() if l.startswith("{")][-1]
    d = json.loads(line)
    d["_wall"] = time.time() - t0
    return d


def med(rows, key):
    vals = [r[key] for r in rows if r and r.get(key) is not None]
    return statistics.median(vals) if vals else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--imc-train", default=default_imc_train())
    ap.add_argument("--torch-ref", default=os.path.join(SRC, "tests", "trainer",
                                                        "torch_reference_dump.py"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--model", default="cnn")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=300,
                    help="steps per speed run (a fraction of an epoch; 937 = 1 epoch)")
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--repeat", type=int, default=1, help="runs per program and thread count")
    ap.add_argument("--epochs", type=int, default=0, help="accuracy runs of E epochs (0 = skip)")
    ap.add_argument("--acc-threads", type=int, default=2)
    ap.add_argument("--openblas-env", choices=["asis", "unset"], default="asis",
                    help="keep OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as the environment has "
                         "them, or unset them (for both programs)")
    ap.add_argument("--torch-passive", action="store_true",
                    help="run torch with OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=1 "
                         "(kinder to a shared host)")
    ap.add_argument("--winograd", action="store_true",
                    help="also run imc-train with IMC_TRAIN_WINOGRAD=1 (row imc-w)")
    a = ap.parse_args()
    if not os.path.exists(a.torch_ref):
        sys.exit(f"bench/trainer.py: {a.torch_ref} not found (pass --torch-ref)")

    env = dict(os.environ)
    if a.openblas_env == "unset":
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    env.pop("IMC_TRAIN_WINOGRAD", None)
    wenv = dict(env, IMC_TRAIN_WINOGRAD="1")
    progs = ("torch", "imc", "imc-w") if a.winograd else ("torch", "imc")
    tenv = dict(env)
    if a.torch_passive:
        tenv.update(OMP_WAIT_POLICY="PASSIVE", OPENBLAS_NUM_THREADS="1")
    common = ["--model", a.model, "--batch", str(a.batch), "--seed", "1", "--json"]
    print(f"# bench/trainer.py: {a.model}, batch {a.batch}, {a.steps} steps per speed run, "
          f"repeat {a.repeat}, OpenBLAS env {a.openblas_env} "
          f"(OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '-')}), "
          f"torch env {'passive' if a.torch_passive else 'as-is'}, nproc {os.cpu_count()}")
    print(f"# imc-train: {a.imc_train}\n# torch:     {a.torch_ref}")

    hdr = (f"{'threads':>7} {'prog':>6} {'ex/s':>8} {'med-step':>9} {'ex/cpu-s':>9} "
           f"{'infer/s':>8} {'rssMiB':>7} {'load':>5}")
    print(hdr)
    summary = []
    for t in [int(x) for x in a.threads.split(",")]:
        rows = {p: [] for p in progs}
        for _ in range(a.repeat):
            for prog in progs:
                l0 = loadavg()
                if prog == "torch":
                    r = run([a.python, a.torch_ref, "--max-steps", str(a.steps),
                             "--threads", str(t)] + common, tenv)
                else:
                    r = run([a.imc_train, "--local", "--steps", str(a.steps), "--epochs", "1",
                             "--threads", str(t), "-q"] + common,
                            wenv if prog == "imc-w" else env)
                if r:
                    r["_load"] = (l0 + loadavg()) / 2
                    rows[prog].append(r)
                    print(f"{t:>7} {prog:>6} {r['train_examples_per_sec']:>8.1f} "
                          f"{r['train_examples_per_sec_median_step']:>9.1f} "
                          f"{r['train_examples_per_cpu_sec']:>9.1f} "
                          f"{r['infer_examples_per_sec']:>8.1f} {r['peak_rss_mib']:>7.1f} "
                          f"{r['_load']:>5.1f}", flush=True)
        m = {p: {k: med(rows[p], k) for k in
                 ("train_examples_per_sec", "train_examples_per_sec_median_step",
                  "train_examples_per_cpu_sec", "infer_examples_per_sec", "peak_rss_mib")}
             for p in rows}
        summary.append((t, m))
    print("\n# medians and ratios imc-train / torch")
    for t, m in summary:
        for prog in progs[1:]:
            def ratio(k):
                return m[prog][k] / m["torch"][k] if m["torch"][k] else float("nan")
            print(f"threads {t}: train ex/s {prog} {m[prog]['train_examples_per_sec']:.0f} vs torch "
                  f"{m['torch']['train_examples_per_sec']:.0f} = "
                  f"{ratio('train_examples_per_sec'):.2f}x; "
                  f"median-step {ratio('train_examples_per_sec_median_step'):.2f}x; "
                  f"per CPU-s {ratio('train_examples_per_cpu_sec'):.2f}x; "
                  f"infer {ratio('infer_examples_per_sec'):.2f}x; "
                  f"peak RSS {prog} {m[prog]['peak_rss_mib']:.0f} MiB vs torch "
                  f"{m['torch']['peak_rss_mib']:.0f} MiB")

    if a.epochs > 0:
        print(f"\n# accuracy after {a.epochs} epochs ({a.acc_threads} threads, seed 1)")
        for prog in progs:
            if prog == "torch":
                r = run([a.python, a.torch_ref, "--epochs", str(a.epochs),
                         "--threads", str(a.acc_threads)] + common, tenv)
            else:
                r = run([a.imc_train, "--local", "--epochs", str(a.epochs),
                         "--threads", str(a.acc_threads), "-q"] + common,
                        wenv if prog == "imc-w" else env)
            if r:
                print(f"{prog:>6}: epoch_test_accuracy {r['epoch_test_accuracy']}, final "
                      f"{r['test_accuracy']}, train ex/s {r['train_examples_per_sec']}, "
                      f"wall {r['wall_seconds']} s, peak RSS {r['peak_rss_mib']} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
