// ClusterState's node bookkeeping (issue 14, item 5): the name index behind add_node's
// duplicate check and find_node, and total_allocatable() kept incrementally through readiness
// changes. Expected totals are sums written out by hand. And ChunkedVector, where the state keeps
// its tasks and jobs.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/policy/cluster_state.hpp"

using namespace mltwin::policy;

namespace {

NodeInfo node(const std::string& name, double cpu_milli, double mem_bytes, bool ready = true) {
  NodeInfo n;
  n.name = name;
  n.allocatable.milli_cpu = cpu_milli;
  n.allocatable.memory = mem_bytes;
  n.capacity = n.allocatable;
  n.ready = ready;
  return n;
}

}  // namespace

TEST_CASE("add_node refuses a duplicate name; find_node finds a node by name") {
  ClusterState s;
  const NodeId a = s.add_node(node("a", 1000, 1));
  const NodeId b = s.add_node(node("b", 1000, 1));
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK_THROWS_WITH_AS(s.add_node(node("a", 1, 1)), "duplicate node name 'a'", std::invalid_argument);
  CHECK(s.nodes().size() == 2);  // the refused node was not added
  CHECK(s.find_node("a") == a);
  CHECK(s.find_node("b") == b);
  CHECK(s.find_node("c") == kNone);
  // A copy keeps its own index.
  ClusterState copy = s;
  copy.add_node(node("c", 1, 1));
  CHECK(copy.find_node("c") == 2);
  CHECK(s.find_node("c") == kNone);
}

TEST_CASE("total_allocatable follows readiness changes") {
  ClusterState s;
  s.add_node(node("n0", 8000, 32.0 * (1 << 30)));
  s.add_node(node("n1", 4000, 16.0 * (1 << 30), false));  // launching: not counted yet
  s.add_node(node("n2", 2000, 8.0 * (1 << 30)));
  CHECK(s.total_allocatable().milli_cpu == 10000);
  CHECK(s.total_allocatable().memory == 40.0 * (1 << 30));
  s.set_node_ready(1, true);
  CHECK(s.total_allocatable().milli_cpu == 14000);
  CHECK(s.total_allocatable().memory == 56.0 * (1 << 30));
  s.set_node_ready(0, false);
  CHECK(s.total_allocatable().milli_cpu == 6000);
  CHECK(s.total_allocatable().memory == 24.0 * (1 << 30));
  s.set_node_ready(0, false);  // no change
  CHECK(s.total_allocatable().milli_cpu == 6000);
  CHECK(s.check_invariants().empty());
}

TEST_CASE("total_allocatable with fractional allocatable is the sum in node id order") {
  // 0.1 + 0.2 + 0.3 in id order is 0.6000000000000001 in double; subtracting and re-adding
  // 0.2 would give another double. The state re-adds the Ready nodes in id order instead.
  ClusterState s;
  s.add_node(node("a", 0.1, 0));
  s.add_node(node("b", 0.2, 0));
  s.add_node(node("c", 0.3, 0));
  CHECK(s.total_allocatable().milli_cpu == (0.1 + 0.2) + 0.3);
  s.set_node_ready(1, false);
  CHECK(s.total_allocatable().milli_cpu == 0.1 + 0.3);
  s.set_node_ready(1, true);
  CHECK(s.total_allocatable().milli_cpu == (0.1 + 0.2) + 0.3);
  s.add_node(node("d", 0.4, 0));
  CHECK(s.total_allocatable().milli_cpu == ((0.1 + 0.2) + 0.3) + 0.4);
}

TEST_CASE("whole allocatable beyond 2^53 in total is the exact sum rounded once, in any order") {
  // Adding 2^53 - 1, then 1 three times, one by one: 2^53, then 2^53 + 1 rounds to 2^53 (to
  // even), twice. The exact sum 2^53 + 2 is a double, and the state gives it.
  ClusterState s;
  s.add_node(node("big", 0, 0x1p53 - 1));
  for (const char* n : {"one", "two", "three"}) s.add_node(node(n, 0, 1));
  CHECK(s.total_allocatable().memory == 0x1p53 + 2);
  s.set_node_ready(0, false);
  CHECK(s.total_allocatable().memory == 3);
}

