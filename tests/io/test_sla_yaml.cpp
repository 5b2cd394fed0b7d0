// The sla plugin's settings as the cluster's own YAML writes them: the Volcano Job annotation
// (copied by the job controller onto the PodGroup, where Volcano v1.12.1's
// api/job_info.go reads volcano.sh/sla-waiting-time, then sla-waiting-time) and the
// volcano-scheduler ConfigMap argument. Lines and columns are counted by hand in the texts
// below (1-based).
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "mltwin/io/scenario.hpp"
#include "mltwin/io/yaml_config.hpp"

using namespace mltwin;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

/// A one-task Volcano Job whose metadata holds `annotations` (YAML lines, indented by 4).
std::string job(const std::string& annotations) {
  return "apiVersion: batch.volcano.sh/v1alpha1\n"  // 1
         "kind: Job\n"                               // 2
         "metadata:\n"                               // 3
         "  name: big\n"                             // 4
         "  annotations:\n" +                        // 5
         annotations +                               // 6..
         "spec:\n"
         "  tasks:\n"
         "    - name: trainer\n"
         "      replicas: 4\n"
         "      template:\n"
         "        spec:\n"
         "          containers:\n"
         "            - name: t\n"
         "              resources:\n"
         "                limits: {aws.amazon.com/neurondevice: 16}\n";
}

std::string error_of(const std::string& file, bool conf = false) {
  try {
    if (conf) (void)io::read_volcano_scheduler_config(file);
    else (void)io::read_manifests(file);
  } catch (const io::ScenarioError& e) {
    return e.what();
  }
  return "(read)";
}

}  // namespace

TEST_CASE("Volcano Job annotations: volcano.sh/sla-waiting-time first, then sla-waiting-time, as Go durations") {
  mltwin::test::TempDir d;
  const std::string f = d.file("job.yaml");
  SUBCASE("both keys: volcano.sh/ wins") {
    write_text(f, job("    sla-waiting-time: 1h\n    volcano.sh/sla-waiting-time: 30m\n    team: nlp\n"));
    const io::Manifests m = io::read_manifests(f);
    REQUIRE(m.jobs.size() == 1);
    CHECK(m.jobs[0].sla_waiting_time == "30m");
    const auto s = io::to_training_job(m.jobs[0], {}, core::Duration::s(0), core::Duration::s(60), 2);
    CHECK(s.sla_waiting_time == core::Duration::s(1800));
  }
  SUBCASE("the plain key, with every unit of sla.go's example") {
    write_text(f, job("    sla-waiting-time: 1h2m3s4ms5us6ns\n"));
    const auto s = io::to_training_job(io::read_manifests(f).jobs.at(0), {}, core::Duration::s(0), core::Duration::s(60), 2);
    CHECK(s.sla_waiting_time.count_ns() == 3723'004'005'006LL);
  }
  SUBCASE("none: no waiting time") {
    write_text(f, job("    team: nlp\n"));
    const auto s = io::to_training_job(io::read_manifests(f).jobs.at(0), {}, core::Duration::s(0), core::Duration::s(60), 2);
    CHECK(s.sla_waiting_time == core::Duration::ns(0));
  }
  SUBCASE("a value Go cannot parse: an error at its line and column") {
    // line 6 "    sla-waiting-time: 1d": the value starts at column 23.
    write_text(f, job("    sla-waiting-time: 1d\n"));
    CHECK(error_of(f) == f + ":6:23: metadata.annotations.sla-waiting-time: time: unknown unit \"d\" in duration \"1d\" "
                             "(a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h)");
  }
  SUBCASE("zero is refused (Volcano would ignore it)") {
    // line 7, column 34: "    volcano.sh/sla-waiting-time: 0s"
    write_text(f, job("    team: nlp\n    volcano.sh/sla-waiting-time: 0s\n"));
    CHECK(error_of(f) == f + ":7:34: metadata.annotations[\"volcano.sh/sla-waiting-time\"]: \"0s\" is not positive "
                             "(Volcano ignores such a waiting time; remove it instead)");
  }
  SUBCASE("a number is not a duration") {
    write_text(f, job("    sla-waiting-time: 3600\n"));
    CHECK(error_of(f).rfind(f + ":6:23: metadata.annotations.sla-waiting-time: expected a string, got 3600", 0) == 0);
  }
}

TEST_CASE("volcano-scheduler ConfigMap: sla's argument, and its errors at the value") {
  mltwin::test::TempDir d;
  const std::string f = d.file("volcano-scheduler.conf");
  auto conf = [](const std::string& value) {
    return "actions: \"enqueue, allocate, backfill\"\n"  // 1
           "tiers:\n"                                     // 2
           "- plugins:\n"                                 // 3
           "  - name: priority\n"                         // 4
           "  - name: gang\n"                             // 5
           "  - name: sla\n"                              // 6
           "    arguments:\n"                             // 7
           "      sla-waiting-time: " + value + "\n";     // 8, the value at column 25
  };
  write_text(f, conf("1h2m3s"));
  const policy::SchedulerConfig c = io::read_volcano_scheduler_config(f);
  REQUIRE(c.tiers.at(0).plugins.size() == 3);
  CHECK(c.tiers[0].plugins[2].arguments.all().at("sla-waiting-time") == "1h2m3s");
  write_text(f, conf("2d"));
  CHECK(error_of(f, true) == f + ":8:25: tiers[0].plugins[2].arguments.sla-waiting-time: time: unknown unit \"d\" in "
                                 "duration \"2d\" (expected a Go duration such as \"1h30m\"; units ns, us, ms, s, m, h) (pkg/scheduler/plugins/sla/sla.go:35 JobWaitingTime)");
}
