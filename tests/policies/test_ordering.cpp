// Orders applied whatever the comparator answers (policies/src/ordering.hpp), and the session's
// report of an order that is not a strict weak order. Under AddressSanitizer (make
// test-sanitize) an index that left a range would fail these cases; std::sort with the "always
// true" or random comparators below reads past the end of the vector.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../policies/src/ordering.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::detail;
using namespace mltwin::policy::testing;

namespace {

struct Violation {
  int first, second;
};

/// A comparator over ints given as a function; counts its calls; violated() throws Violation.
struct Cmp {
  std::function<bool(int, int)> f;
  long* calls = nullptr;
  bool operator()(int a, int b) const {
    if (calls) ++*calls;
    return f(a, b);
  }
  [[noreturn]] void violated(int first, int second) const { throw Violation{first, second}; }
};

std::vector<int> shuffled(int n, std::uint64_t seed) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

bool same_elements(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

/// Comparators that are not strict weak orders.
std::vector<std::pair<const char*, std::function<bool(int, int)>>> bad_orders(std::mt19937_64& rng) {
  return {
      {"always true", [](int, int) { return true; }},
      {"less-or-equal", [](int a, int b) { return a / 4 <= b / 4; }},
      {"at random", [&rng](int, int) { return rng() % 3 == 0; }},
      {"rock-paper-scissors", [](int a, int b) { return (b % 3 - a % 3 + 3) % 3 == 1; }},
  };
}

}  // namespace

TEST_CASE("merge_sort: std::stable_sort's result for a strict weak order, within n log2 n comparisons") {
  for (int n : {0, 1, 2, 3, 7, 64, 1000, 4097}) {
    CAPTURE(n);
    std::vector<int> v = shuffled(n, static_cast<std::uint64_t>(n));
    // Key only the tens: many equal keys, so stability shows.
    auto by_tens = [](int a, int b) { return a / 10 < b / 10; };
    std::vector<int> expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_tens);
    long calls = 0;
    Cmp cmp{by_tens, &calls};
    sort_checked(v, cmp);  // a valid order: the check passes
    CHECK(v == expected);
    // Merge sort: at most n * ceil(log2 n) comparisons, plus the check's n - 1.
    const double bound = n < 2 ? 0 : n * std::ceil(std::log2(n)) + (n - 1);
    CHECK(calls <= static_cast<long>(bound));
  }
  // Already sorted: each merge costs one comparison (the runs are in order), then the check.
  std::vector<int> sorted(1024);
  std::iota(sorted.begin(), sorted.end(), 0);
  long calls = 0;
  sort_checked(sorted, Cmp{std::less<int>(), &calls});
  CHECK(calls == 1023 + 1023);
}

TEST_CASE("merge_sort under a comparator that is not a strict weak order stays in bounds; the check names a pair") {
  std::mt19937_64 rng(11);
  for (auto& named : bad_orders(rng)) {
    const char* name = named.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    auto& order = named.second;
    for (int n : {2, 3, 17, 500}) {
      CAPTURE(name);
      CAPTURE(n);
      const std::vector<int> input = shuffled(n, 3);
      std::vector<int> v = input;
      merge_sort(v, Cmp{order});
      CHECK(same_elements(v, input));  // a permutation: nothing lost, nothing duplicated
      if (std::string(name) == "always true") {
        // Every adjacent pair is "out of order": the first one is reported.
        v = input;
        bool thrown = false;
        try {
          sort_checked(v, Cmp{order});
        } catch (const Violation& x) {
          thrown = true;
          CHECK(order(x.second, x.first));
        }
        CHECK(thrown);
        CHECK(same_elements(v, input));
      }
    }
  }
  // At random, over 500 elements, some adjacent pair is out of order: the check fails.
  std::vector<int> v = shuffled(500, 5);
  CHECK_THROWS_AS(sort_checked(v, Cmp{[&rng](int, int) { return rng() % 3 == 0; }}), Violation);
}

