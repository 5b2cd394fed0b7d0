"""Seeded random, valid cluster states for the differential runner (issue 22, item 2).

generate(seed) returns the Kubernetes objects of one cluster state, as kubectl would apply them:
nodes of several shapes and resource names (KWOK nodes), queues with weights, capability, deserved
and reclaimable, PriorityClasses, PodGroups with minMember, minResources and a priority class,
their pods (the running ones bound to nodes they fit, the pending ones without a node), and pods
of other schedulers holding node resources. One seed gives the same objects on every machine
(Python's random.Random is specified to be reproducible for a seed).

"Valid" means what a real cluster could hold: a bound pod fits its node (requests against
allocatable, the pod count, taints tolerated, nodeSelector matched), a Running PodGroup has at
least minMember pods bound, and each pod names its PodGroup with the annotation Volcano's
controller sets (scheduling.k8s.io/group-name).
"""
import random

# Node shapes: the instance type and its allocatable. The figures are an EKS node's allocatable
# for the type (capacity less the kube-reserved and eviction thresholds the EKS AMI's bootstrap
# sets) rounded; the accelerator counts are the devices the Neuron and NVIDIA device plugins and
# the EFA plugin advertise (Trainium: 2 NeuronCores a chip, trn1.2xlarge 1 chip, trn1.32xlarge 16;
# p4d.24xlarge 8 A100; EFA interfaces per type from the EC2 docs). What matters here is that
# shapes differ in size and in which resource names they have.
SHAPES = {
    "trn1.2xlarge": {"cpu": "7910m", "memory": "29317Mi", "pods": "58", "aws.amazon.com/neuroncore": "2"},
    "trn1.32xlarge": {"cpu": "127610m", "memory": "499056Mi", "pods": "247", "aws.amazon.com/neuroncore": "32",
                      "vpc.amazonaws.com/efa": "8"},
    "p4d.24xlarge": {"cpu": "95690m", "memory": "1114972Mi", "pods": "737", "nvidia.com/gpu": "8",
                     "vpc.amazonaws.com/efa": "4"},
    "m5.2xlarge": {"cpu": "7910m", "memory": "29317Mi", "pods": "58"},
    "c5.4xlarge": {"cpu": "15890m", "memory": "28651Mi", "pods": "234"},
    # A node whose kubelet runs with a small --max-pods: the pod count binds before the resources.
    "m5.xlarge-maxpods4": {"cpu": "3920m", "memory": "14258Mi", "pods": "4"},
}
ZONES = ["us-west-2a", "us-west-2b"]
NAMESPACES = ["default", "ml"]
TAINT = {"key": "dedicated", "value": "training", "effect": "NoSchedule"}
TOLERATION = {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"}

# Requests of one pod of a job of each kind (chosen per job; every pod of a job asks the same),
# sized to the largest node of the snapshot that has the kind's accelerator (`most`: that node's
# allocatable as numbers), so that most jobs could run somewhere and the nodes are contended.
def neuron_requests(r, most):
    nc = r.choice([c for c in (1, 2, 8, 16, 32) if c <= most.get("aws.amazon.com/neuroncore", 0)] or [2, 8])
    req = {"cpu": str(nc * 3), "memory": f"{nc * 8}Gi", "aws.amazon.com/neuroncore": str(nc)}
    if nc >= 16 and most.get("vpc.amazonaws.com/efa", 0) and r.random() < 0.5:
        req["vpc.amazonaws.com/efa"] = str(nc // 4)
    return req


def gpu_requests(r, most):
    g = r.choice([1, 2, 4, 8])
    return {"cpu": str(g * 10), "memory": f"{g * 64}Gi", "nvidia.com/gpu": str(g)}


def cpu_requests(r, most):
    return {"cpu": r.choice([c for c in ("250m", "500m", "1", "2", "4", "6", "12") if qty(c) <= most["cpu"]] or ["250m"]),
            "memory": r.choice(["512Mi", "2Gi", "4Gi", "8Gi", "12Gi"])}


KINDS = {"neuron": ("aws.amazon.com/neuroncore", neuron_requests), "gpu": ("nvidia.com/gpu", gpu_requests),
         "cpu": ("cpu", cpu_requests)}
QTY_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "m": 1e-3}


def qty(s):
    for u, f in QTY_UNITS.items():
        if s.endswith(u):
            return float(s[:-len(u)]) * f
    return float(s)


def fits(req, free):
    return all(qty(v) <= free.get(k, 0) + 1e-9 for k, v in req.items())


def generate(seed):
    """The objects of cluster state `seed` (a list of dicts) and a summary of its size."""
    r = random.Random(seed)
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}]

    # Nodes: 1 to 5, of one or two families.
    # (the small-max-pods shape is drawn less often: it fits little)
    families = r.sample(sorted(SHAPES), r.choice([1, 2, 2, 3]))
    if "m5.xlarge-maxpods4" in families and len(families) > 1 and r.random() < 0.5:
        families.remove("m5.xlarge-maxpods4")
    nodes = []
    for i in range(r.randint(1, 5)):
        shape = r.choice(families)
        n = {"name": f"n{i}", "shape": shape, "free": {k: qty(v) for k, v in SHAPES[shape].items()},
             "zone": r.choice(ZONES), "tainted": r.random() < 0.1, "unschedulable": r.random() < 0.05}
        nodes.append(n)
        meta = {"name": n["name"], "annotations": {"kwok.x-k8s.io/node": "fake"},
                "labels": {"kubernetes.io/hostname": n["name"], "node.kubernetes.io/instance-type": shape.split("-")[0],
                           "topology.kubernetes.io/zone": n["zone"], "kubernetes.io/os": "linux"}}
        spec = {}
        if n["tainted"]:
            spec["taints"] = [TAINT]
        if n["unschedulable"]:
            spec["unschedulable"] = True
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
                     "status": {"allocatable": dict(SHAPES[shape]), "capacity": dict(SHAPES[shape])}})

    # Queues besides `default` (which the lab keeps, weight 1): 0 to 3.
    queues = ["default"]
    for i in range(r.choice([0, 1, 1, 2, 3])):
        name = f"q{i}"
        spec = {"weight": r.randint(1, 4)}
        if r.random() < 0.3:
            spec["capability"] = r.choice([{"cpu": str(r.choice([8, 16, 64]))},
                                           {"aws.amazon.com/neuroncore": str(r.choice([8, 16, 32]))},
                                           {"nvidia.com/gpu": str(r.choice([2, 4, 8]))}])
        if r.random() < 0.2:
            spec["deserved"] = {"cpu": str(r.choice([4, 16, 32])), "memory": f"{r.choice([16, 64, 128])}Gi"}
        if r.random() < 0.2:
            spec["reclaimable"] = False
        queues.append(name)
        objs.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
                     "spec": spec})

    classes = [None]
    if r.random() < 0.7:
        for name, value in (("high", 1000), ("low", 10)):
            objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                         "value": value, "preemptionPolicy": "PreemptLowerPriority"})
        classes = ["high", "low"]

    # Pods of other schedulers (a DaemonSet's, say): they only hold node resources.
    for n in nodes:
        if r.random() < 0.3:
            req = {"cpu": r.choice(["25m", "100m", "250m"]), "memory": r.choice(["64Mi", "128Mi", "256Mi"])}
            if fits(req, n["free"]) and n["free"]["pods"] >= 1:
                take(n, req)
                objs.append(pod(f"system-{n['name']}", "default", req, None, None, n["name"], None,
                                scheduler="default-scheduler"))

    # PodGroups: 2 to 7; about half running (at least minMember pods bound), the others pending.
    used_names = set()
    for _ in range(r.randint(2, 7)):
        while True:
            name = f"{r.choice(['train', 'infer', 'etl', 'eval'])}-{r.randint(0, 99)}"
            if name not in used_names:
                used_names.add(name)
                break
        ns = r.choice(NAMESPACES)
        # Mostly a kind some node of the snapshot offers; now and then one no node has (it waits).
        present = [k for k, (res, _) in sorted(KINDS.items()) if any(res in SHAPES[n["shape"]] for n in nodes)]
        kind = r.choice(present if r.random() < 0.9 else sorted(KINDS))
        res = KINDS[kind][0]
        with_res = [n for n in nodes if res in SHAPES[n["shape"]]] or nodes
        most = {k: qty(v) for k, v in SHAPES[max(with_res, key=lambda n: qty(SHAPES[n["shape"]].get(res, "0")))["shape"]].items()}
        req = KINDS[kind][1](r, most)
        replicas = r.randint(1, 4)
        min_member = r.choice([replicas, replicas, r.randint(1, replicas)])
        queue = r.choice(queues)
        tolerates = any(n["tainted"] for n in nodes) and r.random() < 0.6
        selector = {"topology.kubernetes.io/zone": r.choice(ZONES)} if r.random() < 0.1 else None
        placed = []
        if r.random() < 0.5:   # try to make it running: bind its pods first-fit
            trial = {n["name"]: dict(n["free"]) for n in nodes}
            for i in range(replicas):
                for n in r.sample(nodes, len(nodes)):
                    if (fits(req, trial[n["name"]]) and trial[n["name"]]["pods"] >= 1
                            and (tolerates or not n["tainted"])
                            and (not selector or selector["topology.kubernetes.io/zone"] == n["zone"])):
                        for k, v in req.items():
                            trial[n["name"]][k] -= qty(v)
                        trial[n["name"]]["pods"] -= 1
                        placed.append(n["name"])
                        break
            if len(placed) >= min_member:
                for n in nodes:
                    n["free"] = trial[n["name"]]
            else:
                placed = []
        running = bool(placed)
        # Running jobs lean to low priority and pending ones to high: what preempt acts on.
        pclass = (r.choice([None, "low", "low", "high"] if running else [None, "high", "high", "low"])
                  if len(classes) > 1 else None)
        phase = "Running" if running else r.choice(["Pending", "Pending", "Pending", "Inqueue"])
        spec = {"minMember": min_member, "queue": queue}
        if pclass:
            spec["priorityClassName"] = pclass
        if r.random() < 0.5:
            spec["minResources"] = {k: fmt(qty(v) * min_member) for k, v in req.items()}
        objs.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                     "metadata": {"name": name, "namespace": ns}, "spec": spec, "status": {"phase": phase}})
        for i in range(replicas):
            objs.append(pod(f"{name}-{i}", ns, req, name, pclass, placed[i] if i < len(placed) else None,
                            selector, tolerate=tolerates))
    size = {"nodes": len(nodes), "queues": len(queues), "podgroups": len(used_names),
            "pods": sum(1 for o in objs if o["kind"] == "Pod")}
    return objs, size


