// The size estimate of a run and its limits (issue 14, item 5; mltwin/io/run_estimate.hpp). The
// expected figures are the sums of docs/limits.md's per-object costs, written out by hand for
// scenarios whose counts are known: the scenario document's size is the one input read from
// the loaded scenario.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/run_estimate.hpp"
#include "mltwin/io/scenario.hpp"

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;

namespace {
const std::string kSrc = MLTWIN_SOURCE_DIR;
double document_bytes(const nlohmann::json& doc) { return static_cast<double>(doc.dump().size()); }
}  // namespace

TEST_CASE("human_bytes: three significant digits in powers of 1000") {
  CHECK(io::human_bytes(0) == "0 B");
  CHECK(io::human_bytes(999) == "999 B");
  CHECK(io::human_bytes(999.5) == "1 KB");
  CHECK(io::human_bytes(264920) == "265 KB");
  CHECK(io::human_bytes(16.2e9) == "16.2 GB");
  CHECK(io::human_bytes(5e11) == "500 GB");
  CHECK(io::human_bytes(INFINITY) == "an unbounded amount");
}

TEST_CASE("training estimate: tiny-gang's counts and sums") {
  const io::LoadedScenario sc = io::load_scenario(kSrc + "/tests/scenarios/tiny-gang.json");
  const io::RunEstimate e = io::estimate_run(sc);
  // 4 nodes; jobs a, b (4 pods, 0 s + 1 h) and c (2 pods, 10 min + 30 min): it ends at 1 h.
  CHECK(e.nodes == 4);
  CHECK(e.jobs == 3);
  CHECK(e.pods == 10);
  CHECK(e.span_s == 3600);
  CHECK(e.metric_samples == 13);  // 5 min samples at 0, 5, ..., 60 min
  // Database: 260 KB + 3 x 800 + 10 x 200 + 13 x 40.
  CHECK(e.database_bytes == 264'920);
  // Memory: 15 MB + 20 B per document byte + 4 x 1 KB + 3 x 1.8 KB + 10 x 0.3 KB + the page cache
  // (the whole database: below 64 MiB).
  CHECK(e.memory_bytes == doctest::Approx(15e6 + 20 * document_bytes(sc.json) + 4'000 + 5'400 + 3'000 + 264'920));
  CHECK(io::describe(e) == "about " + io::human_bytes(e.memory_bytes) +
                               " of memory and a 265 KB database (3 jobs, 10 pods, 4 nodes, 13 metrics samples over 1.0 h)");
  // --until 30m: 7 samples (0..30 min).
  const io::RunEstimate half = io::estimate_run(sc, core::Time::zero() + core::Duration::s(1800));
  CHECK(half.span_s == 1800);
  CHECK(half.metric_samples == 7);
  CHECK(half.database_bytes == 264'920 - 6 * 40);
}

TEST_CASE("training estimate: nodes an autoscaler may add, and failures' replacements") {
  // autoscaler-trap: desired 1, max_size 3; one 2-pod job of 10 min.
  const io::RunEstimate a = io::estimate_run(io::load_scenario(kSrc + "/tests/scenarios/autoscaler-trap.json"));
  CHECK(a.nodes == 3);
  CHECK(a.database_bytes == 260'000 + 800 + 2 * 200 + 3 * 40 + 3 * 100);  // 3 samples, 3 node events
  // node-failure: 1 node, one scheduled failure (its replacement is a second node).
  const io::RunEstimate f = io::estimate_run(io::load_scenario(kSrc + "/tests/scenarios/node-failure.json"));
  CHECK(f.nodes == 2);
  CHECK(f.database_bytes == 260'000 + 800 + 200 + 13 * 40 + 100);
}

TEST_CASE("inference estimate: the blog's Locust hour") {
  const io::LoadedInferenceScenario sc = io::load_inference_scenario(kSrc + "/scenarios/mme-djl-blog-top-n.json");
  const io::RunEstimate e = io::estimate_run(sc);
  // 20 instances, 1,000 models; 450 users at 3.333333 requests/s each for 1 h.
  const double rate = 450 * 3.333333, requests = rate * 3600;
  CHECK(e.instances == 20);
  CHECK(e.models == 1000);
  CHECK(e.users == 450);
  CHECK(e.span_s == 3600);
  CHECK(e.requests == doctest::Approx(requests));
  CHECK(e.metric_periods == 61);
  // Records: the first 100,000, then one in 100; events at most 2 per instance x model.
  const double records = 100'000 + (requests - 100'000) / 100;
  const double db = 260'000 + 54 * records + 60 * 2 * 20'000 + 220 * 61;
  CHECK(e.database_bytes == doctest::Approx(db));
  const double memory = 15e6 + 20 * document_bytes(sc.json) + 20 * 2'000 + 20 * 1'000 * 48 + 1'000 * 450 + 450 * 300 +
                        rate * 60 * 24 + db;  // the page cache: the whole database, below 16 MiB
  CHECK(e.memory_bytes == doctest::Approx(memory));
  // Stopped at 10 minutes.
  const io::RunEstimate ten = io::estimate_run(sc, core::Time::zero() + core::Duration::s(600));
  CHECK(ten.requests == doctest::Approx(rate * 600));
  CHECK(ten.metric_periods == 11);
}

TEST_CASE("over_limits names each limit exceeded, with the estimate's figure") {
  io::RunLimits l;
  l.memory_bytes = 25.3e9;
  io::RunEstimate e;
  CHECK(io::over_limits(e, l).empty());
  e.memory_bytes = 5e11;
  e.database_bytes = 6.57e8;
  e.instances = 1e7;
  e.models = 1000;
  const auto over = io::over_limits(e, l);
  REQUIRE(over.size() == 2);
  CHECK(over[0] == "about 500 GB of memory, more than this machine's 25.3 GB of physical memory");
  CHECK(over[1] == "10,000,000 instances, more than the limit of 100,000");
  // Every limit, one over each.
  io::RunEstimate big;
  big.database_bytes = 16e9 + 1;
  big.nodes = 50'001;
  big.pods = 10'000'001;
  big.models = 1'000'001;
  big.users = 1'000'001;
  big.requests = 2e10;
  big.metric_samples = 1e8 + 1;
  const auto all = io::over_limits(big, l);
  REQUIRE(all.size() == 7);
  CHECK(all[0] == "a results database of about 16 GB, more than the 16 GB limit");
  CHECK(all[1] == "50,001 nodes, more than the limit of 50,000");
  CHECK(all[2] == "10,000,001 pods, more than the limit of 10,000,000");
  CHECK(all[3] == "1,000,001 models, more than the limit of 1,000,000");
  CHECK(all[4] == "1,000,001 Locust users, more than the limit of 1,000,000");
  CHECK(all[5] == "20,000,000,000 requests, more than the limit of 10,000,000,000");
  CHECK(all[6] == "100,000,001 metrics samples (each one an event and a row), more than the limit of 100,000,000");
  // The machine's limits: its physical memory, a positive finite figure.
  const io::RunLimits here = io::RunLimits::for_this_machine();
  CHECK(here.memory_bytes > 0);
  CHECK(std::isfinite(here.memory_bytes));
}

TEST_CASE("thresholds stay well above real fleets: 5,000 nodes, 150,000 pods, 10^5 models are not refused for their counts") {
  io::RunLimits l;
  l.memory_bytes = INFINITY;
  io::RunEstimate e;
  e.nodes = 5'000;
  e.pods = 150'000;
  e.models = 100'000;
  e.instances = 1'000;
  e.users = 100'000;
  CHECK(io::over_limits(e, l).empty());
}
