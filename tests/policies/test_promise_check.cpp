// Scheduler::set_check_promises: every session is run again without the plugins' promises; a
// promise that does not hold shows as a different decision and fails the run at that session.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/testing/builders.hpp"
#include "session_fixture.hpp"

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

namespace {
/// An enqueue vote that promises VoteMonotonicity::PerQueue ("once I reject a job, I reject
/// every later job of its queue with minResources at least as large") and breaks it: it rejects
/// the job named "small" only.
class Liar final : public Plugin {
 public:
  std::string_view name() const override { return "liar"; }
  void on_session_open(Session& ssn) override {
    ssn.add_job_enqueueable_fn(
        [](const JobInfo& j, std::string_view& reason) {
          if (j.name != "small") return kAbstain;
          reason = "small jobs wait";
          return kReject;
        },
        VoteMonotonicity::PerQueue);
  }
};

SchedulerConfig with_liar() {
  SchedulerConfig c = volcano_default_config();
  PluginOption o;
  o.name = "liar";
  c.tiers.front().plugins.push_back(o);
  return c;
}

/// "small" (one 1-device pod, created first) and "big" (one 2-device pod) in one queue, both
/// Pending, on one trn1.32xlarge: room for both.
World two_jobs(JobId& small, JobId& big) {
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  small = w.job(JobBuilder("small", "default").pods(1, Pod().cpu(1).memory_gib(4).neuron_devices(1)).created(0));
  big = w.job(JobBuilder("big", "default").pods(1, Pod().cpu(1).memory_gib(4).neuron_devices(2)).created(1));
  return w;
}
}  // namespace

TEST_CASE("a broken VoteMonotonicity promise: silently a different decision; with the check, PromiseBroken at that session") {
  register_plugin("liar", [](const Arguments&) { return std::make_unique<Liar>(); });
  SUBCASE("without the check the promise is trusted: big is never asked, so it stays Pending") {
    // Enqueue orders small (created first) before big; the liar rejects small, and its promise
    // lets the memo reject big (same queue, minResources 2 devices >= 1) without asking.
    JobId small = 0, big = 0;
    World w = two_jobs(small, big);
    RecordingBackend be;
    Scheduler s(with_liar(), 1);
    settle(w, be, s);
    CHECK(w.state.job(small).phase == PodGroupPhase::Pending);
    CHECK(w.state.job(big).phase == PodGroupPhase::Pending);  // Volcano would admit it
  }
  SUBCASE("with the check the first session fails, naming the decision and the promise") {
    JobId small = 0, big = 0;
    World w = two_jobs(small, big);
    RecordingBackend be;
    be.world = &w;
    Scheduler s(with_liar(), 1);
    s.set_check_promises(true);
    w.state.set_now(1'000'000'000);
    std::string what;
    try {
      s.run_once(w.state, be);
    } catch (const PromiseBroken& e) {
      what = e.what();
    }
    CHECK_MESSAGE(what.find("promise check: session 1 at t = 1000000000 ns decided differently without the plugins' promises "
                            "(decision #1: with the promises: (none); without them: PodGroup big: Pending -> Inqueue)") == 0,
                  what);
    CHECK_MESSAGE(what.find("liar: job enqueueable VoteMonotonicity::PerQueue") != std::string::npos, what);
    // Nothing was admitted by the failed session's shadow: the real state is what the real
    // session decided.
    CHECK(w.state.job(big).phase == PodGroupPhase::Pending);
  }
  CHECK(unregister_plugin("liar"));
}

TEST_CASE("the built-in plugins keep their promises: the check passes and changes no decision") {
  // Two 4-node gangs on 4 nodes (one runs) and a small job: enqueue memo, spec reuse, static
  // job order are all in force with the default configuration.
  auto run = [](bool check) {
    World w;
    w.queue(QueueBuilder("default"));
    for (int i = 0; i < 4; ++i) w.node(NodeBuilder("n" + std::to_string(i)).trn1_32xlarge());
    const Pod full = Pod().cpu(100).memory_gib(400).neuron_devices(16).efa(8);
    w.job(JobBuilder("a", "default").pods(4, full).created(0));
    w.job(JobBuilder("b", "default").pods(4, full).created(1));
    w.job(JobBuilder("c", "default").pods(1, Pod().cpu(1).memory_gib(4)).created(2));
    RecordingBackend be;
    Scheduler s(volcano_default_config(), 7);
    s.set_check_promises(check);
    settle(w, be, s);
    return be.binds.size();
  };
  std::size_t checked = 0;
  CHECK_NOTHROW(checked = run(true));
  CHECK(checked == run(false));
  CHECK(checked == 5);  // one gang of 4 and c
}

TEST_CASE("a bind the API server refuses is refused in the check's session too") {
  // The check's session runs without promises after the real one and gets the real backend's
  // answers: a refused bind must not look like a broken promise (it did before: the check's
  // session had every bind succeed, so its job reasons differed).
  struct Refusing : RecordingBackend {
    int refused = 0;
    CallResult bind(const TaskInfo& t, const NodeInfo& n) override {
      if (refused < 2) {
        ++refused;
        return CallResult::failure("simulated API server error");
      }
      return RecordingBackend::bind(t, n);
    }
  };
  World w;
  w.queue(QueueBuilder("default"));
  w.node(NodeBuilder("n0").trn1_32xlarge());
  w.job(JobBuilder("a", "default").pods(2, Pod().cpu(1).memory_gib(4)).created(0));
  Refusing be;
  be.world = &w;
  Scheduler s(volcano_default_config(), 7);
  s.set_check_promises(true);
  CHECK_NOTHROW(settle(w, be, s));
  CHECK(be.refused == 2);
  CHECK(be.binds.size() == 2);  // bound in a later cycle, as Volcano's resync does
}