// ---- QueueJobSums: proportion's and overcommit's per-queue job sums, kept as jobs change ----

namespace {
QueueInfo queue_named(const std::string& name) {
  QueueInfo q;
  q.name = name;
  return q;
}
JobInfo job_in(QueueId q, const std::string& name, int min_available, const Resource& min_resources) {
  JobInfo j;
  j.name = name;
  j.queue = q;
  j.min_available = min_available;
  j.min_resources = min_resources;
  return j;
}
TaskInfo pod(const std::string& name, const Resource& req) {
  TaskInfo t;
  t.name = name;
  t.resreq = req;
  return t;
}
NodeInfo big_node(const std::string& name) {  // room for every pod the tests bind
  NodeInfo n = node(name, 1e9, 1e15);
  n.allocatable.scalars.set(rn::kPods, 1e6);
  n.allocatable.scalars.set(rn::kNeuronDevice, 1e9);
  n.capacity = n.allocatable;
  return n;
}
Resource req(double milli_cpu, double neuron_milli) {
  Resource r;
  r.milli_cpu = milli_cpu;
  r.memory = 1 << 20;
  r.scalars.set(rn::kPods, 1);
  if (neuron_milli > 0) r.scalars.set(rn::kNeuronDevice, neuron_milli);
  return r;
}
}  // namespace

TEST_CASE("QueueJobSums: the sums proportion takes, by hand") {
  ClusterState s;
  s.add_node(big_node("n0"));
  const QueueId qa = s.add_queue(queue_named("a"));
  const QueueId qb = s.add_queue(queue_named("b"));
  // Job x: 2 pods of 1000m + 4 devices (4000 milli-units), minAvailable 2; job y: one pod.
  const JobId x = s.add_job(job_in(qa, "x", 2, req(2000, 8000) + Resource{}));
  const TaskId x0 = s.add_task(x, pod("x-0", req(1000, 4000)));
  const TaskId x1 = s.add_task(x, pod("x-1", req(1000, 4000)));
  const JobId y = s.add_job(job_in(qb, "y", 1, req(500, 0)));
  s.add_task(y, pod("y-0", req(500, 0)));
  // A Pending PodGroup's pods count in request only (proportion.go:92 walks every job).
  REQUIRE(s.queue_job_sums() != nullptr);
  CHECK(s.queue_job_sums()->queue(qa).request.milli_cpu == 2000);
  CHECK(s.queue_job_sums()->queue(qa).request.scalars.get(rn::kPods) == 2);
  CHECK(s.queue_job_sums()->queue(qa).inqueue.milli_cpu == 0);
  CHECK(s.queue_job_sums()->queue(qa).allocated.milli_cpu == 0);
  // x Inqueue: inqueue = its minResources, request = its pending pods.
  s.set_podgroup_phase(x, PodGroupPhase::Inqueue);
  const QueueJobSums::Sums& a = s.queue_job_sums()->queue(qa);
  CHECK(a.inqueue.milli_cpu == 2000);
  CHECK(a.inqueue.scalars.get(rn::kNeuronDevice) == 8000);
  CHECK(a.request.milli_cpu == 2000);
  CHECK(a.request.scalars.get(rn::kPods) == 2);
  CHECK(a.allocated.milli_cpu == 0);
  // One pod bound, the PodGroup Running with 1 of minAvailable 2: not counted in inqueue.
  s.set_task_status(x0, TaskStatus::Bound, 0);
  s.set_podgroup_phase(x, PodGroupPhase::Running);
  {
    const QueueJobSums::Sums& r = s.queue_job_sums()->queue(qa);
    CHECK(r.allocated.milli_cpu == 1000);
    CHECK(r.request.milli_cpu == 2000);  // 1000 allocated + 1000 pending
    CHECK(r.inqueue.milli_cpu == 0);
    CHECK(r.elastic.milli_cpu == 0);     // allocated is below minResources
  }
  // Both bound: minAvailable allocated, so inqueue takes ExceededPart(min, allocated) = nothing
  // left to allocate (no names: 0 on every resource).
  s.set_task_status(x1, TaskStatus::Bound, 0);
  {
    const QueueJobSums::Sums& r = s.queue_job_sums()->queue(qa);
    CHECK(r.allocated.milli_cpu == 2000);
    CHECK(r.allocated.scalars.get(rn::kNeuronDevice) == 8000);
    CHECK(r.inqueue.milli_cpu == 0);
    CHECK(r.inqueue.scalars.empty());
  }
  // y Inqueue in queue b; overcommit's sum over all queues: x's nothing + y's minResources.
  s.set_podgroup_phase(y, PodGroupPhase::Inqueue);
  CHECK(s.queue_job_sums()->queue(qb).inqueue.milli_cpu == 500);
  CHECK(s.queue_job_sums()->inqueue_all().milli_cpu == 500);
  CHECK(s.queue_job_sums()->inqueue_all().scalars.get(rn::kPods) == 1);
  // x done and removed: queue a's sums are empty again, but keep no name.
  s.set_task_status(x0, TaskStatus::Succeeded);
  s.set_task_status(x1, TaskStatus::Succeeded);
  s.remove_task(x0);
  s.remove_task(x1);
  s.remove_job(x);
  CHECK(s.queue_job_sums()->queue(qa).allocated.milli_cpu == 0);
  CHECK(s.queue_job_sums()->queue(qa).allocated.scalars.empty());
  CHECK(s.check_invariants().empty());
}

