// mltwin-scheduler's speed (issue 20, item 5): one scheduling cycle from the in-memory state,
// and the time to read the cluster's snapshot, at 1,000 nodes / 10,000 pods and at 5,000
// nodes / 50,000 pods.
//
// The cluster: trn1.32xlarge nodes (128 vCPU, 512 GiB, 32 NeuronCores, 8 EFA, 737 pods:
// catalog/aws-instance-types.json) in one queue per 100 nodes; gangs of 1 to 64 pods (a
// uniform draw, seed 1), each pod 1 NeuronCore, 2 vCPU, 8 GiB — the first half of the pods
// running (their PodGroups Running), the rest pending (Inqueue, so that allocate tries them).
// The configuration is Volcano's default (enqueue, allocate, backfill). Each repetition runs
// the cycle on a fresh copy of the state (the copy is not timed), with a fresh Scheduler.
//
// The snapshot is the same state as kubectl prints it (k8s::write_list), each pod padded with
// what kubectl adds that the reader drops or skips (managedFields, env, container statuses,
// conditions: about 6 KB a pod, as in a real `kubectl get pods -o json`), then read with
// k8s::read_json and loaded into a SchedulerCache.
//
//   scheduler_bench [--nodes N --pods P] [--reps R]   (default: both sizes, 101 cycles at the
//                                                     smaller and 21 at the larger; --reps sets both)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/scheduler_cache.hpp"

using namespace mltwin;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class NullBackend : public policy::Backend {
 public:
  std::size_t binds = 0, evictions = 0;
  policy::CallResult bind(const policy::TaskInfo&, const policy::NodeInfo&) override {
    ++binds;
    return policy::CallResult::success();
  }
  policy::CallResult evict(const policy::TaskInfo&, const policy::Eviction&) override {
    ++evictions;
    return policy::CallResult::success();
  }
  void podgroup_phase_changed(const policy::JobInfo&, policy::PodGroupPhase, policy::PodGroupPhase) override {}
  void job_condition(const policy::JobInfo&, const policy::Status&) override {}
};

