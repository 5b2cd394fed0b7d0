#!/usr/bin/env python3
"""The differential runner (issue 22, item 2): seeded random cluster states, each given to the real
volcano-scheduler v1.12.1 in the lab and to mltwin-scheduler, their decisions compared and every
difference classified. Needs a running lab (make lab) and build/apps/mltwin-scheduler.

  tools/lab/conformance.py [--count 500] [--first-seed 1] [--configs default,preempt-reclaim]
                           [--results FILE.jsonl] [--doc docs/conformance.md]

Seed s uses configuration number s mod len(--configs): `default` is the configuration Volcano
v1.12.1's Helm chart installs (installer/helm/chart/volcano/config/volcano-scheduler.conf:
enqueue, allocate, backfill), `preempt-reclaim` the release's volcano-scheduler-ci.conf (adds
reclaim, preempt and the sla plugin). Each comparison is tools/lab/compare_once.py's.

A comparison is classified as
  identical    the same binds (pod -> node), evictions and PodGroup phases;
  equivalent   the same up to interchangeable nodes and pods: every node ends with the same
               pods as its counterpart (same shape, labels but the hostname, taints and pods at the
               start), counting a pod by its PodGroup and requests, and the same phases. Both
               schedulers choose at random among equally scored nodes (Volcano's
               util.SelectBestNodeAndScore, rand.Intn), so two nodes of one shape are a coin flip;
  tie          not equivalent, but mltwin-scheduler with another --tiebreak-seed reaches Volcano's
               outcome (equivalent): the two runs differ only in a choice among equal scores;
  different    none of these: listed with its differences for a person to classify (an mltwin
               bug, upstream nondeterminism, or a feature not modelled; docs/conformance.md).
It takes the lab over: each comparison empties the cluster; at the end the scheduler is left as
`make lab` leaves it (default configuration, 1 s period).

Results go to --results as one JSON line per seed, each comparison's files (the manifest, the
snapshot read back, mltwin's cycles, result.json with both schedulers' decisions, the part of the
real scheduler's log the comparison wrote) to --out/seed-N/.
A run started again with the same file goes on after the seeds it holds, and re-runs the current
mltwin-scheduler on the stored snapshots of those (seconds: Volcano's decisions are stored), so a
fix to mltwin is checked on every snapshot without the lab (--recheck does only that).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_once as lab  # noqa: E402
import snapshots  # noqa: E402

CONF_DIR = os.path.dirname(lab.DEFAULT_CONF)
CONFIGS = {"default": os.path.join(CONF_DIR, "volcano-scheduler.conf"),
           "preempt-reclaim": os.path.join(CONF_DIR, "volcano-scheduler-ci.conf")}
LAB_CACHE = os.path.dirname(lab.LAB_RUN)


def requests_of(p):
    total = collections.Counter()
    for c in p["spec"].get("containers", []):
        for k, v in c.get("resources", {}).get("requests", {}).items():
            total[k] += snapshots.qty(v)
    return tuple(sorted(total.items()))


def pod_sig(p):
    m = p["metadata"]
    return (m.get("namespace", ""), m.get("annotations", {}).get("scheduling.k8s.io/group-name", ""), requests_of(p))


def node_sig(n):
    labels = {k: v for k, v in n["metadata"].get("labels", {}).items() if k != "kubernetes.io/hostname"}
    taints = sorted(json.dumps(t, sort_keys=True) for t in n.get("spec", {}).get("taints", []))
    return (json.dumps(n["status"].get("allocatable", {}), sort_keys=True), json.dumps(labels, sort_keys=True),
            tuple(taints), bool(n.get("spec", {}).get("unschedulable")))


def outcome(snap, binds, evictions, phases):
    """The outcome up to interchangeable nodes and pods: for each node (its shape and its pods at
    the start) the pods it ends with, each pod as (namespace, PodGroup, requests); the evicted pods
    the same way; the PodGroup phases by name."""
    pods = {lab.key(p): p for p in snap["items"] if p["kind"] == "Pod"}
    start, end = collections.defaultdict(list), collections.defaultdict(list)
    for k, p in pods.items():
        n = p["spec"].get("nodeName") or binds.get(k)
        if p["spec"].get("nodeName"):
            start[n].append(pod_sig(p))
        if n and k not in evictions:
            end[n].append(pod_sig(p))
    nodes = sorted((node_sig(n), tuple(sorted(start[n["metadata"]["name"]])), tuple(sorted(end[n["metadata"]["name"]])))
                   for n in snap["items"] if n["kind"] == "Node")
    return json.dumps([nodes, sorted(pod_sig(pods[k]) for k in evictions if k in pods), sorted(phases.items())])


def write_manifest(seed, path):
    objs, size = snapshots.generate(seed)
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, f, indent=1)
    return size


def classify(rec, snap, m, v, config, a, outdir):
    """Sets rec's differences and class from mltwin's outcome m and Volcano's v (each binds,
    evictions, phases) on snapshot snap."""
    rec["differences"] = lab.differences(m, v)
    rec["binds"], rec["evictions"] = len(v[0]), len(v[1])
    before = {lab.key(g): g.get("status", {}).get("phase", "") for g in snap["items"] if g["kind"] == "PodGroup"}
    rec["phase_changes"] = sum(1 for g, ph in v[2].items() if before.get(g, "") != ph)
    rec.pop("tiebreak_seed", None)
    if not rec["differences"]:
        rec["class"] = "identical"
    elif outcome(snap, *m) == outcome(snap, *v):
        rec["class"] = "equivalent"
    else:
        rec["class"] = "different"
        target = outcome(snap, *v)
        for s in range(1, a.tie_seeds + 1):
            tdir = os.path.join(outdir, f"tiebreak-{s}")
            os.makedirs(tdir, exist_ok=True)
            b, e, ph, _ = lab.mltwin_until_quiet(a.mltwin_scheduler, snap, CONFIGS[config], tdir, seed=1000 * s)
            b = {p: n for p, n in b.items() if p not in e}
            if outcome(snap, b, e, ph) == target:
                rec["class"], rec["tiebreak_seed"] = "tie", 1000 * s
                break
    return rec


def run_seed(seed, config, a, outdir):
    os.makedirs(outdir, exist_ok=True)
    manifest = os.path.join(outdir, "manifest.json")
    size = write_manifest(seed, manifest)
    t0 = time.time()
    races = []
    for attempt in range(3):
        result, snap = lab.compare(manifest, CONFIGS[config], outdir, a.settle, a.mltwin_scheduler)
        seen = result.get("first_session_nodes")
        if seen is None or seen >= result["nodes"]:
            break
        # Volcano's start-up race (compare_once.first_session_nodes): its first session saw only
        # some of the nodes. Not what a running scheduler does: the comparison is made again.
        races.append(f"{seen} of {result['nodes']} nodes")
    rec = {"seed": seed, "config": config, "size": size, "mltwin_cycles": result["mltwin_cycles"],
           "seconds": result["seconds"]}
    if races:
        rec["startup_races"] = races
    m = (result["binds"]["mltwin"], set(result["evictions"]["mltwin"]), result["podgroup_phases"]["mltwin"])
    v = (result["binds"]["volcano"], set(result["evictions"]["volcano"]), result["podgroup_phases"]["volcano"])
    classify(rec, snap, m, v, config, a, outdir)
    rec["seconds"]["total"] = round(time.time() - t0, 2)
    return rec


def recheck(rec, a, outdir):
    """mltwin-scheduler (as built now) on a stored snapshot against Volcano's stored outcome: no lab
    needed, so a fix to mltwin is checked on every snapshot in seconds."""
    with open(os.path.join(outdir, "snapshot.json")) as f:
        snap = json.load(f)
    with open(os.path.join(outdir, "result.json")) as f:
        result = json.load(f)
    v = (result["binds"]["volcano"], set(result["evictions"]["volcano"]), result["podgroup_phases"]["volcano"])
    b, e, ph, cycles = lab.mltwin_until_quiet(a.mltwin_scheduler, snap, CONFIGS[rec["config"]], outdir)
    b = {p: n for p, n in b.items() if p not in e}
    rec["mltwin_cycles"] = cycles
    classify(rec, snap, (b, e, ph), v, rec["config"], a, outdir)
    # result.json speaks of the same mltwin as the results file.
    result.update({"binds": {"mltwin": b, "volcano": v[0]}, "evictions": {"mltwin": sorted(e), "volcano": sorted(v[1])},
                   "podgroup_phases": {"mltwin": ph, "volcano": v[2]}, "differences": rec["differences"],
                   "mltwin_cycles": cycles})
    # A result stored before the runner kept its log segment: keep it now, while the lab's log is there.
    result["scheduler_log"] = lab.keep_log_segment(result["scheduler_log"], outdir)
    tmp = os.path.join(outdir, "result.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    os.replace(tmp, os.path.join(outdir, "result.json"))
    return rec


def evidence(rec, a, outdir):
    """Runs the comparison of rec's seed again with the real scheduler logging its node scores
    (-v 5) and records, for each pod the two bind to different nodes, the scores Volcano gave both
    nodes: equal top scores are Volcano's own coin flip (util.SelectBestNodeAndScore). A cluster
    made again has new UIDs and creation times, so the rerun is classed again too."""
    os.makedirs(outdir, exist_ok=True)
    manifest = os.path.join(outdir, "manifest.json")
    write_manifest(rec["seed"], manifest)
    env = os.environ.get("MLTWIN_LAB_SCHEDULER_V")
    os.environ["MLTWIN_LAB_SCHEDULER_V"] = "5"
    try:
        result, snap = lab.compare(manifest, CONFIGS[rec["config"]], outdir, a.settle, a.mltwin_scheduler)
    finally:
        if env is None:
            os.environ.pop("MLTWIN_LAB_SCHEDULER_V")
        else:
            os.environ["MLTWIN_LAB_SCHEDULER_V"] = env
    m = (result["binds"]["mltwin"], set(result["evictions"]["mltwin"]), result["podgroup_phases"]["mltwin"])
    v = (result["binds"]["volcano"], set(result["evictions"]["volcano"]), result["podgroup_phases"]["volcano"])
    again = classify({}, snap, m, v, rec["config"], a, outdir)
    scores = lab.node_scores(result["scheduler_log"])
    lines = []
    for pod in sorted(set(m[0]) | set(v[0])):
        mn, vn = m[0].get(pod), v[0].get(pod)
        if mn != vn and mn and vn:
            sc = scores.get(pod, {})
            top = max(sc.values()) if sc else None
            lines.append(f"{pod}: Volcano scored {vn} {sc.get(vn, '?')}, {mn} {sc.get(mn, '?')} (top {top})")
    rec["evidence"] = {"rerun_class": again["class"], "rerun_differences": again["differences"], "scores": lines}
    return rec


def load(path):
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    rec = json.loads(line)
                    done[rec["seed"]] = rec
                    rec["config"], rec["class"]
                except (json.JSONDecodeError, KeyError, TypeError) as e:
                    sys.exit(f"{path}:{n}: not a result line ({e}); move the file away to start afresh")
    return done


def summary(recs):
    """The agreement table (markdown) and the list of what is not identical."""
    by = collections.defaultdict(collections.Counter)
    for r in recs:
        by[r["config"]][r["class"]] += 1
        by["all"][r["class"]] += 1
    classes = ["identical", "equivalent", "tie", "different", "could not run"]
    lines = ["| configuration | snapshots | " + " | ".join(classes) + " |",
             "|---|---:|" + "---:|" * len(classes)]
    for cfg in [c for c in CONFIGS if c in by] + ["all"]:
        c = by[cfg]
        lines.append(f"| {cfg} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in classes) + " |")
    return "\n".join(lines)


LAB_BEGIN, LAB_END = "<!-- lab:begin (tools/lab/conformance.py; make conformance) -->", "<!-- lab:end -->"
RESULTS_BEGIN, RESULTS_END = "<!-- lab-results:begin (written from the results file) -->", "<!-- lab-results:end -->"


def write_doc(doc, recs, header):
    """Writes the agreement and every comparison that is not identical or equivalent between the
    results markers of the page's lab section (tests/conformance keeps that section when it
    rewrites the rest of the page); the text around the markers is the people's."""
    text = open(doc).read()
    if LAB_BEGIN not in text or LAB_END not in text:
        sys.exit(f"{doc}: no lab section ('{LAB_BEGIN}' ... '{LAB_END}'); `make docs` writes one")
    if RESULTS_BEGIN not in text:
        b, e = text.index(LAB_BEGIN) + len(LAB_BEGIN), text.index(LAB_END)
        text = text[:b] + "\n## Against the real volcano-scheduler\n\n" + RESULTS_BEGIN + "\n" + RESULTS_END + "\n" + text[e:]
    recs = sorted(recs, key=lambda r: r["seed"])
    body = [header, "", summary(recs), ""]
    seconds = sorted(r["seconds"]["total"] for r in recs if "total" in r.get("seconds", {}))
    if seconds:
        body.append(f"One comparison took {seconds[len(seconds) // 2]:.1f} s (median; {seconds[0]:.1f} to "
                    f"{seconds[-1]:.1f} s). The snapshots held {sum(r['size']['pods'] for r in recs if 'size' in r)} pods "
                    f"on {sum(r['size']['nodes'] for r in recs if 'size' in r)} nodes; Volcano bound "
                    f"{sum(r.get('binds', 0) for r in recs)} pods, evicted {sum(r.get('evictions', 0) for r in recs)} and changed "
                    f"{sum(r.get('phase_changes', 0) for r in recs)} PodGroup phases; "
                    f"{sum(1 for r in recs if r.get('binds') or r.get('evictions'))} of the {len(recs)} snapshots saw a "
                    f"bind or an eviction, {sum(1 for r in recs if r.get('evictions'))} an eviction.")
        raced = [r for r in recs if r.get("startup_races")]
        if raced:
            body.append(f"{len(raced)} comparisons were made again because Volcano's first session after its start saw "
                        f"only some of the nodes (its start-up race: seeds "
                        f"{', '.join(str(r['seed']) + ' (' + '; '.join(r['startup_races']) + ')' for r in raced)}).")
        body.append("")
    rest = [r for r in recs if r["class"] not in ("identical", "equivalent")]
    if rest:
        body += ["| seed | configuration | class | differences | evidence (a second run, the real scheduler at -v 5) |",
                 "|---:|---|---|---|---|"]
        for r in rest:
            d = "; ".join(r.get("differences", [])) or r.get("error", "")
            ev = r.get("evidence", {})
            e = (f"second run: {ev['rerun_class']}" + ("; " + "; ".join(ev["scores"]) if ev.get("scores") else "")
                 if "rerun_class" in ev else ev.get("error", ""))
            if r["class"] == "tie":
                d += f" (mltwin with --tiebreak-seed {r.get('tiebreak_seed')}: Volcano's outcome)"
            body.append(f"| {r['seed']} | {r['config']} | {r['class']} | {d.replace('|', '/')} | {e.replace('|', '/')} |")
    b, e = text.index(RESULTS_BEGIN) + len(RESULTS_BEGIN), text.index(RESULTS_END)
    new = text[:b] + "\n" + "\n".join(body) + "\n" + text[e:]
    tmp = doc + ".tmp"
    with open(tmp, "w") as f:
        f.write(new)
    os.replace(tmp, doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--count", type=int, default=500, help="how many seeds (default 500)")
    ap.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    ap.add_argument("--configs", default="default,preempt-reclaim",
                    help="comma-separated, used in turn by seed: " + ", ".join(CONFIGS))
    ap.add_argument("--results", default=os.path.join(LAB_CACHE, "conformance", "results.jsonl"),
                    help="the results file, one JSON line per seed (default: %(default)s)")
    ap.add_argument("--out", default=os.path.join(LAB_CACHE, "conformance"),
                    help="each comparison's files go to OUT/seed-N/ (default: %(default)s)")
    ap.add_argument("--doc", help="write the agreement into this markdown file, between its conformance markers")
    ap.add_argument("--mltwin-scheduler", default=os.path.join(lab.REPO, "build/apps/mltwin-scheduler"),
                    help="the mltwin-scheduler to compare (default: %(default)s; make scheduler builds it)")
    ap.add_argument("--settle", type=float, default=2.0,
                    help="seconds (and at least 3 sessions) without change that end the real scheduler's run")
    ap.add_argument("--tie-seeds", type=int, default=8, help="other --tiebreak-seed values to try on a difference")
    ap.add_argument("--recheck", action="store_true",
                    help="no lab, no new seeds: run mltwin-scheduler again on the stored snapshots of --results and "
                    "classify against Volcano's stored decisions (a run does this for its earlier seeds anyway)")
    ap.add_argument("--evidence", action="store_true",
                    help="run the seeds of --results classed tie or different again with the real scheduler "
                    "logging its node scores (-v 5) and record the scores of the nodes the two chose")
    ap.add_argument("--retry-different", type=int, default=0,
                    help="make a comparison classed different again up to N times (the sample: 2)")
    ap.add_argument("--fail-on-different", action="store_true", help="exit 1 when a comparison is classed different")
    a = ap.parse_args()
    if a.count < 1:
        sys.exit(f"--count: {a.count}: give 1 or more seeds")
    if a.recheck and not os.path.isfile(a.results):
        sys.exit(f"--recheck: no results file at {a.results}")
    configs = a.configs.split(",")
    for c in configs:
        if c not in CONFIGS:
            sys.exit(f"--configs: unknown configuration {c!r} (known: {', '.join(CONFIGS)})")
        if not os.path.exists(CONFIGS[c]):
            sys.exit(f"no {CONFIGS[c]}: the Volcano release's source is extracted by make lab-build")
    if not os.path.exists(a.mltwin_scheduler):
        sys.exit(f"no {a.mltwin_scheduler}: build it first (make scheduler)")
    # A shorter schedule period than the lab's 1 s: quiet is reached in fewer seconds.
    os.environ.setdefault("MLTWIN_LAB_SCHEDULE_PERIOD", "0.5s")
    os.makedirs(os.path.dirname(os.path.abspath(a.results)), exist_ok=True)
    done = load(a.results)
    seeds = range(a.first_seed, a.first_seed + a.count)
    start = time.time()
    earlier = sorted(s for s in done if s in seeds and done[s]["class"] != "could not run")
    ran_lab = a.evidence
    if not a.recheck:
        with open(a.results, "a") as res:
            for i, seed in enumerate(seeds):
                config = configs[seed % len(configs)]
                if seed in done and done[seed]["config"] == config:
                    continue
                ran_lab = True
                try:
                    rec = run_seed(seed, config, a, os.path.join(a.out, f"seed-{seed}"))
                    # --retry-different: Volcano's own coin flips (equal scores, Go map order) can
                    # make one run differ; a comparison made again that agrees says so.
                    for retry in range(a.retry_different):
                        if rec["class"] != "different":
                            break
                        again = run_seed(seed, config, a, os.path.join(a.out, f"seed-{seed}-retry{retry + 1}"))
                        rec.setdefault("retries", []).append(again["class"])
                        if again["class"] != "different":
                            rec["class"] = again["class"]
                            rec["note"] = f"different in the first run, {again['class']} when made again"
                except (RuntimeError, subprocess.CalledProcessError, KeyError) as e:
                    rec = {"seed": seed, "config": config, "class": "could not run", "error": str(e)[:500]}
                done[seed] = rec
                res.write(json.dumps(rec, sort_keys=True) + "\n")
                res.flush()
                counts = collections.Counter(done[s]["class"] for s in seeds if s in done)
                print(f"[{i + 1}/{len(seeds)}] seed {seed} {config}: {rec['class']}"
                      + (f" ({len(rec.get('differences', []))} differences)" if rec["class"] == "different" else "")
                      + f"  | {dict(counts)} | {time.time() - start:.0f} s", flush=True)
    if a.evidence:
        for seed in sorted(done):
            if seed in seeds and done[seed]["class"] in ("tie", "different"):
                try:
                    evidence(done[seed], a, os.path.join(a.out, f"seed-{seed}", "evidence"))
                except (RuntimeError, subprocess.CalledProcessError, KeyError) as e:
                    done[seed]["evidence"] = {"error": str(e)[:300]}
                print(f"evidence seed {seed}: {done[seed]['evidence']}", flush=True)
    if ran_lab:
        try:
            lab.restore_scheduler()  # as make lab leaves it: default configuration, 1 s period
        except subprocess.CalledProcessError:
            print("the lab's scheduler could not be started again: make lab", file=sys.stderr)
    # The comparisons of earlier runs (all of them with --recheck): mltwin-scheduler as built now
    # against Volcano's stored decisions, so the page always speaks of the current mltwin.
    if earlier:
        t0 = time.time()
        for seed in earlier:
            old = done[seed]["class"]
            recheck(done[seed], a, os.path.join(a.out, f"seed-{seed}"))
            if done[seed]["class"] != old:
                print(f"seed {seed} {done[seed]['config']}: {old} -> {done[seed]['class']} (mltwin-scheduler as built now)")
        tmp = a.results + ".tmp"
        with open(tmp, "w") as f:
            for seed in sorted(done):
                f.write(json.dumps(done[seed], sort_keys=True) + "\n")
        os.replace(tmp, a.results)
        print(f"rechecked {len(earlier)} earlier comparisons against the stored Volcano decisions in {time.time() - t0:.1f} s")
    recs = [done[s] for s in seeds if s in done]
    print(summary(recs))
    if a.doc:
        write_doc(a.doc, recs, f"Seeds {seeds[0]} to {seeds[-1]}, configurations {', '.join(configs)} in turn; "
                  f"mltwin-scheduler of commit {git_head()}.")
    bad = [r for r in recs if r["class"] in ("different", "could not run")]
    return 1 if a.fail_on_different and bad else 0


def git_head():
    r = subprocess.run(["git", "-C", lab.REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