TEST_CASE("QueueJobSums: equal to the per-session loop through random changes") {
  ClusterState s;
  for (int n = 0; n < 4; ++n) {
    s.add_node(big_node(std::to_string(n)));  // (no string concatenation: GCC bug 105651)
  }
  for (int q = 0; q < 3; ++q) s.add_queue(queue_named(std::to_string(q)));
  std::uint64_t rng = 12345;
  auto next = [&](std::uint64_t m) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (rng >> 33) % m;
  };
  std::vector<JobId> jobs;
  for (int step = 0; step < 3000; ++step) {
    const auto op = next(6);
    if (op == 0 || jobs.empty()) {
      const int pods = 1 + static_cast<int>(next(3));
      const Resource one = req(250.0 * (1 + next(4)), next(2) ? 1000.0 * (1 + next(4)) : 0);
      Resource min;
      for (int p = 0; p < pods; ++p) min.add(one);
      const JobId j = s.add_job(job_in(static_cast<QueueId>(next(3)), std::to_string(step), pods, min));
      for (int p = 0; p < pods; ++p) s.add_task(j, pod("t", one));
      jobs.push_back(j);
      continue;
    }
    const JobId j = jobs[next(jobs.size())];
    if (!s.job(j).live) continue;
    if (op == 1) {
      s.set_podgroup_phase(j, static_cast<PodGroupPhase>(next(3)));  // Pending, Inqueue, Running
    } else if (op == 2 || op == 3) {
      const auto& ts = s.job(j).tasks;
      if (ts.empty()) continue;
      const TaskId t = ts[next(ts.size())];
      const TaskStatus to = next(2) ? TaskStatus::Bound : TaskStatus::Pending;
      s.set_task_status(t, to, static_cast<NodeId>(next(4)));
    } else if (op == 4) {
      bool on_node = false;
      for (TaskId t : s.job(j).tasks) on_node = on_node || on_node_status(s.task(t).status);
      if (!on_node) s.remove_job(j);
    }
    if (step % 7 == 0) {
      const std::string bad = s.check_invariants();  // compares the kept sums with the loop's
      REQUIRE_MESSAGE(bad.empty(), "step " << step << ": " << bad);
    }
  }
  CHECK(s.check_invariants().empty());
}