def take(n, req):
    for k, v in req.items():
        n["free"][k] -= qty(v)
    n["free"]["pods"] -= 1


def fmt(x):
    """A quantity in the form the API server would print back (whole numbers, else milli or Mi)."""
    if x >= 2**20 and x % 2**20 == 0:
        return f"{int(x // 2**30)}Gi" if x % 2**30 == 0 else f"{int(x // 2**20)}Mi"
    return str(int(x)) if float(x).is_integer() else f"{int(round(x * 1000))}m"


def pod(name, ns, req, group, pclass, node, selector, tolerate=False, scheduler="volcano"):
    meta = {"name": name, "namespace": ns}
    if group:
        meta["annotations"] = {"scheduling.k8s.io/group-name": group}
    # Limits equal to requests: the API server requires them for extended resources (neuroncore,
    # gpu, efa), and a Guaranteed pod is what a training job's pod usually is.
    spec = {"schedulerName": scheduler,
            "containers": [{"name": "main", "image": "none", "resources": {"requests": dict(req), "limits": dict(req)}}]}
    if pclass:
        spec["priorityClassName"] = pclass
    if node:
        spec["nodeName"] = node
    if selector:
        spec["nodeSelector"] = dict(selector)
    if tolerate:
        spec["tolerations"] = [TOLERATION]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
