#!/usr/bin/env python3
"""One differential comparison (issue 22): the real volcano-scheduler against mltwin-scheduler on
the same cluster state. The nucleus of the differential runner; needs a running lab (make lab).

  tools/lab/compare_once.py MANIFEST.yaml [--conf volcano-scheduler.conf]
                            [--mltwin-scheduler build/apps/mltwin-scheduler] [--out DIR]

1. stops the lab's scheduler and empties the cluster (pods, PodGroups, nodes, queues other than
   `default` and `root`, PriorityClasses other than the system ones);
2. applies MANIFEST (nodes annotated kwok.x-k8s.io/node=fake; queues, PodGroups and pods, pods with
   spec.nodeName for the running ones), writes the `status` a Queue of the manifest carries through
   the status subresource (a PodGroup's is applied with it: its CRD has no status subresource), opens every queue without a state, and waits until
   KWOK has made the nodes Ready and the bound pods Running;
3. reads the cluster back with kubectl as the snapshot (DIR/snapshot.json);
4. runs mltwin-scheduler --once on it, again and again, each cycle's binds, evictions, PodGroup
   phases and nominations (status.nominatedNodeName) applied to the snapshot, until a cycle
   decides nothing (at most 10);
5. starts the real scheduler with the same configuration and waits until nothing changes for
   --settle seconds; reads its binds (pods that got a node), evictions (pods deleted or being
   deleted) and the PodGroups' phases;
6. prints both and whether they agree (binds as pod -> node, evictions as a set, final phases).

Exit status: 0 identical, 1 different, 2 the comparison could not run.

It takes the lab over: the cluster is emptied first, and the scheduler is left running with the
configuration it tested (after a failure: restarted with the default one).
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import time

LAB_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(LAB_DIR))


def lab_vars():
    out = subprocess.run(
        ["bash", "-c", f'source "{LAB_DIR}/lib.sh"; echo "$LAB_BIN/kubectl-$K8S_VERSION"; echo "$LAB_RUN";'
         ' echo "$VOLCANO_SRC/installer/helm/chart/volcano/config/volcano-scheduler.conf"'],
        check=True, capture_output=True, text=True).stdout.split("\n")
    return out[0], out[1], out[2]


KUBECTL, LAB_RUN, DEFAULT_CONF = lab_vars()


def kc(*args, input=None, check=True):
    r = subprocess.run([KUBECTL, "--kubeconfig", os.path.join(LAB_RUN, "kubeconfig"), *args],
                       input=input, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def kget(what):
    return json.loads(kc("get", what, "-A", "-o", "json"))["items"]


def key(o):
    m = o["metadata"]
    return f"{m['namespace']}/{m['name']}" if m.get("namespace") else m["name"]


def wait(what, pred, secs):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return
        time.sleep(0.25)
    raise RuntimeError(f"{what}: not after {secs} s")


def scheduler(*args, env=None):
    subprocess.run(["bash", os.path.join(LAB_DIR, "scheduler.sh"), *args], check=True, env=env)


def restore_scheduler():
    """Leaves the lab as `make lab` does: the scheduler running with the default configuration and
    the lab's schedule period (a comparison leaves it with the configuration and period it tested,
    or stopped when it failed)."""
    env = {k: v for k, v in os.environ.items() if k != "MLTWIN_LAB_SCHEDULE_PERIOD"}
    scheduler("restart", DEFAULT_CONF, env=env)


def reset():
    scheduler("stop")
    kc("delete", "pods", "-A", "--all", "--force", "--grace-period", "0", "--wait=false", check=False)
    kc("delete", "podgroups.scheduling.volcano.sh", "-A", "--all", "--wait=false", check=False)
    kc("delete", "nodes", "--all", "--wait=false", check=False)
    for q in kget("queues.scheduling.volcano.sh"):
        if key(q) not in ("default", "root"):
            kc("delete", "queue", key(q), "--wait=false", check=False)
    for pc in kget("priorityclasses"):
        if not key(pc).startswith("system-"):
            kc("delete", "priorityclass", key(pc), "--wait=false", check=False)
    wait("the cluster emptied", lambda: not kget("pods") and not kget("nodes")
         and not kget("podgroups.scheduling.volcano.sh"), 60)


def apply(manifest):
    text, objs, dec, i = kc("create", "--dry-run=client", "-o", "json", "-f", manifest), [], json.JSONDecoder(), 0
    while i < len(text):   # one JSON document per object, one after the other
        if text[i].isspace():
            i += 1
            continue
        o, i = dec.raw_decode(text, i)
        objs += o["items"] if o.get("kind") == "List" else [o]
    kc("apply", "--server-side", "-f", manifest)
    # Volcano v1.12.1's Queue CRD has a status subresource, so a Queue's status is written through
    # it; its PodGroup CRD has none (config/crd/volcano/bases/scheduling.volcano.sh_podgroups.yaml),
    # so the apply above wrote a PodGroup's status with the object.
    for o in objs:
        if o["kind"] == "Queue" and o.get("status"):
            kc("patch", "queue", o["metadata"]["name"], "--subresource", "status", "--type", "merge",
               "-p", json.dumps({"status": o["status"]}))
    for q in kget("queues.scheduling.volcano.sh"):
        if not q.get("status", {}).get("state"):
            kc("patch", "queue", key(q), "--subresource", "status", "--type", "merge",
               "-p", '{"status":{"state":"Open"}}')

    def settled():
        nodes = kget("nodes")
        ready = all(any(c["type"] == "Ready" and c["status"] == "True" for c in n.get("status", {}).get(
            "conditions", [])) for n in nodes)
        pods = kget("pods")
        running = all(p["status"].get("phase") == "Running" for p in pods if p["spec"].get("nodeName"))
        return ready and running
    wait("KWOK: nodes Ready and bound pods Running", settled, 60)


def snapshot(path):
    items = []
    for what in ("nodes", "pods", "podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh",
                 "priorityclasses"):
        items += kget(what)
    snap = {"apiVersion": "v1", "kind": "List", "items": items}
    with open(path, "w") as f:
        json.dump(snap, f, indent=1)
    return snap


def mltwin_until_quiet(binary, snap, conf, outdir, seed=0, max_cycles=10):
    snap = copy.deepcopy(snap)
    binds, evictions, phases = {}, set(), {}
    for pg in snap["items"]:
        if pg["kind"] == "PodGroup":
            phases[key(pg)] = pg.get("status", {}).get("phase", "")
    for cycle in range(max_cycles):
        path = os.path.join(outdir, f"mltwin-cycle-{cycle}.snapshot.json")
        with open(path, "w") as f:
            json.dump(snap, f)
        cmd = [binary, "--once", "--snapshot", path, "--output", "json", "--tiebreak-seed", str(seed + cycle)]
        if conf:
            cmd += ["--scheduler-conf", conf]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        out = json.loads(r.stdout)
        with open(os.path.join(outdir, f"mltwin-cycle-{cycle}.json"), "w") as f:
            f.write(r.stdout)
        for c in out["podgroup_phases"]:
            phases[c["podgroup"]] = c["to"]
        # The pods nominated to a node (what volcano-scheduler writes as status.nominatedNodeName).
        nominated = {n["pod"]: n["node"] for n in out.get("nominations", [])}
        for o in snap["items"]:
            if o["kind"] == "Pod" and key(o) in nominated:
                o.setdefault("status", {})["nominatedNodeName"] = nominated[key(o)]
        if not out["binds"] and not out["evictions"]:
            # A cycle that only changes phases: apply them once more and stop when nothing changes.
            changed = False
            for o in snap["items"]:
                if o["kind"] == "PodGroup" and o.get("status", {}).get("phase", "") != phases.get(key(o), ""):
                    o.setdefault("status", {})["phase"] = phases[key(o)]
                    changed = True
            if not changed:
                return binds, evictions, phases, cycle + 1
            continue
        by_key = {key(o): o for o in snap["items"] if o["kind"] == "Pod"}
        for b in out["binds"]:
            binds[b["pod"]] = b["node"]
            p = by_key[b["pod"]]
            p["spec"]["nodeName"] = b["node"]
            p.setdefault("status", {})["phase"] = "Running"
        gone = {e["pod"] for e in out["evictions"]}
        evictions |= gone
        snap["items"] = [o for o in snap["items"] if not (o["kind"] == "Pod" and key(o) in gone)]
        for o in snap["items"]:
            if o["kind"] == "PodGroup" and key(o) in phases:
                o.setdefault("status", {})["phase"] = phases[key(o)]
    raise RuntimeError(f"mltwin-scheduler still deciding after {max_cycles} cycles")


def scheduler_log():
    with open(os.path.join(LAB_RUN, "logdir")) as f:
        return os.path.join(f.read().strip(), "vc-scheduler.log")


def sessions_closed(log, offset):
    """How many scheduling sessions the real scheduler has closed since byte `offset` of its log
    (session.go logs "Close Session <uid>" at -v 3)."""
    with open(log, "rb") as f:
        f.seek(offset)
        return f.read().count(b"] Close Session ")


def real_until_quiet(snap, conf, settle, quiet_sessions=3, limit=120):
    """Starts the real scheduler on the cluster and waits until it is quiet: nothing changed for
    `settle` seconds and for `quiet_sessions` whole sessions (a slow first session after the cache
    sync does not end the wait early). Returns its binds, evictions and PodGroup phases."""
    before = {key(p): p for p in snap["items"] if p["kind"] == "Pod"}
    log = scheduler_log()
    offset = os.path.getsize(log)
    scheduler("start", conf or DEFAULT_CONF)

    def state():
        pods = {key(p): (p["spec"].get("nodeName", ""), bool(p["metadata"].get("deletionTimestamp")))
                for p in kget("pods")}
        pgs = {key(g): g.get("status", {}).get("phase", "") for g in kget("podgroups.scheduling.volcano.sh")}
        return pods, pgs
    last, since, start, sessions_then = None, time.time(), time.time(), 0
    while True:
        s, closed = state(), sessions_closed(log, offset)
        if s != last:
            last, since, sessions_then = s, time.time(), closed
        elif time.time() - since >= settle and closed - sessions_then >= quiet_sessions:
            break
        if time.time() - start > limit:
            raise RuntimeError(f"the real scheduler still changing the cluster after {limit} s")
        time.sleep(0.25)
    pods, pgs = last
    # Evictions: every pod of the snapshot that is gone or being deleted at the end, including one
    # the scheduler bound during the run and then evicted (KWOK deletes an evicted pod at once);
    # binds: the snapshot's pending pods that end on a node.
    evictions = {k for k in before if k not in pods or pods[k][1]}
    binds = {k: pods[k][0] for k, p in before.items() if not p["spec"].get("nodeName") and k not in evictions and pods[k][0]}
    real_until_quiet.log_segment = (log, offset, os.path.getsize(log))
    return binds, evictions, pgs


def keep_log_segment(log_segment, out):
    """Copies this comparison's part of the real scheduler's log into out/vc-scheduler.log and
    returns the segment that names it: the lab keeps the logs of its last 10 starts only, and the
    evidence a result cites (its first session's NodeNum, the node scores at -v 5) must outlive
    them. A segment already in `out`, or whose log is gone, is returned as it is."""
    log, start, end = log_segment
    kept = os.path.join(out, "vc-scheduler.log")
    if os.path.abspath(log) == os.path.abspath(kept) or not os.path.exists(log):
        return list(log_segment)
    with open(log, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    tmp = kept + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, kept)
    return [kept, 0, len(data)]


def first_session_nodes(log_segment):
    """How many nodes the real scheduler's first session saw ("SnapShot for scheduling" ...
    NodeNum=N, cache.go:1427), or None. Volcano v1.12.1 adds a Node to its cache from a work queue
    (cache/event_handlers.go:548-555 AddNode queues the name; processSyncNode adds it), which
    WaitForCacheSync (cache.go:789-792) does not wait for: the first session after a start can
    see fewer nodes than the cluster has."""
    log, start, end = log_segment
    with open(log, "rb") as f:
        f.seek(start)
        text = f.read(end - start).decode("utf-8", "replace")
    i = text.find('"SnapShot for scheduling"')
    if i < 0:
        return None
    j = text.find("NodeNum=", i)
    return int(text[j + len("NodeNum="):].split()[0]) if j >= 0 else None


def node_scores(log_segment):
    """The real scheduler's node scores for each pod, from its log (-v 5: util.PrioritizeNodes logs
    "Prioritize nodeScoreMap for task<ns/name> is: map[node:score ...]", scheduler_helper.go:130):
    pod -> the last such map logged in this run, {node: score}."""
    log, start, end = log_segment
    with open(log, "rb") as f:
        f.seek(start)
        text = f.read(end - start).decode("utf-8", "replace")
    scores = {}
    for line in text.splitlines():
        i = line.find("Prioritize nodeScoreMap for task<")
        if i < 0:
            continue
        rest = line[i + len("Prioritize nodeScoreMap for task<"):]
        pod, _, m = rest.partition("> is: map[")
        scores[pod] = {n: float(v) for n, _, v in (e.rpartition(":") for e in m.rstrip("]").split()) if n}
    return scores


def differences(m, r):
    """The differences between two outcomes (binds, evictions, phases), one line each."""
    (m_binds, m_evict, m_phases), (r_binds, r_evict, r_phases) = m, r
    diffs = []
    for p in sorted(set(m_binds) | set(r_binds)):
        if m_binds.get(p) != r_binds.get(p):
            diffs.append(f"bind {p}: mltwin {m_binds.get(p, '(not bound)')}, volcano {r_binds.get(p, '(not bound)')}")
    for p in sorted(set(m_evict) ^ set(r_evict)):
        diffs.append(f"eviction {p}: {'mltwin only' if p in m_evict else 'volcano only'}")
    for g in sorted(set(m_phases) | set(r_phases)):
        if m_phases.get(g, "") != r_phases.get(g, ""):
            diffs.append(f"phase {g}: mltwin {m_phases.get(g) or '(none)'}, volcano {r_phases.get(g) or '(none)'}")
    return diffs


def compare(manifest, conf, out, settle, binary, seed=0):
    """One comparison of `manifest` under `conf`; raises RuntimeError (or CalledProcessError,
    KeyError) when it cannot run. Returns the result (also written to out/result.json)."""
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    reset()
    apply(manifest)
    snap = snapshot(os.path.join(out, "snapshot.json"))
    t1 = time.time()
    m_binds, m_evict, m_phases, cycles = mltwin_until_quiet(binary, snap, conf, out, seed)
    # As for the real scheduler: a pod bound in one cycle and evicted in a later one is an eviction.
    m_binds = {p: n for p, n in m_binds.items() if p not in m_evict}
    t2 = time.time()
    r_binds, r_evict, r_phases = real_until_quiet(snap, conf, settle)
    t3 = time.time()
    log_segment = keep_log_segment(real_until_quiet.log_segment, out)
    result = {
        "manifest": manifest, "configuration": conf, "mltwin_cycles": cycles, "tiebreak_seed": seed,
        "binds": {"mltwin": m_binds, "volcano": r_binds},
        "evictions": {"mltwin": sorted(m_evict), "volcano": sorted(r_evict)},
        "podgroup_phases": {"mltwin": m_phases, "volcano": r_phases},
        "differences": differences((m_binds, m_evict, m_phases), (r_binds, r_evict, r_phases)),
        "seconds": {"setup": round(t1 - t0, 2), "mltwin": round(t2 - t1, 2), "volcano": round(t3 - t2, 2)},
        "scheduler_log": log_segment,
        "nodes": sum(1 for o in snap["items"] if o["kind"] == "Node"),
        "first_session_nodes": first_session_nodes(log_segment),
    }
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    return result, snap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("--conf", help="volcano-scheduler.conf, given to both schedulers (default: the one Volcano "
                    "v1.12.1's Helm chart installs, installer/helm/chart/volcano/config/volcano-scheduler.conf)")
    ap.add_argument("--mltwin-scheduler", default=os.path.join(REPO, "build/apps/mltwin-scheduler"))
    ap.add_argument("--out", default=None, help="folder for the snapshot and both results")
    ap.add_argument("--settle", type=float, default=2.0,
                    help="seconds (and at least 3 sessions) without change that end the real run")
    ap.add_argument("--tiebreak-seed", type=int, default=0, help="mltwin-scheduler's --tiebreak-seed (first cycle)")
    a = ap.parse_args()
    # Both schedulers get the same file: mltwin-scheduler's own default is Volcano's built-in one
    # (no binpack), not the Helm chart's that the lab's scheduler starts with.
    # Inputs first: a comparison stops the scheduler and empties the cluster.
    for path, what in ((a.manifest, "manifest"), (a.mltwin_scheduler, "mltwin-scheduler (make scheduler)"),
                       (a.conf or DEFAULT_CONF, "scheduler configuration")):
        if not os.path.isfile(path):
            print(f"compare: no {what} at {path}", file=sys.stderr)
            return 2
    try:
        result, _ = compare(a.manifest, a.conf or DEFAULT_CONF, a.out or os.path.join(LAB_RUN, "compare"),
                            a.settle, a.mltwin_scheduler, a.tiebreak_seed)
    except (RuntimeError, subprocess.CalledProcessError, KeyError, OSError, ValueError) as e:
        print(f"compare: could not run: {e}", file=sys.stderr)
        try:
            restore_scheduler()
        except subprocess.CalledProcessError:
            print("compare: the lab's scheduler could not be started again: make lab", file=sys.stderr)
        return 2
    m_binds, r_binds = result["binds"]["mltwin"], result["binds"]["volcano"]
    print(f"binds: mltwin {len(m_binds)} ({result['mltwin_cycles']} cycles), volcano {len(r_binds)}; evictions: "
          f"mltwin {len(result['evictions']['mltwin'])}, volcano {len(result['evictions']['volcano'])}")
    for p in sorted(r_binds):
        print(f"  {p} -> {r_binds[p]}")
    for g, ph in sorted(result["podgroup_phases"]["volcano"].items()):
        print(f"  PodGroup {g}: {ph}")
    if result["differences"]:
        print("DIFFERENT:")
        for d in result["differences"]:
            print("  " + d)
        return 1
    print(f"identical (details: {a.out or os.path.join(LAB_RUN, 'compare')}/result.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