TEST_CASE("QueueJobSums: a request that is not a whole number stops the kept sums; the loop takes over") {
  ClusterState s;
  const QueueId q = s.add_queue(queue_named("q"));
  Resource half;
  half.milli_cpu = 0.5;  // not whole: sums in another order could round differently
  const JobId j = s.add_job(job_in(q, "j", 1, half));
  s.add_task(j, pod("t", half));
  s.set_podgroup_phase(j, PodGroupPhase::Inqueue);
  CHECK(s.queue_job_sums() == nullptr);
  const auto scratch = QueueJobSums::from_scratch(s);
  CHECK(scratch[q].inqueue.milli_cpu == 0.5);
  CHECK(scratch[q].request.milli_cpu == 0.5);
}

TEST_CASE("future_idle(n): FutureIdle = Idle + Releasing - Pipelined, kept as tasks move") {
  ClusterState s;
  NodeInfo eight = node("n", 8000, 1e9);  // 8 cpu, 110 pods
  eight.allocatable.scalars.set(rn::kPods, 110);
  eight.capacity = eight.allocatable;
  const NodeId n = s.add_node(eight);
  const QueueId q = s.add_queue(queue_named("q"));
  const JobId j = s.add_job(job_in(q, "j", 1, req(1000, 0)));
  const TaskId a = s.add_task(j, pod("a", req(1000, 0)));
  const TaskId b = s.add_task(j, pod("b", req(2000, 0)));
  const TaskId c = s.add_task(j, pod("c", req(3000, 0)));
  CHECK(s.future_idle(n).milli_cpu == 8000);
  s.set_task_status(a, TaskStatus::Running, n);    // idle 7000
  s.set_task_status(b, TaskStatus::Running, n);    // idle 5000
  s.set_task_status(c, TaskStatus::Pipelined, n);  // pipelined 3000: 5000 - 3000
  CHECK(s.future_idle(n).milli_cpu == 2000);
  s.set_task_status(b, TaskStatus::Releasing, n);  // releasing 2000: 5000 + 2000 - 3000
  CHECK(s.future_idle(n).milli_cpu == 4000);
  CHECK(s.future_idle(n).scalars.get(rn::kPods) == 110 - 2 + 1 - 1);  // a, b on it; b releasing; c pipelined
  CHECK(s.future_idle(n) == s.node(n).future_idle());
  s.set_task_status(b, TaskStatus::Succeeded);     // idle 7000, nothing releasing: 7000 - 3000
  CHECK(s.future_idle(n).milli_cpu == 4000);
  s.set_task_status(c, TaskStatus::Pending);       // nothing pipelined
  CHECK(s.future_idle(n).milli_cpu == 7000);
  const std::string bad = s.check_invariants();
  CHECK_MESSAGE(bad.empty(), bad);
}

TEST_CASE("ClusterState: a job naming a queue that does not exist is refused, naming both") {
  ClusterState st;
  QueueInfo q;
  q.name = "c2";
  st.add_queue(q);
  JobInfo j;
  j.name = "pg1";
  j.queue = 1;  // only queue 0 exists
  CHECK_THROWS_WITH_AS(st.add_job(j), "job 'pg1' names queue 1 which does not exist", std::invalid_argument);
  CHECK(st.jobs().empty());
}