TEST_CASE("merge_sort: a comparator that throws leaves the vector unchanged") {
  const std::vector<int> input = shuffled(100, 9);
  std::vector<int> v = input;
  long calls = 0;
  Cmp cmp{[&calls](int a, int b) {
            if (calls == 300) throw std::runtime_error("plugin bug");
            return a < b;
          },
          &calls};
  CHECK_THROWS_AS(merge_sort(v, cmp), std::runtime_error);
  CHECK(v == input);
}

TEST_CASE("merge_tail_checked: std::merge's result; a tail that goes at the end costs two comparisons per element") {
  std::vector<int> a = {1, 3, 5, 7, 9, 11}, b = {0, 4, 4, 12};
  std::vector<int> expected;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
  std::vector<int> v = a;
  v.insert(v.end(), b.begin(), b.end());
  // B's 0 goes first: everything from index 0 moved.
  CHECK(merge_tail_checked(v, a.size(), Cmp{std::less<int>()}) == 0);
  CHECK(v == expected);
  // A tail of {6, 13} after {1, 3, 5, 7, 9, 11}: 1, 3, 5 keep their places, 6 lands at index 3.
  v = {1, 3, 5, 7, 9, 11, 6, 13};
  CHECK(merge_tail_checked(v, 6, Cmp{std::less<int>()}) == 3);
  CHECK(v == std::vector<int>{1, 3, 5, 6, 7, 9, 11, 13});
  // No tail, or no head: nothing before `mid` moved.
  v = {1, 2};
  CHECK(merge_tail_checked(v, 2, Cmp{std::less<int>()}) == 2);
  CHECK(merge_tail_checked(v, 0, Cmp{std::less<int>()}) == 0);
  // Stability: equal keys of A stay ahead of B's.
  v = {10, 20, 21, 30};  // A = {10, 20}, B = {21, 30}, keyed by tens
  merge_tail_checked(v, 2, Cmp{[](int x, int y) { return x / 10 < y / 10; }});
  CHECK(v == std::vector<int>{10, 20, 21, 30});
  v = {20, 30, 10, 21};  // A = {20, 30}, B = {10, 21}
  merge_tail_checked(v, 2, Cmp{[](int x, int y) { return x / 10 < y / 10; }});
  CHECK(v == std::vector<int>{10, 20, 21, 30});
  // One new element at the end of 1000: one comparison to place it, one to check the new pair.
  std::vector<int> big(1000);
  std::iota(big.begin(), big.end(), 0);
  big.push_back(5000);
  long calls = 0;
  CHECK(merge_tail_checked(big, 1000, Cmp{std::less<int>(), &calls}) == 1000);
  CHECK(calls == 2);
  // A comparator that puts everything first is caught at a new pair.
  v = {1, 2, 3, 4};
  CHECK_THROWS_AS(merge_tail_checked(v, 2, Cmp{[](int, int) { return true; }}), Violation);
  CHECK(same_elements(v, {1, 2, 3, 4}));
  // Throwing mid-merge leaves a permutation.
  v = {1, 3, 5, 7, 0, 2, 4, 6};
  calls = 0;
  Cmp thrower{[&calls](int x, int y) {
                if (calls == 3) throw std::runtime_error("plugin bug");
                return x < y;
              },
              &calls};
  CHECK_THROWS_AS(merge_tail_checked(v, 4, thrower), std::runtime_error);
  CHECK(same_elements(v, {0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_CASE("PriorityQueue: pops in order, as std::priority_queue, within Floyd's comparison bounds") {
  std::mt19937_64 rng(3);
  PriorityQueue<int, Cmp> pq{Cmp{std::less<int>()}};
  std::priority_queue<int, std::vector<int>, std::greater<int>> ref;
  for (int step = 0; step < 5000; ++step) {
    if (rng() % 3 != 0 || ref.empty()) {
      const int x = static_cast<int>(rng() % 1000);
      pq.push(x);
      ref.push(x);
    } else {
      REQUIRE(pq.pop() == ref.top());
      ref.pop();
    }
  }
  while (!ref.empty()) {
    REQUIRE(pq.pop() == ref.top());
    ref.pop();
  }
  CHECK(pq.empty());
  // Building a heap of n: at most 2n comparisons (Floyd), plus the n - 1 of the check; popping
  // all: at most 2 log2 n each.
  const int n = 4096;
  long calls = 0;
  PriorityQueue<int, Cmp> h{Cmp{std::less<int>(), &calls}};
  h.assign(shuffled(n, 1));
  CHECK(calls <= 2 * n + (n - 1));
  calls = 0;
  for (int i = 0; i < n; ++i) REQUIRE(h.pop() == i);
  CHECK(calls <= static_cast<long>(n * 2 * std::log2(n)));
}

TEST_CASE("PriorityQueue::replace_top: the pops of pop() then push(x), two comparisons when x still goes first") {
  // Keys change while their element is out at the top (a job's share after allocate handles
  // it): replace_top and pop-then-push must pop the same sequence (std::priority_queue as the
  // reference) under a strict total order.
  std::mt19937_64 rng(5);
  std::vector<int> key(600);
  for (auto& k : key) k = static_cast<int>(rng() % 1000);
  auto by_key = [&key](int a, int b) { return key[static_cast<std::size_t>(a)] != key[static_cast<std::size_t>(b)] ? key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)] : a < b; };
  PriorityQueue<int, Cmp> pq{Cmp{by_key}};
  auto greater = [&](int a, int b) { return by_key(b, a); };
  std::vector<int> ref;  // a heap of ids, re-made after each key change (std::make_heap)
  for (int i = 0; i < 200; ++i) pq.push(i), ref.push_back(i);
  std::make_heap(ref.begin(), ref.end(), greater);
  int next = 200;
  for (int step = 0; step < 3000 && !ref.empty(); ++step) {
    const int x = pq.top();
    REQUIRE(x == ref.front());
    std::pop_heap(ref.begin(), ref.end(), greater);
    ref.pop_back();
    const int what = static_cast<int>(rng() % 4);
    if (what == 0) {  // done with it
      pq.pop();
      continue;
    }
    if (what == 1) key[static_cast<std::size_t>(x)] += static_cast<int>(rng() % 50);  // its order changed
    pq.replace_top(x);
    ref.push_back(x);
    std::push_heap(ref.begin(), ref.end(), greater);
    if (next < 600 && rng() % 2 == 0) pq.push(next), ref.push_back(next), std::push_heap(ref.begin(), ref.end(), greater), ++next;
  }
  // An element put back unchanged at the top of 1,000: two comparisons.
  long calls = 0;
  PriorityQueue<int, Cmp> h{Cmp{std::less<int>(), &calls}};
  h.assign(shuffled(1000, 2));
  calls = 0;
  h.replace_top(h.top());
  CHECK(calls == 2);
  CHECK(h.pop() == 0);
}

TEST_CASE("PriorityQueue under a comparator that is not a strict weak order stays in bounds and loses nothing") {
  std::mt19937_64 rng(17);
  for (auto& named : bad_orders(rng)) {
    const char* name = named.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    auto& order = named.second;
    CAPTURE(name);
    PriorityQueue<int, Cmp> pq{Cmp{order}};
    std::vector<int> in, out;
    for (int step = 0; step < 3000; ++step) {
      if (step % 3 == 2 && !pq.empty()) {
        out.push_back(pq.pop());
      } else {
        in.push_back(step);
        pq.push(step);
      }
    }
    while (!pq.empty()) out.push_back(pq.pop());
    CHECK(same_elements(in, out));
  }
  // Built from a list, a heap whose order says "everything first" fails its check.
  PriorityQueue<int, Cmp> all_first{Cmp{[](int, int) { return true; }}};
  CHECK_THROWS_AS(all_first.assign(shuffled(10, 2)), Violation);
  // A comparator that throws during a pop leaves every element in the heap.
  bool armed = false;
  PriorityQueue<int, Cmp> h{Cmp{[&armed](int a, int b) {
    if (armed) throw std::runtime_error("plugin bug");
    return a < b;
  }}};
  h.assign(shuffled(40, 4));
  for (int i = 0; i < 10; ++i) CHECK(h.pop() == i);
  armed = true;
  const std::size_t before = h.size();
  CHECK_THROWS_AS(h.pop(), std::runtime_error);
  CHECK(h.size() == before);
}

// ---- the session's report, with plugins registered for the test ----

namespace {
struct Probe final : Plugin {
  std::string n;
  std::function<void(Session&)> open;
  std::string_view name() const override { return n; }
  void on_session_open(Session& s) override { open(s); }
};

void probe(const std::string& name, std::function<void(Session&)> open) {
  register_plugin(name, [name, open](const Arguments&) {
    auto p = std::make_unique<Probe>();
    p->n = name;
    p->open = open;
    return p;
  });
}

/// Volcano's default configuration with `plugin` first in the first tier.
SchedulerConfig with_first(const std::string& plugin) {
  SchedulerConfig c = volcano_default_config();
  c.tiers[0].plugins.insert(c.tiers[0].plugins.begin(), PluginOption{plugin, {}, {}});
  return c;
}

World pending_jobs(int n) {
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  for (int i = 0; i < n; ++i) w.job(JobBuilder("j" + std::to_string(i), "default").pods(1, Pod().neuron_devices(1)).created(i));
  return w;
}

std::string error_of(World& w, const SchedulerConfig& cfg) {
  RecordingBackend be;
  be.world = &w;
  Scheduler s(cfg, 1);
  w.state.set_now(1'000'000'000);
  try {
    s.run_once(w.state, be);
  } catch (const PluginError& e) {
    return e.plugin() + " | " + e.callback() + " | " + e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a job order that answers -1 both ways stops the cycle with an error naming the plugin") {
  probe("t_both_first", [](Session& s) { s.add_job_order_fn([](const JobInfo&, const JobInfo&) { return -1; }); });
  World w = pending_jobs(20);
  const std::string e = error_of(w, with_first("t_both_first"));
  CHECK(e.find("t_both_first | job order function (add_job_order_fn) | plugin 't_both_first': its job order function "
               "(add_job_order_fn) is not a strict weak order: it answered -1 for (job '") == 0);
  CHECK(e.find("and -1 for (job '") != std::string::npos);
}

TEST_CASE("a job order answering at random is caught (enqueue sorts and checks every cycle)") {
  auto rng = std::make_shared<std::mt19937_64>(5);
  probe("t_random_order", [rng](Session& s) {
    s.add_job_order_fn([rng](const JobInfo&, const JobInfo&) { return static_cast<int>((*rng)() % 3) - 1; });
  });
  World w = pending_jobs(200);
  const std::string e = error_of(w, with_first("t_random_order"));
  CHECK(e.find("t_random_order | job order function (add_job_order_fn) | plugin 't_random_order': its job order "
               "function (add_job_order_fn) is not a strict weak order") == 0);
}

TEST_CASE("after a job order fault stops a cycle, the next cycle's enqueue starts again from the Pending set") {
  // One trn1.32xlarge (16 Neuron devices; overcommit's budget 1.2 x 16 = 19.2), jobs of one
  // 4-device pod. Cycle 1: j0-j3 go Inqueue (16 <= 19.2; j4 would make 20) and are placed.
  // Then j0-j3 are gone, j6 and j7 arrive and the probe's job order turns faulty: cycle 2's
  // enqueue reads j0-j3's departures and j6, j7's arrivals from the state's log and throws while
  // it sorts the arrivals. With the order sound again, cycle 3 must admit j4-j7 (16 devices):
  // an action that trusted what it kept from cycle 2 had lost j6 and j7 (read, never merged).
  auto faulty = std::make_shared<bool>(false);
  probe("t_flaky_order", [faulty](Session& s) {
    s.add_job_order_fn([faulty](const JobInfo&, const JobInfo&) { return *faulty ? -1 : 0; });
  });
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  std::vector<JobId> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(w.job(JobBuilder("j" + std::to_string(i), "default").pods(1, Pod().neuron_devices(4)).created(i)));
  RecordingBackend be;
  be.world = &w;
  Scheduler s(with_first("t_flaky_order"), 1);
  w.state.set_now(1'000'000'000);
  s.run_once(w.state, be);
  for (int i = 0; i < 6; ++i)
    CHECK_MESSAGE(w.state.job(ids[i]).is_pending() == (i >= 4), "cycle 1, job j" << i);
  for (int i = 0; i < 4; ++i) w.state.remove_job(ids[i]);
  for (int i = 6; i < 8; ++i) ids.push_back(w.job(JobBuilder("j" + std::to_string(i), "default").pods(1, Pod().neuron_devices(4)).created(i)));
  *faulty = true;
  w.state.set_now(2'000'000'000);
  CHECK_THROWS_AS(s.run_once(w.state, be), PluginError);
  *faulty = false;
  w.state.set_now(3'000'000'000);
  s.run_once(w.state, be);
  for (int i = 4; i < 8; ++i) CHECK_MESSAGE(!w.state.job(ids[i]).is_pending(), "cycle 3, job j" << i);
}

TEST_CASE("a session a plugin's exception stops is abandoned: the state holds what the backend was told") {
  // One trn1.32xlarge (16 Neuron devices). j0 and j1 are Inqueue with a 4-device pod each, j2
  // is Pending (no pods until the controller hears Inqueue). Cycle 1: enqueue admits j2 (state
  // only: the backend hears phase changes at close), allocate commits j0 (the backend refuses the
  // bind) and then the plugin throws while j1 is allocated. The session must be abandoned: j0's
  // refused bind Pending again (a Binding task nobody binds would hold its 4 devices for good), j1
  // Pending, j2's PodGroup Pending again (Inqueue without pods, never to get them, else), and the
  // statement being built undone without event handlers (its deallocate handler throws too: a
  // handler called while the exception unwinds would end the process). Cycle 2 on, with the
  // plugin quiet and binds accepted: j0 and j1 are bound, j2 admitted and then bound.
  auto armed = std::make_shared<bool>(true);
  probe("t_throw_on_allocate", [armed](Session& s) {
    s.add_event_handler(
        [armed, &s](const TaskInfo& t) {
          if (*armed && s.state().job(t.job).name == "j1") throw std::runtime_error("t_throw_on_allocate: j1");
        },
        [armed](const TaskInfo&) {
          if (*armed) throw std::runtime_error("t_throw_on_allocate: a deallocate handler called");
        });
  });
  struct Refusing : RecordingBackend {
    bool refuse = true;
    CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
      RecordingBackend::bind(t, n);
      return refuse ? CallResult::failure("refused by the test") : CallResult::success();
    }
  } be;
  World w;
  w.queue(QueueBuilder("default"));
  const NodeId n0 = w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j0 = w.job(JobBuilder("j0", "default").pods(1, Pod().neuron_devices(4)).inqueue().created(0));
  const JobId j1 = w.job(JobBuilder("j1", "default").pods(1, Pod().neuron_devices(4)).inqueue().created(1));
  const JobId j2 = w.job(JobBuilder("j2", "default").pods(1, Pod().neuron_devices(4)).created(2));
  be.world = &w;
  Scheduler s(with_first("t_throw_on_allocate"), 1);
  const Resource idle_before = w.state.node(n0).idle;
  w.state.set_now(1'000'000'000);
  CHECK_THROWS_WITH_AS(s.run_once(w.state, be), "t_throw_on_allocate: j1", std::runtime_error);
  REQUIRE(be.binds.size() == 1);
  CHECK(be.binds[0].job == j0);
  CHECK(w.state.task(w.state.job(j0).tasks.at(0)).status == TaskStatus::Pending);
  CHECK(w.state.task(w.state.job(j1).tasks.at(0)).status == TaskStatus::Pending);
  CHECK(w.state.job(j2).phase == PodGroupPhase::Pending);
  CHECK(w.state.node(n0).idle == idle_before);
  CHECK(be.phases.empty());
  *armed = false;
  be.refuse = false;
  for (int c = 2; c <= 4; ++c) {
    w.state.set_now(c * 1'000'000'000LL);
    s.run_once(w.state, be);
  }
  CHECK(be.binds_of(j0) == 2);  // the refused bind, then the accepted one
  CHECK(be.binds_of(j1) == 1);
  CHECK(be.binds_of(j2) == 1);
}

TEST_CASE("a backend that throws from bind stops the commit: the pods it was not told of are Pending again") {
  // j0 is a gang of two 4-device pods on one trn1.32xlarge. The backend binds the first and
  // throws on the second (a Backend should answer with CallResult; this one does not). The first
  // pod stays Binding (the backend has it); the second is Pending, its devices idle again, and the
  // next cycle binds it: three bind calls in all. Left Binding, it would never be bound.
  struct Throwing : RecordingBackend {
    int throw_at = 2;  // the bind call that throws (1-based); 0: none
    CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
      RecordingBackend::bind(t, n);
      if (static_cast<int>(binds.size()) == throw_at) throw std::runtime_error("the API server went away");
      return CallResult::success();
    }
  } be;
  World w;
  w.queue(QueueBuilder("default"));
  const NodeId n0 = w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j0 = w.job(JobBuilder("j0", "default").pods(2, Pod().neuron_devices(4)).inqueue().created(0));
  Scheduler s(volcano_default_config(), 1);
  const double devices = w.state.node(n0).idle.get(rn::kNeuronDevice);
  w.state.set_now(1'000'000'000);
  CHECK_THROWS_WITH_AS(s.run_once(w.state, be), "the API server went away", std::runtime_error);
  const TaskId first = be.binds.at(0).task, second = be.binds.at(1).task;
  CHECK(w.state.task(first).status == TaskStatus::Binding);
  CHECK(w.state.task(second).status == TaskStatus::Pending);
  CHECK(w.state.node(n0).idle.get(rn::kNeuronDevice) == devices - 4000);  // milli-units: 4 devices held
  be.throw_at = 0;
  w.state.set_now(2'000'000'000);
  s.run_once(w.state, be);
  CHECK(be.binds_of(j0) == 3);
  CHECK(be.binds.back().task == second);
}

namespace {
struct ThrowOnClose final : Plugin {
  std::shared_ptr<bool> armed;
  std::string_view name() const override { return "t_throw_on_close"; }
  void on_session_open(Session&) override {}
  void on_session_close(Session&) override {
    if (*armed) throw std::runtime_error("t_throw_on_close");
  }
};
}  // namespace

TEST_CASE("a deallocate handler that throws while a statement is discarded: every op is still undone") {
  // A 3-pod gang of 8 devices each on one trn1.32xlarge (16): allocate places two pods, the job
  // is not ready, its statement is discarded, and the deallocate handler throws at the first
  // undo. The other pod must be undone too: none Allocated, all 16 devices idle, then and after.
  auto armed = std::make_shared<bool>(true);
  probe("t_throw_on_deallocate", [armed](Session& s) {
    s.add_event_handler(nullptr, [armed](const TaskInfo&) {
      if (*armed) throw std::runtime_error("t_throw_on_deallocate");
    });
  });
  RecordingBackend be;
  World w;
  w.queue(QueueBuilder("default"));
  const NodeId n0 = w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j0 = w.job(JobBuilder("j0", "default").pods(3, Pod().neuron_devices(8)).inqueue());
  Scheduler s(with_first("t_throw_on_deallocate"), 1);
  const Resource idle_before = w.state.node(n0).idle;
  w.state.set_now(1'000'000'000);
  CHECK_THROWS_WITH_AS(s.run_once(w.state, be), "t_throw_on_deallocate", std::runtime_error);
  CHECK(be.binds.empty());
  for (TaskId t : w.state.job(j0).tasks) CHECK(w.state.task(t).status == TaskStatus::Pending);
  CHECK(w.state.node(n0).idle == idle_before);
  *armed = false;
  for (int c = 2; c <= 4; ++c) {
    w.state.set_now(c * 1'000'000'000LL);
    s.run_once(w.state, be);
  }
  CHECK(w.state.node(n0).idle == idle_before);
}

TEST_CASE("a job whose pod was bound in an abandoned session keeps moving: Running at the next close") {
  // j0's PodGroup is Pending with its pod (a 16-device pod: the whole node). Enqueue admits it,
  // allocate binds it (accepted), then a plugin throws at close. Put back to Pending, the
  // PodGroup would stay there (close moves on only the jobs past Pending, and overcommit counts
  // its own pod against it); put back to Inqueue, the next close finds it Running and says so.
  auto armed = std::make_shared<bool>(true);
  register_plugin("t_throw_on_close", [armed](const Arguments&) {
    auto p = std::make_unique<ThrowOnClose>();
    p->armed = armed;
    return p;
  });
  RecordingBackend be;
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j0 = w.job(JobBuilder("j0", "default").pods(1, Pod().neuron_devices(16)).phase(PodGroupPhase::Pending));
  Scheduler s(with_first("t_throw_on_close"), 1);
  w.state.set_now(1'000'000'000);
  CHECK_THROWS_WITH_AS(s.run_once(w.state, be), "t_throw_on_close", std::runtime_error);
  REQUIRE(be.binds_of(j0) == 1);
  CHECK(w.state.task(w.state.job(j0).tasks.at(0)).status == TaskStatus::Binding);
  *armed = false;
  w.state.set_now(2'000'000'000);
  s.run_once(w.state, be);
  CHECK(w.state.job(j0).phase == PodGroupPhase::Running);
  REQUIRE(be.phases.size() == 1);
  CHECK(std::get<2>(be.phases[0]) == PodGroupPhase::Running);
}

TEST_CASE("a backend that throws from podgroup_phase_changed at close: the phases it heard stay, each told once") {
  // j0 and j1 are bound in one session; close tells the backend j0 Inqueue -> Running, and the
  // backend throws on j1's. j0 must stay Running (the backend has it) and not be told again;
  // j1 goes on to Running in the next cycle, told once.
  struct Throwing : RecordingBackend {
    int calls = 0;
    bool armed = true;
    void podgroup_phase_changed(const JobInfo& j, PodGroupPhase from, PodGroupPhase to) override {
      if (armed && ++calls == 2) throw std::runtime_error("the API server went away");
      RecordingBackend::podgroup_phase_changed(j, from, to);
    }
  } be;
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  const JobId j0 = w.job(JobBuilder("j0", "default").pods(1, Pod().neuron_devices(4)).inqueue().created(0));
  const JobId j1 = w.job(JobBuilder("j1", "default").pods(1, Pod().neuron_devices(4)).inqueue().created(1));
  Scheduler s(volcano_default_config(), 1);
  w.state.set_now(1'000'000'000);
  CHECK_THROWS_WITH_AS(s.run_once(w.state, be), "the API server went away", std::runtime_error);
  REQUIRE(be.phases.size() == 1);
  const JobId told = std::get<0>(be.phases[0]), other = told == j0 ? j1 : j0;
  CHECK(std::get<2>(be.phases[0]) == PodGroupPhase::Running);
  CHECK(w.state.job(told).phase == PodGroupPhase::Running);
  be.armed = false;
  w.state.set_now(2'000'000'000);
  s.run_once(w.state, be);
  int told_reports = 0, other_reports = 0;
  for (const auto& p : be.phases) told_reports += std::get<0>(p) == told, other_reports += std::get<0>(p) == other;
  CHECK(told_reports == 1);
  CHECK(other_reports == 1);
  CHECK(w.state.job(other).phase == PodGroupPhase::Running);
}

TEST_CASE("a task order answering -1 both ways is caught when allocate builds a job's task heap") {
  probe("t_task_both_first", [](Session& s) { s.add_task_order_fn([](const TaskInfo&, const TaskInfo&) { return -1; }); });
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  w.job(JobBuilder("j", "default").pods(4, Pod().neuron_devices(1)).inqueue().created(0));
  const std::string e = error_of(w, with_first("t_task_both_first"));
  CHECK(e.find("t_task_both_first | task order function (add_task_order_fn) | plugin 't_task_both_first': its task "
               "order function (add_task_order_fn) is not a strict weak order: it answered -1 for (task '") == 0);
}

TEST_CASE("order_violated: a plugin consistent on the pair that now reverses it is named as not transitive") {
  // Rock-paper-scissors by creation time: each pair is answered consistently, but a -> b -> c -> a.
  probe("t_rps", [](Session& s) {
    s.add_job_order_fn([](const JobInfo& l, const JobInfo& r) {
      const auto d = ((r.creation - l.creation) % 3 + 3) % 3;
      return d == 1 ? -1 : d == 2 ? 1 : 0;
    });
  });
  World w = pending_jobs(3);
  RecordingBackend be;
  std::mt19937_64 rng(1);
  SchedulerConfig cfg = with_first("t_rps");
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  // j0 before j1 (d = 1), j1 before j2, j2 before j0. Say j0 was placed before j2:
  CHECK(s.job_order(w["j2"], w["j0"]));
  try {
    s.job_order_violated(w["j0"], w["j2"]);
    FAIL("no error");
  } catch (const PluginError& e) {
    CHECK(e.plugin() == "t_rps");
    CHECK(std::string(e.what()) ==
          "plugin 't_rps': its job order function (add_job_order_fn) is not a strict weak order: job 'j0' was placed "
          "before job 'j2' by comparisons with other elements, but its answer now puts job 'j2' first (the order is "
          "not transitive, or its answers changed during one sort)");
  }
  s.close();
}

TEST_CASE("a node score that is NaN or infinite is an error naming the plugin") {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::infinity()}) {
    CAPTURE(bad);
    probe("t_bad_score", [bad](Session& s) { s.add_node_order_fn([bad](const TaskInfo&, const NodeInfo&) { return bad; }); });
    probe("t_bad_batch", [bad](Session& s) {
      s.add_batch_node_order_fn([bad](const TaskInfo&, std::span<const NodeId>, std::span<double> out) { out[0] += bad; });
    });
    for (const char* plugin : {"t_bad_score", "t_bad_batch"}) {
      World w;
      w.queue(QueueBuilder("default"));
      w.node(NodeBuilder("n0").trn1_32xlarge());
      w.node(NodeBuilder("n1").trn1_32xlarge());
      w.job(JobBuilder("j", "default").pods(1, Pod().neuron_devices(1)).inqueue().created(0));
      SchedulerConfig cfg = volcano_default_config();
      cfg.tiers[1].plugins.push_back(PluginOption{plugin, {}, {}});
      const std::string e = error_of(w, cfg);
      CAPTURE(e);
      CHECK(e.find(std::string(plugin) + " | ") == 0);
      CHECK(e.find("scored node 'n0' for task '") != std::string::npos);
      CHECK(e.find(": a score must be a finite number") != std::string::npos);
    }
  }
}
