// The run summary (io/report.hpp): per-queue job counts by final phase, including jobs still
// running when a run stops early (--until), from a real run of tests/scenarios/tiny-gang.json
// and from a hand-made summary whose printed text is pinned line by line.
//
// tiny-gang: 4 whole-node trn1.32xlarge nodes, queue "default"; jobs a and b (4 nodes, 1 h)
// submitted at 0 s, c (2 nodes, 30 min) at 10 min. a is placed first and runs 0 s .. ~1 h;
// b and c wait for it. Stopped at 30 min: a Running, b and c Pending.
#include <doctest/doctest.h>

#include <memory>
#include <sstream>
#include <string>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;

namespace {

class NullRecorder final : public models::TrainingRecorder {
 public:
  void job_submitted(const models::JobSubmitted&) override {}
  void job_final(const models::JobFinal&) override {}
  void pod_event(const models::PodEvent&) override {}
  void decision(const models::Decision&) override {}
  void phase_change(const models::PhaseChange&) override {}
  void sample(const models::ClusterSample&) override {}
  void checkpoint(core::Time) override {}
  void step_period(const models::StepPeriod&) override {}
  void node_launched(const models::NodeLaunched&) override {}
  void node_ended(const models::NodeEnded&) override {}
};

/// Runs tiny-gang until `until` (Time::max(): to the end) and returns its printed summary.
std::string tiny_gang_summary(core::Time until, io::RunSummary* out = nullptr) {
  const io::LoadedScenario sc = io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/tests/scenarios/tiny-gang.json");
  core::Simulator sim;
  core::RngStreams rng(sc.seed);
  NullRecorder rec;
  models::TrainingCluster cluster(sc.training, sim, rng, rec);
  cluster.start();
  core::Time end;
  if (until == core::Time::max()) {
    sim.run();
    end = cluster.last_event();
  } else {
    sim.run_until(until);
    end = until;
  }
  cluster.finish(end);
  const io::RunSummary s = io::summarize(sc.name, sc.seed, sc.training, cluster, end.seconds());
  if (out != nullptr) *out = s;
  std::ostringstream os;
  io::print_summary(os, s);
  return os.str();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("summary: a run stopped early counts each queue's running and pending jobs") {
  io::RunSummary s;
  const std::string text = tiny_gang_summary(core::Time::zero() + core::Duration::s(1800), &s);
  REQUIRE(s.queues.size() == 1);
  CHECK(s.queues[0].queue == "default");
  CHECK(s.queues[0].submitted == 3);
  CHECK(s.queues[0].completed == 0);
  CHECK(s.queues[0].running == 1);
  CHECK(s.queues[0].pending == 2);
  CHECK(s.queues[0].refused == 0);
  CHECK_MESSAGE(contains(text, "\n default: 3 submitted, 0 completed, 1 running, 2 pending\n"), text);
  CHECK_MESSAGE(contains(text, "Jobs per final phase:  Pending 2  Running 1\n"), text);
}

TEST_CASE("summary: a completed run has no running or pending jobs") {
  io::RunSummary s;
  const std::string text = tiny_gang_summary(core::Time::max(), &s);
  REQUIRE(s.queues.size() == 1);
  CHECK(s.queues[0].running == 0);
  CHECK(s.queues[0].pending == 0);
  CHECK(s.queues[0].completed == 3);
  CHECK_MESSAGE(contains(text, "\n default: 3 submitted, 3 completed, 0 running, 0 pending\n"), text);
}

TEST_CASE("summary: a distribution over no job prints no statistic") {
  // Every job refused: nothing was placed or completed, so there is no mean or percentile to
  // print (not a mean of 0 s).
  io::RunSummary s;
  s.scenario = "all-refused";
  s.jobs = 1;
  s.phases = {{"Refused", 1}};
  s.queueing_s = io::Distribution::of({});
  s.jct_s = io::Distribution::of({});
  std::ostringstream os;
  io::print_summary(os, s);
  const std::string out = os.str();
  CHECK_MESSAGE(contains(out, "  all                    n=0      -\n"), out);
  CHECK_MESSAGE(!contains(out, "mean     0.0s"), out);
}

TEST_CASE("summary: the printed text, line by line") {
  // Everything but the per-queue count line is as before running jobs were counted.
  io::RunSummary s;
  s.scenario = "demo";
  s.seed = 7;
  s.sim_end_s = 3 * 86400;
  s.makespan_s = 90;
  s.jobs = 4;
  s.phases = {{"Completed", 1}, {"Pending", 1}, {"Refused", 1}, {"Running", 1}};
  s.queueing_s = io::Distribution::of({10, 30});
  s.jct_s = io::Distribution::of({90});
  io::QueueSummary q;
  q.queue = "vc-a";
  q.submitted = 4;
  q.completed = 1;
  q.running = 1;
  q.pending = 1;
  q.refused = 1;
  q.queueing_s = s.queueing_s;
  q.jct_s = s.jct_s;
  s.queues = {q};
  s.neuroncores = 64;
  s.allocation_ratio = 0.25;
  s.weekly_allocation_ratio = {0.25};
  s.sessions = 5;
  s.cycles = 20;
  s.binds = 3;
  s.discarded = 1;
  s.cost_usd = 1548;
  std::ostringstream os;
  io::print_summary(os, s);
  const std::string expected =
      "mltwin run summary — scenario demo (seed 7)\n"
      "Simulated 3.0d (259200 s); makespan 90.0s; 4 jobs\n"
      "Jobs per final phase:  Completed 1  Pending 1  Refused 1  Running 1\n"
      "\n"
      "Queueing delay (submit -> gang placed), all jobs:\n"
      "  all                    n=2      mean    20.0s  p50    20.0s  p95    29.0s  p99    29.8s\n"
      "Job completion time (submit -> last pod succeeded):\n"
      "  all                    n=1      mean    90.0s  p50    90.0s  p95    90.0s  p99    90.0s\n"
      "\n"
      "Per queue (queueing delay / JCT):\n"
      " vc-a: 4 submitted, 1 completed, 1 running, 1 pending, 1 refused\n"
      "  queueing               n=2      mean    20.0s  p50    20.0s  p95    29.0s  p99    29.8s\n"
      "  JCT                    n=1      mean    90.0s  p50    90.0s  p95    90.0s  p99    90.0s\n"
      "\n"
      "NeuronCore allocation ratio (time-weighted): 0.250\n"
      "  per week:\n"
      "   w1 0.25\n"
      "\n"
      "Scheduler: 5 sessions opened over 20 cycles (25.00%); 3 binds; 1 statements discarded\n"
      "On-demand cost of the node groups over the run: $1548\n";
  CHECK(os.str() == expected);
  // A cluster without NeuronCores has no ratio (not -nan); a cost under $1,000 shows cents.
  s.neuroncores = 0;
  s.allocation_ratio = 0;
  s.weekly_allocation_ratio.clear();
  s.cost_usd = 12.345;
  std::ostringstream os2;
  io::print_summary(os2, s);
  CHECK(os2.str().find("NeuronCore allocation ratio: none (no node offers aws.amazon.com/neuroncore)\n") != std::string::npos);
  CHECK(os2.str().find("nan") == std::string::npos);
  CHECK(os2.str().find("On-demand cost of the node groups over the run: $12.35\n") != std::string::npos);
}