TEST_CASE("unset_podgroup / set_podgroup: the job leaves the scheduler's view while its pods hold their node, then returns anew") {
  // Volcano's job controller deletes the PodGroup when it kills a job (job_controller_actions.go
  // :212-225); the cache keeps the pods, the snapshot leaves the job out (cache.go:1407-1414).
  ClusterState s;
  QueueInfo q;
  q.name = "default";
  s.add_queue(q);
  const NodeId n = s.add_node(node("n", 4000, 8e9));
  JobInfo j;
  j.name = "train";
  j.queue = 0;
  j.min_available = 1;
  j.creation = 5;
  j.uid = 11;
  const JobId id = s.add_job(j);
  s.set_podgroup_phase(id, PodGroupPhase::Inqueue);
  TaskInfo t;
  t.name = "train-0";
  t.resreq.milli_cpu = 1000;
  const TaskId tid = s.add_task(id, t);
  s.set_task_status(tid, TaskStatus::Releasing, n);
  REQUIRE(s.active_jobs().size() == 1);

  s.unset_podgroup(id);
  CHECK(s.active_jobs().empty());
  CHECK(s.pending_jobs().empty());
  CHECK(s.queue_job_count(0) == 0);
  CHECK_FALSE(s.job(id).live);
  CHECK(s.job(id).podgroup_unset);
  CHECK(s.node(n).releasing.milli_cpu == 1000);  // the terminating pod still holds 1 cpu
  CHECK_THROWS_AS(s.set_podgroup(id + 1, j), std::logic_error);

  JobInfo fresh = j;
  fresh.creation = 100;
  fresh.uid = 42;
  fresh.phase = PodGroupPhase::Pending;
  s.set_podgroup(id, fresh);
  CHECK(s.job(id).live);
  CHECK_FALSE(s.job(id).podgroup_unset);
  CHECK(s.job(id).creation == 100);
  CHECK(s.job(id).uid == 42);
  CHECK(s.job(id).phase == PodGroupPhase::Pending);
  CHECK(s.pending_jobs().size() == 1);
  CHECK(s.queue_job_count(0) == 1);
  CHECK(s.job(id).tasks.size() == 1);  // its pod kept
  CHECK_THROWS_AS(s.set_podgroup(id, fresh), std::logic_error);  // not unset any more
  CHECK(s.check_invariants().empty());
}

// ---- the per-task gang: PodGroup spec.minTaskMember (api/job_info.go:910-988 at v1.12.1) ----

namespace {
TaskInfo role_task(const std::string& name, const std::string& role, double cpu_milli = 1000) {
  TaskInfo t;
  t.name = name;
  t.role = role;
  t.resreq.milli_cpu = cpu_milli;
  return t;
}
}  // namespace

TEST_CASE("ClusterState counts each role's pods against its minTaskMember as the pods change status") {
  ClusterState s;
  QueueInfo q;
  q.name = "q";
  s.add_queue(q);
  const NodeId n = s.add_node(node("n", 16000, 64e9));
  JobInfo j;
  j.name = "tf";
  j.queue = 0;
  j.min_available = 3;
  j.min_task_member = {{"ps", 1}, {"worker", 2}};
  const JobId id = s.add_job(j);
  CHECK(s.job(id).task_min_available_total == 3);
  const TaskId ps = s.add_task(id, role_task("tf-ps-0", "ps"));
  const TaskId w0 = s.add_task(id, role_task("tf-worker-0", "worker"));
  const TaskId w1 = s.add_task(id, role_task("tf-worker-1", "worker"));
  auto checks = [&] {
    const JobInfo& jj = s.job(id);
    return std::array<bool, 3>{jj.check_task_valid(), jj.check_task_ready(), jj.check_task_pipelined()};
  };
  using A = std::array<bool, 3>;  // valid, ready, pipelined
  CHECK(s.check_invariants().empty());
  CHECK(checks() == A{true, false, false});  // all Pending: valid, nothing occupied
  s.set_task_status(ps, TaskStatus::Allocated, n);
  s.set_task_status(w0, TaskStatus::Pipelined, n);
  CHECK(checks() == A{true, false, false});  // worker: 0 occupied, 1 pipelined of 2
  s.set_task_status(w1, TaskStatus::Running, n);
  CHECK(checks() == A{true, false, true});   // worker: 1 occupied, 2 with the pipelined one
  s.set_task_status(w0, TaskStatus::Running, n);
  CHECK(checks() == A{true, true, true});
  s.set_task_status(w1, TaskStatus::Failed);
  CHECK(checks() == A{false, false, false});  // worker: 1 valid of 2
  CHECK(s.check_invariants().empty());

  // minAvailable 2 below the sum 3: the per-task checks are skipped.
  JobInfo spec = s.job(id);
  spec.min_available = 2;
  s.update_job(id, spec);
  CHECK(checks() == A{true, true, true});
  // A new minTaskMember: worker 1, ps 1 -> every role holds its minimum again at minAvailable 2.
  spec.min_task_member = {{"worker", 1}, {"ps", 1}};
  s.update_job(id, spec);
  CHECK(s.job(id).task_min_available_total == 2);
  CHECK(checks() == A{true, true, true});
  // The failed worker pod becomes a ps pod (its annotation changed): ps counts 2, worker 1.
  TaskInfo moved = s.task(w1);
  moved.role = "ps";
  s.update_task(w1, moved);
  CHECK(s.job(id).roles[s.task(w1).role_index].name == "ps");
  CHECK(s.check_invariants().empty());
  s.remove_task(w1);
  CHECK(s.check_invariants().empty());
  CHECK(checks() == A{true, true, true});
}