policy::ClusterState build(int nodes, int pods) {
  policy::ClusterState s;
  const int queues = std::max(1, nodes / 100);
  for (int q = 0; q < queues; ++q) {
    policy::QueueInfo qi;
    qi.name = "team-" + std::to_string(q);
    qi.uid = static_cast<std::uint64_t>(q + 1);
    s.add_queue(qi);
  }
  for (int n = 0; n < nodes; ++n) {
    policy::NodeInfo ni;
    ni.name = "ip-10-" + std::to_string(n / 250) + "-" + std::to_string(n % 250) + ".ec2.internal";
    ni.instance_type = "trn1.32xlarge";
    ni.allocatable = policy::Resource::make(128, 512 * kGiB);
    ni.allocatable.with(policy::rn::kPods, 737).with(policy::rn::kNeuronCore, 32).with(policy::rn::kEfa, 8);
    ni.capacity = ni.allocatable;
    s.add_node(ni);
  }
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> gang(1, 64);
  policy::Resource pod = policy::task_resreq(policy::Resource::make(2, 8 * kGiB).with(policy::rn::kNeuronCore, 1));
  pod.max_task_num = 0;
  int made = 0, job = 0;
  policy::NodeId next_node = 0;
  int on_node = 0;
  while (made < pods) {
    const int size = std::min(gang(rng), pods - made);
    const bool running = made + size <= pods / 2;
    policy::JobInfo j;
    j.name = "job-" + std::to_string(job);
    j.queue = static_cast<policy::QueueId>(job % queues);
    j.min_available = size;
    j.creation = static_cast<policy::TimeNs>(job) * 1'000'000'000;
    j.uid = static_cast<std::uint64_t>(1'000'000 + job);
    for (int i = 0; i < size; ++i) j.min_resources.add(pod);
    const policy::JobId jid = s.add_job(j);
    s.set_podgroup_phase(jid, running ? policy::PodGroupPhase::Running : policy::PodGroupPhase::Inqueue);
    for (int i = 0; i < size; ++i) {
      policy::TaskInfo t;
      t.name = j.name + "-worker-" + std::to_string(i);
      t.index = i;
      t.resreq = pod;
      t.creation = j.creation;
      t.uid = static_cast<std::uint64_t>(10'000'000 + made + i);
      t.role = "worker";
      const policy::TaskId tid = s.add_task(jid, t);
      if (running) {
        s.set_task_status(tid, policy::TaskStatus::Running, next_node);
        if (++on_node == 32) on_node = 0, next_node = (next_node + 1) % static_cast<policy::NodeId>(nodes);
      }
    }
    made += size;
    ++job;
  }
  s.set_now(static_cast<policy::TimeNs>(job) * 1'000'000'000);
  return s;
}

/// What kubectl prints beside the fields the reader uses (dropped or skipped by it).
void pad(nlohmann::json& list) {
  for (auto& item : list["items"]) {
    if (item["kind"] != "Pod") continue;
    item["metadata"]["managedFields"] = nlohmann::json::array(
        {{{"apiVersion", "v1"}, {"fieldsType", "FieldsV1"}, {"manager", "vc-controller-manager"}, {"operation", "Update"},
          {"fieldsV1", {{"f:metadata", {{"f:annotations", {{"f:scheduling.k8s.io/group-name", nlohmann::json::object()}}}}},
                        {"f:spec", {{"f:containers", {{"k:{\"name\":\"main\"}", {{"f:image", nlohmann::json::object()}}}}}}}}}}});
    item["metadata"]["labels"] = {{"volcano.sh/job-name", item["metadata"]["annotations"]["scheduling.k8s.io/group-name"]},
                                  {"volcano.sh/queue-name", "team"}, {"volcano.sh/task-spec", "worker"}};
    auto& c = item["spec"]["containers"][0];
    c["image"] = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training-neuronx:2.1.2-neuronx-py310-sdk2.20.2-ubuntu20.04";
    c["command"] = {"torchrun", "--nnodes=8", "--nproc_per_node=32", "train.py", "--model=llama2-7b"};
    c["env"] = nlohmann::json::array();
    for (int i = 0; i < 10; ++i) c["env"].push_back({{"name", "NEURON_VAR_" + std::to_string(i)}, {"value", "some-value-" + std::to_string(i)}});
    c["volumeMounts"] = {{{"mountPath", "/fsx"}, {"name", "fsx"}}, {{"mountPath", "/dev/shm"}, {"name", "dshm"}}};
    item["spec"]["tolerations"] = {{{"effect", "NoExecute"}, {"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"tolerationSeconds", 300}},
                                   {{"effect", "NoExecute"}, {"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"tolerationSeconds", 300}}};
    item["status"]["conditions"] = {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", "2026-12-01T09:00:00Z"}},
                                    {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", "2026-12-01T09:00:00Z"}},
                                    {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-12-01T09:00:00Z"}}};
    item["status"]["qosClass"] = "Guaranteed";
    item["status"]["hostIP"] = "10.0.1.10";
    item["status"]["podIP"] = "10.0.1.23";
  }
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const std::size_t i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void measure(int nodes, int pods, int reps) {
  const policy::ClusterState base = build(nodes, pods);
  std::vector<double> cycle;
  NullBackend last;
  for (int r = 0; r < reps; ++r) {
    policy::ClusterState s = base;
    policy::Scheduler sched(policy::volcano_default_config(), 42);
    NullBackend b;
    const auto t0 = Clock::now();
    sched.run_once(s, b);
    cycle.push_back(ms_since(t0));
    last = b;
  }
  nlohmann::json list = k8s::write_list(base);
  pad(list);
  const std::string text = list.dump(4);
  std::vector<double> parse, load;
  std::size_t read_pods = 0;
  for (int r = 0; r < std::max(3, reps / 4); ++r) {
    const auto t0 = Clock::now();
    k8s::Snapshot snap;
    k8s::read_json(text, "bench.json", snap);
    parse.push_back(ms_since(t0));
    const auto t1 = Clock::now();
    policy::SchedulerCache cache;
    k8s::load(snap, cache);
    load.push_back(ms_since(t1));
    read_pods = snap.pods.size();
  }
  int pending = 0;
  for (const auto& t : base.tasks()) pending += t.status == policy::TaskStatus::Pending;
  std::printf("%d nodes, %d pods (%d pending), %zu binds per cycle:\n", nodes, pods, pending, last.binds);
  // With fewer than 100 cycles the 99th percentile is the slowest one: say so.
  std::printf("  cycle from the in-memory state: median %.1f ms, %s %.1f ms (%zu cycles)\n", percentile(cycle, 0.5),
              cycle.size() >= 100 ? "p99" : "slowest", percentile(cycle, 0.99), cycle.size());
  std::printf("  snapshot %.1f MB, %zu pods: read %.0f ms (median of %zu), load into the cache %.0f ms\n",
              static_cast<double>(text.size()) / 1e6, read_pods, percentile(parse, 0.5), parse.size(), percentile(load, 0.5));
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 0, pods = 0, reps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pods")) pods = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  if (nodes > 0 && pods > 0) {
    measure(nodes, pods, reps > 0 ? reps : 21);
  } else {
    measure(1000, 10000, reps > 0 ? reps : 101);
    measure(5000, 50000, reps > 0 ? reps : 21);
  }
  return 0;
}
