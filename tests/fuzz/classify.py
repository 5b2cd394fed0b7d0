#!/usr/bin/env python3
"""Runs the mltwin CLI on bad inputs and counts how it answers: the issue-14 yardstick.

    tests/fuzz/classify.py build/apps/mltwin [--verbose]

Inputs: every scenario of tests/fuzz/corpus/fuzz_scenario (each a deliberately bad scenario;
files named ok-* are valid seeds and skipped),
`validate` and then `run --until 2m`; every Philly CSV of corpus/fuzz_philly behind the main
scenario (a data folder of its own); and the command-line cases below. Each answer is one of
  clear    exit 2 (bad input) with one 'error:' line naming the file, or the flag, at fault
  unclear  refused (exit 1 or 2) without naming where
  crash    killed by a signal, a sanitizer report, or an exit status mltwin does not document
  hang     no answer in 20 s
  silent   exit 0: the bad input was accepted
Prints one line per input with --verbose, then the counts.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_S = 20

# Command-line cases: (arguments after the program, what a clear answer names).
# --out is tried on a fifo and a folder of the work area, never on a real device: a mltwin that
# replaces what --out names would destroy it.
def cli_cases(scenario, fifo, folder):
    return [
        (["run", scenario, "--seed", "-1"], "--seed"),
        (["run", scenario, "--seed", "18446744073709551616"], "--seed"),
        (["run", scenario, "--replications", "-1"], "--replications"),
        (["run", scenario, "--replications", "0"], "--replications"),
        (["run", scenario, "--max-jobs", "-1"], "--max-jobs"),
        (["run", scenario, "--until", "-5m"], "--until"),
        (["run", scenario, "--until", "9223372037s"], "--until"),
        (["run", scenario, "--until", "1e400s"], "--until"),
        (["run", scenario, "--until", "soon"], "--until"),
        (["run", scenario, "--out", fifo, "--until", "1m"], os.path.basename(fifo)),
        (["run", scenario, "--out", folder, "--until", "1m"], os.path.basename(folder)),
        (["run", scenario, "--out", scenario, "--until", "1m"], os.path.basename(scenario)),
        (["run", "/dev/urandom"], "/dev/urandom"),
        (["validate", "/dev/urandom"], "/dev/urandom"),
    ]


def classify(cmd, names, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "hang", ""
    err = p.stderr.strip()
    if p.returncode < 0 or p.returncode not in (0, 1, 2) or "Sanitizer" in err:
        return "crash", f"exit {p.returncode}: {err[-300:]}"
    if p.returncode == 0:
        return "silent", ""
    last = [l for l in err.splitlines() if l.startswith("error:")]
    if p.returncode == 2 and last and any(n in last[-1] for n in names):
        return "clear", last[-1]
    return "unclear", f"exit {p.returncode}: {err[-300:]}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = os.path.abspath(sys.argv[1])
    verbose = "--verbose" in sys.argv
    counts = {k: 0 for k in ["clear", "unclear", "crash", "hang", "silent"]}
    work = tempfile.mkdtemp(prefix="mltwin-classify-")

    def note(label, verdict, detail):
        counts[verdict] += 1
        if verbose or verdict not in ("clear",):
            print(f"{verdict:8} {label}: {detail}")

    try:
        corpus = os.path.join(HERE, "corpus", "fuzz_scenario")
        for f in sorted(os.listdir(corpus)):
            if f.startswith("ok-"):  # a valid scenario at a documented limit, kept as a seed
                continue
            path = os.path.join(corpus, f)
            out = os.path.join(work, "out.sqlite")
            v, d = classify([cli, "validate", path], [f], work)
            if v == "silent":  # validate accepted it: does the run refuse it, or run it?
                v, d = classify([cli, "run", path, "--until", "2m", "--no-progress", "--out", out], [f], work)
            note(f"scenario {f}", v, d)
        main_scenario = os.path.join(ROOT, "scenarios", "eks-trn1-philly.json")
        for f in sorted(os.listdir(os.path.join(HERE, "corpus", "fuzz_philly"))):
            data = os.path.join(work, "data-" + f)
            os.makedirs(os.path.join(data, "training", "philly"))
            # The committed corpus names the header line by a token (run-fuzzer.sh writes it out too).
            with open(os.path.join(HERE, "corpus", "fuzz_philly", f), "rb") as src:
                text = src.read().replace(b"@PHILLY_HEADER@", ",".join(["timestamp", "duration", "num_gpus", "gpu_time", "cluster"]).encode())
            with open(os.path.join(data, "training", "philly", "philly.csv"), "wb") as dst:
                dst.write(text)
            v, d = classify([cli, "validate", main_scenario, "--data", data], ["philly.csv"], work)
            if f.startswith("ok-"):  # a valid trace, kept as a seed: not a bad input
                continue
            note(f"philly {f}", v, d)
        scen = os.path.join(work, "tiny.json")
        shutil.copy(os.path.join(ROOT, "tests", "scenarios", "tiny-gang.json"), scen)
        fifo, folder = os.path.join(work, "a-fifo"), os.path.join(work, "a-folder")
        os.mkfifo(fifo)
        os.mkdir(folder)
        for args, name in cli_cases(scen, fifo, folder):
            v, d = classify([cli] + args, [name], work)
            note("cli " + " ".join(a.replace(work + "/", "") for a in args), v, d)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(counts.values())
    print(f"{total} bad inputs: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