TEST_CASE("a pending pod that requests nothing holds its role's place (getJobAllocatedRoles, api/job_info.go:888-894)") {
  ClusterState s;
  QueueInfo q;
  q.name = "q";
  s.add_queue(q);
  JobInfo j;
  j.name = "be";
  j.queue = 0;
  j.min_available = 1;
  j.min_task_member = {{"worker", 1}};
  const JobId id = s.add_job(j);
  s.add_task(id, role_task("be-worker-0", "worker", 0));
  CHECK(s.job(id).check_task_ready());
  CHECK(s.job(id).check_task_pipelined());
  CHECK(s.check_invariants().empty());
}

TEST_CASE("add_job and update_job refuse a repeated role or a negative count in minTaskMember, changing nothing") {
  ClusterState s;
  QueueInfo q;
  q.name = "q";
  s.add_queue(q);
  JobInfo j;
  j.name = "bad";
  j.queue = 0;
  j.min_task_member = {{"worker", 1}, {"worker", 2}};
  CHECK_THROWS_WITH_AS(s.add_job(j), "job 'bad': minTaskMember names role 'worker' twice", std::invalid_argument);
  j.min_task_member = {{"worker", -1}};
  CHECK_THROWS_WITH_AS(s.add_job(j), "job 'bad': minTaskMember['worker'] is -1, below 0", std::invalid_argument);
  CHECK(s.jobs().empty());
  j.min_task_member = {{"worker", 1}};
  const JobId id = s.add_job(j);
  JobInfo spec = s.job(id);
  spec.min_task_member = {{"ps", 1}, {"ps", 1}};
  CHECK_THROWS_AS(s.update_job(id, spec), std::invalid_argument);
  CHECK(s.job(id).min_task_member == std::vector<std::pair<std::string, std::int32_t>>{{"worker", 1}});
}

TEST_CASE("a job starts counting roles when a pod or its PodGroup first names one, counting the pods it already has") {
  ClusterState s;
  QueueInfo q;
  q.name = "q";
  s.add_queue(q);
  const NodeId n = s.add_node(node("n", 16000, 64e9));
  JobInfo j;
  j.name = "j";
  j.queue = 0;
  j.min_available = 2;
  const JobId id = s.add_job(j);
  const TaskId plain = s.add_task(id, role_task("j-0", ""));
  s.set_task_status(plain, TaskStatus::Running, n);
  CHECK(s.job(id).roles.empty());  // nothing names a role: nothing counted
  CHECK(s.task(plain).role_index == kNone);
  const TaskId w = s.add_task(id, role_task("j-worker-0", "worker"));
  REQUIRE(s.job(id).roles.size() == 2);  // "" (j-0) and "worker"
  CHECK(s.job(id).roles[s.task(plain).role_index].count(TaskStatus::Running) == 1);
  CHECK(s.job(id).roles[s.task(w).role_index].count(TaskStatus::Pending) == 1);
  CHECK(s.check_invariants().empty());
  // A PodGroup that starts to name minTaskMember on a job that counted no roles.
  JobInfo k;
  k.name = "k";
  k.queue = 0;
  k.min_available = 1;
  const JobId kid = s.add_job(k);
  const TaskId k0 = s.add_task(kid, role_task("k-0", ""));
  s.set_task_status(k0, TaskStatus::Running, n);
  JobInfo spec = s.job(kid);
  spec.min_task_member = {{"", 1}};
  s.update_job(kid, spec);
  CHECK(s.job(kid).check_task_ready());  // role "" holds k-0
  spec.min_task_member = {{"", 2}};
  s.update_job(kid, spec);
  CHECK(s.job(kid).task_min_available_total == 2);
  CHECK(s.job(kid).check_task_ready());  // minAvailable 1 < 2: skipped
  CHECK(s.check_invariants().empty());
}

TEST_CASE("has_pending_tasks / not_ready_with_tasks follow the job's pods, by hand") {
  // A gang of minAvailable 2 with a BestEffort pod (requests nothing: it counts toward ready
  // while Pending, api/job_info.go ReadyTaskNum + pendingBestEffortTaskNum) and a normal pod.
  ClusterState s;
  s.add_queue(queue_named("q"));
  const NodeId n = s.add_node(big_node("n"));
  const JobId j = s.add_job(job_in(0, "gang", 2, Resource{}));
  using P = std::pair<bool, bool>;  // has_pending_tasks, not_ready_with_tasks
  auto flags = [&] { return P{s.has_pending_tasks(j), s.not_ready_with_tasks(j)}; };
  CHECK(flags() == P{false, false});  // no pods yet
  const TaskId be = s.add_task(j, pod("be", Resource{}));
  CHECK(flags() == P{false, true});   // Pending but BestEffort; ready 0 + 1 < 2
  const TaskId t = s.add_task(j, pod("t", req(1000, 0)));
  CHECK(flags() == P{true, true});
  s.set_task_status(t, TaskStatus::Bound, n);
  CHECK(flags() == P{false, false});  // ready 1 + 1 BestEffort = minAvailable
  JobInfo spec = s.job(j);
  spec.min_available = 3;
  s.update_job(j, spec);
  CHECK(flags() == P{false, true});   // 2 < 3
  s.remove_task(be);
  CHECK(flags() == P{false, true});   // ready 1 < 3
  s.set_task_status(t, TaskStatus::Pending);
  CHECK(flags() == P{true, true});
  CHECK(s.check_invariants().empty());
}

TEST_CASE("ChunkedVector: references stay valid as elements are added; copies are deep; moves leave it empty") {
  ChunkedVector<std::string, 2> v;  // chunks of 4: 37 elements span 10 chunks
  std::vector<const std::string*> at;
  for (int i = 0; i < 37; ++i) at.push_back(&v.emplace_back(std::to_string(i)));
  REQUIRE(v.size() == 37);
  for (int i = 0; i < 37; ++i) {
    CHECK(&v[i] == at[i]);  // never moved
    CHECK(v[i] == std::to_string(i));
  }
  ChunkedVector<std::string, 2> copy(v);
  copy[0] = "changed";
  copy.push_back("37");
  CHECK(v[0] == "0");
  CHECK(v.size() == 37);
  CHECK(copy.size() == 38);
  CHECK(copy.back() == "37");
  // Iteration in index order, as a random-access range.
  const std::vector<std::string> listed(v.begin(), v.end());
  CHECK(listed.size() == 37);
  CHECK(listed[36] == "36");
  const auto& cv = v;
  CHECK(std::find(cv.begin(), cv.end(), "12") - cv.begin() == 12);
  ChunkedVector<std::string, 2> moved(std::move(copy));
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  CHECK(moved.size() == 38);
  copy = moved;
  moved.clear();
  CHECK(moved.empty());
  CHECK(copy[37] == "37");
}
