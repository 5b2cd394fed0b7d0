// The YAML readers (io/yaml_config.hpp) on real-shaped fixtures (tests/io/fixtures/*.yaml,
// each written from the documentation or source it names in its header) and on broken ones
// (tests/io/fixtures/broken/). Expected values are read off the fixtures by hand: line and
// column of each error counted in the file (1-based), quantities converted by hand
// (cpu in millicores, memory in bytes, Neuron devices x 2 NeuronCores on Trn1, x 1000 as
// mltwin's resource vectors keep cores and counts in thousandths).
#include "temp_dir.hpp"
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>

#include "mltwin/io/scenario.hpp"
#include "mltwin/io/yaml_config.hpp"
#include "mltwin/policy/session.hpp"  // plugin_registered

#ifndef MLTWIN_SOURCE_DIR
#error "MLTWIN_SOURCE_DIR must be defined by the build"
#endif

using namespace mltwin;

namespace {

const std::string kFix = std::string(MLTWIN_SOURCE_DIR) + "/tests/io/fixtures/";

/// Runs `f` expecting a ScenarioError; returns its message with the fixture folder removed.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const io::ScenarioError& e) {
    std::string m = e.what();
    for (auto p = m.find(kFix); p != std::string::npos; p = m.find(kFix)) m.erase(p, kFix.size());
    return m;
  } catch (const std::exception& e) {
    FAIL("expected io::ScenarioError, got: " << std::string(e.what()));
  }
  FAIL("expected io::ScenarioError, but it was read");
  return {};
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

}  // namespace

TEST_CASE("volcano-scheduler ConfigMap: actions split at commas, tiers, switches, arguments as text") {
  const policy::SchedulerConfig c = io::read_volcano_scheduler_config(kFix + "volcano-scheduler-configmap.yaml");
  CHECK(c.actions == std::vector<std::string>{"enqueue", "allocate", "preempt", "backfill"});
  REQUIRE(c.tiers.size() == 2);
  REQUIRE(c.tiers[0].plugins.size() == 3);
  CHECK(c.tiers[0].plugins[0].name == "priority");
  CHECK(c.tiers[0].plugins[1].name == "gang");
  CHECK_FALSE(c.tiers[0].plugins[1].is_enabled(policy::Ext::Preemptable));
  CHECK(c.tiers[0].plugins[1].is_enabled(policy::Ext::JobOrder));  // unset: enabled
  CHECK(c.tiers[0].plugins[2].name == "conformance");
  REQUIRE(c.tiers[1].plugins.size() == 5);
  const char* second[] = {"overcommit", "drf", "predicates", "proportion", "nodeorder"};
  for (int i = 0; i < 5; ++i) CHECK(c.tiers[1].plugins[i].name == second[i]);
  CHECK(c.tiers[1].plugins[0].arguments.all().at("overcommit-factor") == "1.5");
  CHECK(c.tiers[1].plugins[0].arguments.get_double("overcommit-factor", 0) == 1.5);
  CHECK_FALSE(c.tiers[1].plugins[1].is_enabled(policy::Ext::Preemptable));
  REQUIRE(c.action_arguments.count("allocate") == 1);
  CHECK(c.action_arguments.at("allocate").get_bool("predicateErrorCacheEnable", false));
  CHECK(c.schedule_period_ns == 1'000'000'000);  // a flag, not in the file: Volcano's default
  CHECK(c.validate().empty());
}

TEST_CASE("volcano-scheduler: the bare .conf file, as the Volcano chart ships it") {
  // installer/helm/chart/volcano/config/volcano-scheduler.conf, v1.12.1; line 15 "  - name: binpack".
  const std::string f = kFix + "volcano-scheduler-chart.conf";
  if (policy::plugin_registered("binpack")) {  // binpack is being added to mltwin (issue 4, section 1)
    const policy::SchedulerConfig c = io::read_volcano_scheduler_config(f);
    CHECK(c.actions == std::vector<std::string>{"enqueue", "allocate", "backfill"});
    REQUIRE(c.tiers.size() == 2);
    REQUIRE(c.tiers[1].plugins.size() == 6);
    CHECK(c.tiers[1].plugins[5].name == "binpack");
  } else {
    CHECK(starts_with(error_of([&] { io::read_volcano_scheduler_config(f); }),
                      "volcano-scheduler-chart.conf:15:11: tiers[1].plugins[5].name: unknown plugin 'binpack' (known: "));
  }
}

TEST_CASE("volcano-scheduler ConfigMap errors point into the embedded block at the file's own line and column") {
  SUBCASE("unknown plugin: the JSON path's message, at the name") {
    CHECK(starts_with(error_of([] { io::read_volcano_scheduler_config(kFix + "broken/configmap-unknown-plugin.yaml"); }),
                      "broken/configmap-unknown-plugin.yaml:15:15: tiers[1].plugins[1].name: unknown plugin 'numaaware' (known: "));
  }
  SUBCASE("a switch that is not a boolean (a blank line inside the block counts)") {
    CHECK(error_of([] { io::read_volcano_scheduler_config(kFix + "broken/configmap-bad-switch.yaml"); }) ==
          "broken/configmap-bad-switch.yaml:12:25: tiers[0].plugins[0].enableJobOrder: expected true or false, got \"nope\"");
  }
  SUBCASE("a misspelt switch, which Volcano would silently ignore") {
    CHECK(starts_with(error_of([] { io::read_volcano_scheduler_config(kFix + "broken/configmap-typo.yaml"); }),
                      "broken/configmap-typo.yaml:11:9: tiers[0].plugins[0].enableJobOrdr: unknown key 'enableJobOrdr' "
                      "(Volcano v1.12.1 ignores it, so it changes nothing; mltwin reads name, arguments, enableJobOrder"));
  }
  SUBCASE("an unknown action, at the actions string") {
    mltwin::test::TempDir d;
    write_text(d.file("cm.yaml"),
               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\ndata:\n"
               "  volcano-scheduler.conf: |\n    actions: \"enqueue, allocate, backfil\"\n    tiers: []\n");
    const std::string e = error_of([&] { io::read_volcano_scheduler_config(d.file("cm.yaml")); });
    CHECK(starts_with(e, d.file("cm.yaml") + ":7:14: actions: unknown action 'backfil' (known: "));
  }
  SUBCASE("the ConfigMap without the volcano-scheduler.conf key") {
    CHECK(starts_with(error_of([] { io::read_volcano_scheduler_config(kFix + "broken/configmap-missing-key.yaml"); }),
                      "broken/configmap-missing-key.yaml:6:3: data: missing the key 'volcano-scheduler.conf'"));
  }
  SUBCASE("YAML that does not parse") {
    const std::string e = error_of([] { io::read_volcano_scheduler_config(kFix + "broken/invalid-yaml.yaml"); });
    CHECK(starts_with(e, "broken/invalid-yaml.yaml:"));
    CHECK(e.find("invalid YAML") != std::string::npos);
  }
  SUBCASE("a file that does not exist") {
    CHECK(error_of([] { io::read_volcano_scheduler_config(kFix + "nope.yaml"); }) == "nope.yaml: cannot open the file");
  }
}

TEST_CASE("Queue manifests: spec keys, guarantee.resource, status.state, into models::QueueSpec") {
  const io::Manifests m = io::read_manifests(kFix + "queues.yaml");
  REQUIRE(m.queues.size() == 2);  // the trailing --- is an empty document
  CHECK(m.jobs.empty());
  const io::QueueManifest& r = m.queues[0];
  CHECK(r.name == "research");
  CHECK(r.weight == 3);
  CHECK(r.reclaimable);
  REQUIRE(r.capability.has_value());
  CHECK(*r.capability == io::ResourceList{{"cpu", "512"}, {"memory", "2Ti"}, {"aws.amazon.com/neurondevice", "32"}});
  CHECK(r.guarantee == io::ResourceList{{"aws.amazon.com/neuroncore", "32"}});
  CHECK(r.at.line == 4);
  const io::QueueManifest& p = m.queues[1];
  CHECK(p.name == "production");
  CHECK_FALSE(p.reclaimable);
  CHECK(p.priority == 100);
  CHECK(p.state == "Open");
  CHECK_FALSE(p.capability.has_value());
  REQUIRE(p.deserved.has_value());
  CHECK(*p.deserved == io::ResourceList{{"aws.amazon.com/neurondevice", "16"}});
  CHECK(p.parent.empty());

  const models::QueueSpec q = io::to_queue_spec(r, 2);
  CHECK(q.name == "research");
  CHECK(q.weight == 3);
  REQUIRE(q.capability.has_value());
  CHECK(q.capability->milli_cpu == 512'000);                                   // 512 cores in millicores
  CHECK(q.capability->memory == 2199023255552.0);                              // 2 Ti = 2 x 1024^4
  CHECK(q.capability->get(policy::rn::kNeuronDevice) == 32'000);               // 32 devices, milli-units
  CHECK_FALSE(q.capability->scalars.find(policy::rn::kNeuronCore));            // counted independently
  CHECK_FALSE(q.capability->scalars.find(policy::rn::kEfa));                   // unset: absent (unlimited)
  CHECK(q.guarantee.get(policy::rn::kNeuronCore) == 32'000);
  CHECK(q.guarantee.milli_cpu == 0);
  const models::QueueSpec qp = io::to_queue_spec(p, 2);
  CHECK_FALSE(qp.reclaimable);
  CHECK(qp.priority == 100);
  CHECK(qp.open);
  CHECK(qp.deserved.get(policy::rn::kNeuronDevice) == 16'000);  // 16 devices
  CHECK(qp.deserved.milli_cpu == 0);                             // not named
  CHECK(qp.deserved.scalars.size() == 1);                        // the Neuron devices only
  CHECK(q.deserved.scalars.empty());                             // research names no deserved
}

TEST_CASE("TorchX's Volcano Job for dist.ddp on trn1.32xlarge") {
  const io::Manifests m = io::read_manifests(kFix + "torchx-ddp-trn1.yaml");
  REQUIRE(m.jobs.size() == 1);
  REQUIRE(m.priority_classes.size() == 1);
  CHECK(m.priority_classes[0].name == "high");
  CHECK(m.priority_classes[0].value == 1000);
  const io::VolcanoJobManifest& j = m.jobs[0];
  CHECK(j.name == "train-x7k2p9");
  CHECK(j.queue == "research");
  CHECK(j.priority_class_name == "high");
  CHECK(j.max_retry == 2);
  CHECK(j.min_available == 2);  // no job minAvailable: the tasks' 1 + 1 (mutate_job.go)
  CHECK(j.pods() == 2);
  REQUIRE(j.tasks.size() == 2);
  CHECK(j.tasks[0].name == "train-0");
  CHECK(j.tasks[1].name == "train-1");
  CHECK(j.tasks[1].replicas == 1);
  CHECK(j.tasks[1].min_available == 1);
  REQUIRE(j.tasks[0].policies.size() == 2);
  CHECK(j.tasks[0].policies[0].events == std::vector<std::string>{"PodEvicted"});
  CHECK(j.tasks[0].policies[0].action == "RestartJob");
  CHECK(j.action_on_evicted(j.tasks[1]) == "RestartJob");
  // Requests: TorchX's (limits less the reserve); the devices only in limits, so requested as such.
  CHECK(j.tasks[0].pod.requests == io::ResourceList{{"cpu", "127900m"}, {"memory", "502272M"},
                                                    {"aws.amazon.com/neurondevice", "16"}, {"vpc.amazonaws.com/efa", "8"}});
  CHECK(j.tasks[0].pod.nproc_per_node == 32);
  CHECK(j.tasks[0].pod.node_selector.at("node.kubernetes.io/instance-type") == "trn1.32xlarge");
  // TorchX's APPLICATION retry policy on every task, maxRetry 2: the job's lifecycle.
  const nlohmann::json jj = io::volcano_job_json(j, m.priority_classes, "60s", "1h");
  CHECK(jj["max_retry"] == 2);
  CHECK(jj["task_policies"] == nlohmann::json::parse(R"([{"events": ["PodEvicted"], "action": "RestartJob"},
                                                          {"events": ["PodFailed"], "action": "RestartJob"}])"));
  CHECK_FALSE(jj.contains("policies"));

  const models::TrainingJobSpec s =
      io::to_training_job(j, m.priority_classes, core::Duration::s(60), core::Duration::s(3600), 2);
  CHECK(s.name == "train-x7k2p9");
  CHECK(s.queue == "research");
  CHECK(s.nnodes == 2);
  CHECK(s.nproc_per_node == 32);
  CHECK(s.neuron_devices_per_pod == 16);
  CHECK(s.efa_per_pod == 8);
  CHECK(s.cpu_per_pod == doctest::Approx(127.9));
  CHECK(s.memory_bytes_per_pod == 502272e6);
  CHECK(s.priority == 1000);
  CHECK(s.submit == core::Time::zero() + core::Duration::s(60));
  CHECK(s.duration == core::Duration::s(3600));
  // The pods' nodeSelector reaches the job (and its pods: Volcano's predicates filter on it).
  CHECK(s.node_selector == std::vector<std::pair<std::string, std::string>>{{"node.kubernetes.io/instance-type", "trn1.32xlarge"}});
}

TEST_CASE("A hand-written Volcano Job: webhook defaults, two containers, limits-only resources, job-level policy; a PodGroup") {
  const io::Manifests m = io::read_manifests(kFix + "volcano-job-plain.yaml");
  REQUIRE(m.jobs.size() == 1);
  const io::VolcanoJobManifest& j = m.jobs[0];
  CHECK(j.name == "bert-pretrain");
  CHECK(j.namespace_ == "ml");
  CHECK(j.queue == "default");     // no spec.queue
  CHECK(j.max_retry == 3);         // no spec.maxRetry
  CHECK(j.min_available == 3);     // the task's replicas
  // 30 + 0.5 cores; 120 Gi + 512 Mi = 128849018880 + 536870912 bytes; EFA from the limit.
  CHECK(j.tasks[0].pod.requests == io::ResourceList{{"cpu", "30.5"}, {"memory", "129385889792"},
                                                    {"aws.amazon.com/neuroncore", "16"}, {"vpc.amazonaws.com/efa", "2"}});
  CHECK(j.tasks[0].pod.nproc_per_node == 16);  // torchrun --nproc-per-node=16
  REQUIRE(j.tasks[0].pod.tolerations.size() == 1);
  CHECK(j.tasks[0].pod.tolerations[0].op == "Exists");
  const models::TrainingJobSpec s = io::to_training_job(j, {}, core::Duration::s(0), core::Duration::s(10), 2);
  // The job-level PodEvicted -> RestartJob, maxRetry 3 (the webhook's default), no task policy.
  REQUIRE(s.lifecycle);
  CHECK(s.lifecycle->max_retry == 3);
  REQUIRE(s.lifecycle->policies.size() == 1);
  CHECK(s.lifecycle->policies[0].action == models::JobAction::RestartJob);
  CHECK(s.lifecycle->policies[0].matches(models::JobEvent::PodEvicted));
  CHECK_FALSE(s.lifecycle->policies[0].matches(models::JobEvent::PodFailed));
  CHECK(s.lifecycle->task_policies.empty());
  CHECK(s.lifecycle->action_for(models::JobEvent::PodFailed) == models::JobAction::SyncJob);
  CHECK(s.nnodes == 3);
  CHECK(s.neuron_devices_per_pod == 8);  // 16 NeuronCores / 2 per device
  CHECK(s.cpu_per_pod == doctest::Approx(30.5));
  CHECK(s.memory_bytes_per_pod == 129385889792.0);
  CHECK(s.efa_per_pod == 2);
  CHECK(s.priority == 0);

  REQUIRE(m.podgroups.size() == 1);
  CHECK(m.podgroups[0].name == "spark-pi");
  CHECK(m.podgroups[0].min_member == 2);
  CHECK(m.podgroups[0].min_task_member == std::vector<std::pair<std::string, int>>{{"driver", 1}, {"executor", 1}});
  CHECK(m.podgroups[0].queue == "research");
  CHECK(m.podgroups[0].priority_class_name == "high");
  CHECK(m.podgroups[0].min_resources == io::ResourceList{{"cpu", "4"}, {"memory", "8Gi"}});
}

TEST_CASE("a PodGroup's minTaskMember must map roles to counts >= 0: the error names file:line:column and the path") {
  mltwin::test::TempDir d;
  write_text(d.file("pg.yaml"), "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: pg\nspec:\n"
                                "  minMember: 2\n  minTaskMember:\n    ps: 1\n    worker: -1\n");
  CHECK(error_of([&] { io::read_manifests(d.file("pg.yaml")); }) ==
        d.file("pg.yaml") + ":9:13: spec.minTaskMember.worker: expected an integer >= 0, got -1");
}

TEST_CASE("minAvailable 0, negative or above the replicas: Volcano's admission webhooks, at the YAML line") {
  // mutate_job.go (v1.12.1): an unset or 0 spec.minAvailable becomes the tasks' minAvailable
  // summed (a task without one counting its replicas). admit_job.go validateJobCreate then
  // refuses a negative job minAvailable, a task's negative one or one above its replicas, and
  // a job minAvailable above the replicas summed, with the messages quoted.
  mltwin::test::TempDir d;
  const std::string head = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\nspec:\n";
  const std::string pod = "      template:\n        spec:\n          containers:\n            - name: c\n";
  const std::string refuses = "Volcano's admission webhook refuses the Job: \"";
  auto read = [&](const std::string& spec) {
    write_text(d.file("j.yaml"), head + spec);
    return io::read_manifests(d.file("j.yaml"));
  };
  auto error = [&](const std::string& spec) { return error_of([&] { (void)read(spec); }); };
  const std::string f = d.file("j.yaml");
  // Line 6 "  minAvailable: -1": the value at column 17.
  CHECK(error("  minAvailable: -1\n  tasks:\n    - name: w\n      replicas: 2\n" + pod) ==
        f + ":6:17: spec.minAvailable: minAvailable -1 is below 0: " + refuses + "job 'minAvailable' must be >= 0.\"");
  // Line 10 "      minAvailable: -1": column 21.
  CHECK(error("  minAvailable: 1\n  tasks:\n    - name: w\n      replicas: 2\n      minAvailable: -1\n" + pod) ==
        f + ":10:21: spec.tasks[0].minAvailable: task minAvailable -1 is below 0: " + refuses +
            "'minAvailable' < 0 in task: w, job: j;\"");
  // No job minAvailable: the mutating webhook's sum is -3 (the only task's), refused as the job's.
  CHECK(error("  tasks:\n    - name: w\n      replicas: 2\n      minAvailable: -3\n" + pod) ==
        f + ":9:21: spec.tasks[0].minAvailable: task minAvailable -3 is below 0; with spec.minAvailable unset (or 0) the "
            "mutating webhook sets it to the tasks' minAvailable summed, -3, and " + refuses + "job 'minAvailable' must be >= 0.\"");
  CHECK(error("  tasks:\n    - name: w\n      replicas: 2\n      minAvailable: 3\n" + pod) ==
        f + ":9:21: spec.tasks[0].minAvailable: task minAvailable 3 is above the task's 2 replicas: " + refuses +
            "'minAvailable' is greater than 'replicas' in task: w, job: j;\"");
  CHECK(error("  minAvailable: 3\n  tasks:\n    - name: w\n      replicas: 2\n" + pod) ==
        f + ":6:17: spec.minAvailable: minAvailable 3 is above the tasks' 2 replicas: " + refuses +
            "job 'minAvailable' should not be greater than total replicas in tasks;\"");
  // minAvailable 0 is the webhook's default: tasks w (2 replicas) and v (3, minAvailable 1):
  // 2 + 1 = 3; every task's minAvailable 0: 0.
  const io::Manifests m = read("  minAvailable: 0\n  tasks:\n    - name: w\n      replicas: 2\n" + pod +
                               "    - name: v\n      replicas: 3\n      minAvailable: 1\n" + pod);
  CHECK(m.jobs[0].min_available == 3);
  const io::Manifests z = read("  minAvailable: 0\n  tasks:\n    - name: w\n      replicas: 2\n      minAvailable: 0\n" + pod);
  CHECK(z.jobs[0].min_available == 0);
}

TEST_CASE("Volcano Jobs mltwin cannot hold are refused with the reason") {
  mltwin::test::TempDir d;
  const std::string head =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\nspec:\n";
  const std::string pod = "      template:\n        spec:\n          containers:\n            - name: c\n";
  SUBCASE("an elastic torchrun gang") {
    write_text(d.file("j.yaml"), head + "  minAvailable: 1\n  tasks:\n    - name: w\n      replicas: 2\n" + pod);
    const io::Manifests m = io::read_manifests(d.file("j.yaml"));
    CHECK(error_of([&] { io::to_training_job(m.jobs[0], {}, core::Duration::s(0), core::Duration::s(1), 2); }) ==
          d.file("j.yaml") + ":6:17: spec.minAvailable: minAvailable 1 is below the job's 2 pods: for a torchrun job that is "
                             "elastic torchrun (--nnodes=MIN:MAX), which is not modelled; give the manifest entry's duration "
                             "per task name for a Job of independent pods");
  }
  SUBCASE("a duration per task name: a Job of independent pods, minAvailable below its pods, each task its policies") {
    write_text(d.file("j.yaml"), head + "  minAvailable: 2\n  tasks:\n    - name: master\n      replicas: 1\n      policies:\n"
                                        "        - event: TaskCompleted\n          action: CompleteJob\n" + pod +
                                        "    - name: worker\n      replicas: 3\n      minAvailable: 1\n" + pod);
    const io::Manifests m = io::read_manifests(d.file("j.yaml"));
    const nlohmann::json j = io::volcano_job_json(m.jobs[0], {}, "0s", {{"master", "10m"}, {"worker", "30m"}});
    CHECK_FALSE(j.contains("nnodes"));
    CHECK_FALSE(j.contains("duration"));
    CHECK(j["min_available"] == 2);
    REQUIRE(j["tasks"].size() == 2);
    CHECK(j["tasks"][0] == nlohmann::json{{"name", "master"}, {"replicas", 1}, {"duration", "10m"},
                                          {"policies", {{{"events", {"TaskCompleted"}}, {"action", "CompleteJob"}}}}});
    CHECK(j["tasks"][1] == nlohmann::json{{"name", "worker"}, {"replicas", 3}, {"duration", "30m"}, {"min_available", 1}});
    // A task without a duration is named at its item (line 17, column 7: "    - name: worker").
    const std::string e = error_of([&] { (void)io::volcano_job_json(m.jobs[0], {}, "0s", nlohmann::json{{"master", "10m"}}); });
    CHECK_MESSAGE(e.find(
              d.file("j.yaml") + ":17:7: spec.tasks[1]: task 'worker' has no duration in the manifest entry's duration") == 0, e);
  }
  SUBCASE("minSuccess is refused at its line") {
    write_text(d.file("j.yaml"), head + "  minSuccess: 1\n  tasks:\n    - name: w\n      replicas: 2\n" + pod);
    CHECK(error_of([&] { io::read_manifests(d.file("j.yaml")); }).find(d.file("j.yaml") + ":6:15: spec.minSuccess: minSuccess") == 0);
  }
  SUBCASE("broken policies: file:line:column and the YAML path") {
    auto policy_error = [&](const std::string& policies) {
      write_text(d.file("j.yaml"), head + "  policies:\n" + policies + "  tasks:\n    - name: w\n      replicas: 1\n" + pod);
      return error_of([&] { io::read_manifests(d.file("j.yaml")); });
    };
    CHECK(policy_error("    - event: PodEvicted\n      action: Reboot\n") ==
          d.file("j.yaml") + ":8:15: spec.policies[0].action: unknown action 'Reboot' (a policy may name RestartJob, "
                             "RestartTask, RestartPod, AbortJob, TerminateJob, CompleteJob, ResumeJob)");
    CHECK(policy_error("    - event: PodGone\n      action: AbortJob\n").find(
              d.file("j.yaml") + ":7:14: spec.policies[0].event: unknown event 'PodGone'") == 0);
    CHECK(policy_error("    - event: PodEvicted\n      action: AbortJob\n    - events: [PodFailed, PodEvicted]\n"
                       "      action: RestartJob\n") ==
          d.file("j.yaml") + ":9:27: spec.policies[1].events[1]: event 'PodEvicted' appears in two policies (Volcano's "
                             "admission webhook refuses it)");
    CHECK(policy_error("    - exitCode: 137\n      action: RestartJob\n").find(d.file("j.yaml") + ":7:17: spec.policies[0].exitCode: "
                                                                              "a policy on a container exit code is not modelled") == 0);
    CHECK(policy_error("    - event: PodEvicted\n      action: RestartJob\n      timeout: 10m\n")
              .find(d.file("j.yaml") + ":9:16: spec.policies[0].timeout: a delayed action (timeout) is not modelled") == 0);
    CHECK(policy_error("    - event: OutOfSync\n      action: RestartJob\n").find("event 'OutOfSync' is internal to the job controller") !=
          std::string::npos);
  }
  SUBCASE("tasks with different policies") {
    write_text(d.file("j.yaml"), head + "  tasks:\n    - name: a\n      replicas: 1\n      policies:\n        - event: PodEvicted\n"
                                        "          action: RestartTask\n" + pod + "    - name: b\n      replicas: 1\n" + pod);
    const io::Manifests m = io::read_manifests(d.file("j.yaml"));
    CHECK(error_of([&] { io::to_training_job(m.jobs[0], {}, core::Duration::s(0), core::Duration::s(1), 2); }).find(
              "task 'b' has other policies than task 'a'; mltwin gives every task of a TorchX job the same policies") != std::string::npos);
  }
  SUBCASE("an unknown PriorityClass") {
    write_text(d.file("j.yaml"), head + "  priorityClassName: urgent\n  tasks:\n    - name: w\n      replicas: 1\n" + pod);
    const io::Manifests m = io::read_manifests(d.file("j.yaml"));
    CHECK(error_of([&] { io::to_training_job(m.jobs[0], {}, core::Duration::s(0), core::Duration::s(1), 2); }) ==
          d.file("j.yaml") + ":1:1: priorityClassName 'urgent' names no PriorityClass (give its manifest among the "
                             "scenario's manifests)");
  }
}

TEST_CASE("Broken manifests: file:line:column, the YAML path and what was expected") {
  auto err = [](const std::string& f) { return error_of([&] { io::read_manifests(kFix + "broken/" + f); }); };
  CHECK(err("job-replicas-text.yaml") ==
        "broken/job-replicas-text.yaml:14:17: spec.tasks[0].replicas: expected an integer, got \"two\"");
  CHECK(err("job-no-tasks.yaml") == "broken/job-no-tasks.yaml:6:3: spec: missing required key 'tasks'");
  CHECK(err("job-wrong-api.yaml") ==
        "broken/job-wrong-api.yaml:1:13: apiVersion: Job is read as apiVersion batch.volcano.sh/v1alpha1 (Volcano "
        "v1.12.1's CRDs), not \"batch.volcano.sh/v1beta1\"");
  CHECK(starts_with(err("deployment.yaml"),
                    "broken/deployment.yaml:7:7: kind: unknown kind \"Deployment\" (apiVersion apps/v1): mltwin reads Queue"));
  // nvidia.com/gpu is an extended resource like any other; a name without a domain is not one.
  {
    const std::string e = err("job-bad-resource.yaml");
    CHECK_MESSAGE(starts_with(e, "broken/job-bad-resource.yaml:15:24: spec.tasks[0].template.spec.containers[0].resources.limits.gpu: "
                                 "'gpu' is not a resource name Volcano counts"),
                  "got: " << e);
  }
  CHECK(err("queue-bad-weight.yaml") ==
        "broken/queue-bad-weight.yaml:6:11: spec.weight: expected an integer, got \"4\" (a quoted string)");
  CHECK(err("queue-parent-list.yaml") == "broken/queue-parent-list.yaml:7:11: spec.parent: expected a string, got a list");
  CHECK(err("queue-bad-quantity.yaml") ==
        "broken/queue-bad-quantity.yaml:7:13: spec.capability.memory: '12 GB' is not a Kubernetes quantity: ' ' at "
        "offset 2 cannot stand there; a quantity is <number><suffix>, such as 500m, 16, 1.5Gi or 1e3; Kubernetes writes bytes "
        "without a B: 12G (10^9 bytes each) or 12Gi (2^30) (Kubernetes: "
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')");
}

TEST_CASE("A quantity in YAML is what the API server parses after sigs.k8s.io/yaml's YAMLToJSON") {
  // Each expected text is what sigs.k8s.io/yaml v1.4.0 YAMLToJSON writes for `cpu: <value>` (its
  // goyaml.v2 fork resolves plain scalars as YAML 1.1; encoding/json writes the number), checked
  // by running v1.4.0 with k8s.io/apimachinery v0.32.2: `0x10` -> {"cpu":16} -> 16.
  mltwin::test::TempDir d;
  auto capability = [&](const std::string& value) {
    write_text(d.file("q.yaml"), "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\nspec:\n"
                                 "  capability:\n    cpu: " + value + "\n");
    const io::Manifests m = io::read_manifests(d.file("q.yaml"));
    REQUIRE(m.queues.size() == 1);
    REQUIRE(m.queues[0].capability.has_value());
    return m.queues[0].capability->at(0).second;
  };
  CHECK(capability("0x10") == "16");     // hexadecimal int (strconv.ParseInt base 0)
  CHECK(capability("010") == "8");       // octal: a leading 0
  CHECK(capability("0o10") == "8");
  CHECK(capability("0b11") == "3");
  CHECK(capability("1_000") == "1000");  // underscores removed before ParseInt
  CHECK(capability("+5") == "5");
  CHECK(capability("1.50") == "1.5");    // a float, written back with its shortest digits
  CHECK(capability("1e3") == "1000");    // yamlStyleFloat; encoding/json writes 'f' below 1e21
  CHECK(capability("1.") == "1");
  CHECK(capability(".5") == "0.5");
  CHECK(capability("0.30000000000000001") == "0.3");  // a double holds no more
  CHECK(capability("1e18") == "1000000000000000000");  // encoding/json writes 'f' below 1e21
  CHECK(capability("1e-7") == "1e-7");   // encoding/json's exponent form below 1e-6, "e-07" cleaned to "e-7"
  CHECK(capability("1e-400") == "0");     // ParseFloat underflows to 0
  CHECK(capability("500m") == "500m");
  auto err = [&](const std::string& value) {
    return error_of([&] { capability(value); });
  };
  // Amounts whose Value() overflows int64 are refused; the message shows the amount parsed.
  CHECK(err("1e21").find("quantity 1e21: its Value() is beyond") != std::string::npos);  // "1e+21" from encoding/json
  CHECK(err("123456789012345678901").find("quantity 123456789012345680k:") != std::string::npos);  // beyond uint64: a float
  CHECK(err("18446744073709551615").find("quantity 18446744073709551615:") != std::string::npos);  // a uint64
  CHECK(err("1e400").find("quantity 10e399:") != std::string::npos);  // ParseFloat overflows: stays the text "1e400"
  CHECK(err("'0x10'").find("'0x10' is not a Kubernetes quantity: 'x' at offset 1") != std::string::npos);  // quoted: text
  CHECK(err("1_000Mi").find("'1_000Mi' is not a Kubernetes quantity") != std::string::npos);
  CHECK(err("1e2Gi").find("'1e2Gi' is not a Kubernetes quantity: 'G' at offset 3") != std::string::npos);
  CHECK(err("0x").find("'0x' is not a Kubernetes quantity") != std::string::npos);
  CHECK(err(".inf").find("'.inf' is not a Kubernetes quantity") != std::string::npos);
  CHECK(capability("' 16 '") == " 16 ");  // a quoted string keeps its spaces; UnmarshalJSON trims them
}

TEST_CASE("eksctl ClusterConfig: node groups of both kinds, eksctl's size defaults, taints in both forms") {
  const io::EksctlClusterConfig c = io::read_eksctl_config(kFix + "eksctl-trn1.yaml");
  CHECK(c.name == "trn1-training");
  CHECK(c.region == "us-east-1");
  CHECK(c.version == "1.29");  // metadata.version
  REQUIRE(c.node_groups.size() == 2);
  const io::EksctlNodeGroup& dev = c.node_groups[0];  // nodeGroups first
  CHECK(dev.name == "trn1-2xl-dev");
  CHECK_FALSE(dev.managed);
  CHECK(dev.instance_types == std::vector<std::string>{"trn1.2xlarge"});
  CHECK(dev.min_size == 1);
  CHECK(dev.max_size == 3);
  CHECK(dev.desired_capacity == 1);  // no desiredCapacity: minSize
  CHECK(dev.availability_zones == std::vector<std::string>{"us-east-1c", "us-east-1d"});
  CHECK_FALSE(dev.efa_enabled);
  REQUIRE(dev.taints.size() == 1);  // the map form "key: value:effect"
  CHECK(dev.taints[0].key == "aws.amazon.com/neuron");
  CHECK(dev.taints[0].value == "true");
  CHECK(dev.taints[0].effect == "NoSchedule");
  const io::EksctlNodeGroup& big = c.node_groups[1];
  CHECK(big.name == "trn1-32xl");
  CHECK(big.managed);
  CHECK(big.instance_types == std::vector<std::string>{"trn1.32xlarge"});
  CHECK(big.desired_capacity == 4);
  CHECK(big.min_size == 2);
  CHECK(big.max_size == 8);
  CHECK(big.efa_enabled);
  CHECK(big.labels == std::vector<std::pair<std::string, std::string>>{{"workload", "training"}});
  REQUIRE(big.taints.size() == 1);
  CHECK(big.taints[0].effect == "NoSchedule");

  const models::NodeGroupSpec g = io::to_node_group_spec(big);
  CHECK(g.name == "trn1-32xl");
  CHECK(g.instance_types == std::vector<std::string>{"trn1.32xlarge"});
  CHECK(g.count == 4);
  CHECK(g.availability_zone == "us-east-1d");
  CHECK(io::to_node_group_spec(dev).availability_zone.empty());  // two zones: none said

  auto err = [](const std::string& f) { return error_of([&] { io::read_eksctl_config(kFix + "broken/" + f); }); };
  CHECK(err("eksctl-bad.yaml") ==
        "broken/eksctl-bad.yaml:9:22: managedNodeGroups[0].desiredCapacity: desiredCapacity 2 is below minSize 4");
  CHECK(err("eksctl-no-type.yaml") ==
        "broken/eksctl-no-type.yaml:6:5: nodeGroups[0]: missing required key 'instanceType' or 'instancesDistribution' (mltwin does not assume "
        "eksctl's default m5.large)");
  CHECK(err("eksctl-wrong-kind.yaml") ==
        "broken/eksctl-wrong-kind.yaml:2:7: kind: expected ClusterConfig (apiVersion eksctl.io/v1alpha5), got \"Cluster\"");
  // eksctl decodes strictly (pkg/eks/api.go ParseConfig: yaml.UnmarshalStrict): a misspelt key
  // is an error, with the key it is one edit away from.
  const std::string typo = err("eksctl-typo.yaml");
  CHECK(typo.rfind("broken/eksctl-typo.yaml:10:5: managedNodeGroups[0].desiredCapcity: unknown key 'desiredCapcity'; did you mean "
                   "'desiredCapacity'? (mltwin reads name, ",
                   0) == 0);
  // A key eksctl defines is accepted (the fixture above has privateNetworking, placement, iam).
  // Keys that change allocatable are refused rather than ignored.
  CHECK(err("eksctl-max-pods.yaml").rfind("broken/eksctl-max-pods.yaml:11:21: nodeGroups[0].maxPodsPerNode: maxPodsPerNode is not modelled", 0) == 0);
  CHECK(err("eksctl-kubelet-reserved.yaml").rfind("broken/eksctl-kubelet-reserved.yaml:15:9: nodeGroups[0].kubeletExtraConfig.kubeReserved: "
                                                  "kubeReserved in kubeletExtraConfig is not modelled", 0) == 0);
}

TEST_CASE("eksctl minSize / maxSize bound the cluster autoscaler; without one the group stays at desiredCapacity") {
  const std::string scen = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-yaml-example.json";
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"cluster", {{"eksctl", kFix + "eksctl-autoscaled.yaml"}}}};
  const io::LoadedScenario fixed = io::load_scenario(scen, o);
  REQUIRE(fixed.training.node_groups.size() == 1);
  CHECK(fixed.training.node_groups[0].count == 4);
  CHECK(fixed.training.node_groups[0].min_size == -1);  // the autoscaler (none) leaves it alone
  CHECK(fixed.training.node_groups[0].max_size == -1);
  o.overrides["cluster"]["autoscaler"] = {{"launch_time", "5m"}, {"source", "test"}};
  const io::LoadedScenario scaled = io::load_scenario(scen, o);
  REQUIRE(scaled.training.node_groups.size() == 1);
  CHECK(scaled.training.node_groups[0].count == 4);
  CHECK(scaled.training.node_groups[0].min_size == 2);
  CHECK(scaled.training.node_groups[0].max_size == 8);
  REQUIRE(scaled.training.autoscaler.has_value());
}

TEST_CASE("eksctl metadata.version is the cluster's Kubernetes version: it sets the node monitor grace period") {
  // kube-controller-manager's --node-monitor-grace-period: 40 s up to 1.31, 50 s from 1.32
  // (kubernetes#126287). scenarios/yaml/cluster.yaml says version "1.29": 40 s; the same
  // cluster without an eksctl version runs mltwin's pinned 1.32: 50 s; /cluster/kubernetes_version
  // given in the scenario wins over the eksctl file's.
  const std::string scen = std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-yaml-example.json";
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"faults", {{"scheduled", {{{"node", "trn1-32xl-0"}, {"at", "1200s"}}}}, {"replacement_time", "1h"}, {"source", "test"}}}};
  const io::LoadedScenario v129 = io::load_scenario(scen, o);
  CHECK(v129.training.kubernetes_minor == 29);
  REQUIRE(v129.training.faults.has_value());
  CHECK(v129.training.faults->node_monitor_grace_period == core::Duration::s(40));
  o.overrides["cluster"] = {{"eksctl", kFix + "eksctl-autoscaled.yaml"}};  // no metadata.version
  const io::LoadedScenario v132 = io::load_scenario(scen, o);
  CHECK(v132.training.kubernetes_minor == 32);
  CHECK(v132.training.faults->node_monitor_grace_period == core::Duration::s(50));
  o.overrides["cluster"] = {{"kubernetes_version", "1.33"}};  // over scenarios/yaml/cluster.yaml's 1.29
  CHECK(io::load_scenario(scen, o).training.faults->node_monitor_grace_period == core::Duration::s(50));
  CHECK(error_of([&] { io::read_eksctl_config(kFix + "broken/eksctl-bad-version.yaml"); }) ==
        "broken/eksctl-bad-version.yaml:7:12: metadata.version: expected a Kubernetes version \"1.<minor>\" (e.g. \"1.32\"), got 'v1.30.2'");
}

TEST_CASE("Volcano Job pods with node affinity and tolerations, in the shapes of the Kubernetes documentation") {
  const io::Manifests m = io::read_manifests(kFix + "volcano-job-affinity.yaml");
  REQUIRE(m.jobs.size() == 1);
  const io::PodShape& pod = m.jobs[0].tasks[0].pod;
  REQUIRE(pod.tolerations.size() == 2);
  CHECK(pod.tolerations[0].key == "key1");
  CHECK(pod.tolerations[0].op == "Equal");
  CHECK(pod.tolerations[0].value == "value1");
  CHECK(pod.tolerations[0].effect == "NoSchedule");
  CHECK(pod.node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] ==
        nlohmann::json::array({"us-east-1a", "us-east-1b"}));
  // Into the job the scenario loader builds: the same objects the JSON gives.
  const models::TrainingJobSpec s = io::to_training_job(m.jobs[0], {}, core::Duration::s(0), core::Duration::s(60), 2);
  CHECK(s.nnodes == 2);
  REQUIRE(s.tolerations.size() == 2);
  CHECK(s.tolerations[0].op == policy::Toleration::Op::Equal);
  CHECK(s.tolerations[0].value == "value1");
  CHECK(s.tolerations[1].op == policy::Toleration::Op::Exists);
  CHECK(s.node_affinity.has_required);
  REQUIRE(s.node_affinity.required.size() == 1);
  CHECK(s.node_affinity.required[0].match_expressions[0].values == std::vector<std::string>{"us-east-1a", "us-east-1b"});
  REQUIRE(s.node_affinity.preferred.size() == 1);
  CHECK(s.node_affinity.preferred[0].weight == 1);
  CHECK(s.node_affinity.preferred[0].preference.match_expressions[0].key == "another-node-label-key");
  // A job whose tasks are placed differently cannot be one TrainingJobSpec.
  mltwin::test::TempDir d;
  std::ifstream in(kFix + "volcano-job-affinity.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string changed = text.str();
  const auto last = changed.rfind("value: \"value1\"");
  changed.replace(last, std::string("value: \"value1\"").size(), "value: \"value2\"");
  write_text(d.file("j.yaml"), changed);
  const io::Manifests m2 = io::read_manifests(d.file("j.yaml"));
  CHECK(error_of([&] { io::to_training_job(m2.jobs[0], {}, core::Duration::s(0), core::Duration::s(1), 2); }) ==
        d.file("j.yaml") + ":52:7: spec.tasks[1]: task 'worker' has other tolerations than task 'master'; mltwin's "
                           "TrainingJobSpec gives all pods of a job one set of tolerations");
}

TEST_CASE("Broken placement in manifests: line:column, the YAML path and Kubernetes' reason") {
  auto err = [](const std::string& f) { return error_of([&] { io::read_manifests(kFix + "broken/" + f); }); };
  CHECK(err("job-toleration-exists-value.yaml") ==
        "broken/job-toleration-exists-value.yaml:14:22: spec.tasks[0].template.spec.tolerations[0].value: value must be "
        "empty when `operator` is 'Exists'");
  CHECK(err("job-toleration-bool.yaml") ==
        "broken/job-toleration-bool.yaml:14:22: spec.tasks[0].template.spec.tolerations[0].value: expected a string, got "
        "true (a boolean in YAML; quote it: \"true\")");
  CHECK(err("job-affinity-operator.yaml") ==
        "broken/job-affinity-operator.yaml:17:35: spec.tasks[0].template.spec.affinity.nodeAffinity."
        "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: 'Equals' is not a "
        "valid selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)");
  CHECK(starts_with(err("job-affinity-typo.yaml"),
                    "broken/job-affinity-typo.yaml:13:15: spec.tasks[0].template.spec.affinity.nodeAffinity."
                    "requiredDuringSchedulingRequiredDuringExecution: unknown key 'requiredDuringSchedulingRequiredDuringExecution' "
                    "(mltwin reads requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution)"));
  CHECK(err("job-pod-affinity.yaml") ==
        "broken/job-pod-affinity.yaml:13:15: spec.tasks[0].template.spec.affinity.podAntiAffinity: podAntiAffinity (inter-pod "
        "affinity) is not modelled: mltwin's predicates run no InterPodAffinity filter");
  CHECK(err("job-gt-text.yaml") ==
        "broken/job-gt-text.yaml:19:34: spec.tasks[0].template.spec.affinity.nodeAffinity."
        "preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[0]: for 'Gt', 'Lt' "
        "operators, the value must be an integer, got 'two'");
}

TEST_CASE("eksctl taints: checked as eksctl does, at their place; the map form only for unmanaged nodeGroups") {
  auto err = [](const std::string& f) { return error_of([&] { io::read_eksctl_config(kFix + "broken/" + f); }); };
  CHECK(err("eksctl-bad-taint.yaml") ==
        "broken/eksctl-bad-taint.yaml:12:17: managedNodeGroups[0].taints[0].effect: expected NoSchedule, PreferNoSchedule or "
        "NoExecute, got \"NoSchedul\"");
  CHECK(err("eksctl-managed-taint-map.yaml") ==
        "broken/eksctl-managed-taint-map.yaml:10:7: managedNodeGroups[0].taints: a managed node group's taints are a list of "
        "{key, value, effect} (the map form is for nodeGroups)");
  // "true" alone is read as the effect (taints.Parse: one part is the effect).
  CHECK(err("eksctl-taint-map-value.yaml") ==
        "broken/eksctl-taint-map-value.yaml:10:30: nodeGroups[0].taints[\"aws.amazon.com/neuron\"]: taint "
        "'aws.amazon.com/neuron': effect: expected NoSchedule, PreferNoSchedule or NoExecute, got \"true\"");
  // The fixture's two forms become the same node-group taint.
  const io::EksctlClusterConfig c = io::read_eksctl_config(kFix + "eksctl-trn1.yaml");
  const policy::Taint neuron{"aws.amazon.com/neuron", "true", policy::TaintEffect::NoSchedule};
  CHECK(io::to_node_group_spec(c.node_groups[0]).taints == std::vector<policy::Taint>{neuron});
  CHECK(io::to_node_group_spec(c.node_groups[1]).taints == std::vector<policy::Taint>{neuron});
}

TEST_CASE("eksctl: managedNodeGroups instanceTypes + spot, nodeGroups instancesDistribution, checked as eksctl's validation.go") {
  mltwin::test::TempDir d;
  const std::string path = d.file("cluster.yaml");
  auto cluster = [&](const std::string& groups) {
    write_text(path, "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c\n  region: us-east-1\n" + groups);
    return path;
  };
  const io::EksctlClusterConfig c = io::read_eksctl_config(cluster(
      "managedNodeGroups:\n"
      "  - name: spot\n"
      "    instanceTypes: [\"m5.xlarge\", \"m6i.xlarge\"]\n"
      "    spot: true\n"
      "    desiredCapacity: 2\n"
      "nodeGroups:\n"
      "  - name: mixed\n"
      "    desiredCapacity: 4\n"
      "    instancesDistribution:\n"
      "      maxPrice: 0.1\n"
      "      instanceTypes: [\"c5.xlarge\", \"c6i.xlarge\"]\n"
      "      onDemandBaseCapacity: 1\n"
      "      onDemandPercentageAboveBaseCapacity: 50\n"
      "      spotInstancePools: 2\n"));
  REQUIRE(c.node_groups.size() == 2);
  const io::EksctlNodeGroup& mixed = c.node_groups[0];  // nodeGroups first
  CHECK(mixed.instance_types == std::vector<std::string>{"c5.xlarge", "c6i.xlarge"});
  REQUIRE(mixed.distribution.has_value());
  CHECK(mixed.distribution->on_demand_base_capacity == 1);
  CHECK(mixed.distribution->on_demand_percentage_above_base_capacity == 50);
  CHECK(mixed.distribution->spot_instance_pools == 2);
  CHECK(mixed.distribution->max_price == 0.1);
  CHECK(mixed.distribution->spot_allocation_strategy.empty());  // unset: Auto Scaling's default (lowest-price) applies
  const io::EksctlNodeGroup& spot = c.node_groups[1];
  CHECK(spot.spot);
  CHECK(spot.instance_types == std::vector<std::string>{"m5.xlarge", "m6i.xlarge"});
  const models::NodeGroupSpec g = io::to_node_group_spec(spot);
  CHECK(g.distribution.on_demand_percentage_above_base == 0);  // all Spot
  CHECK(g.distribution.spot_allocation_strategy == models::SpotAllocationStrategy::PriceCapacityOptimized);
  CHECK(g.capacity_rebalance);

  auto err = [&](const std::string& groups) {
    std::string m = error_of([&] { io::read_eksctl_config(cluster(groups)); });
    return m.substr(m.find("cluster.yaml"));
  };
  CHECK(err("nodeGroups:\n  - name: a\n    instanceType: m5.xlarge\n    instancesDistribution:\n      instanceTypes: [\"c5.xlarge\"]\n") ==
        "cluster.yaml:8:19: nodeGroups[0].instanceType: instanceType should be \"mixed\" or unset when using the instances "
        "distribution feature");
  CHECK(err("nodeGroups:\n  - name: a\n    instancesDistribution:\n      instanceTypes: [\"c5.xlarge\"]\n      onDemandPercentageAboveBaseCapacity: 101\n") ==
        "cluster.yaml:10:44: nodeGroups[0].instancesDistribution.onDemandPercentageAboveBaseCapacity: percentageAboveBase should be "
        "between 0 and 100");
  CHECK(err("nodeGroups:\n  - name: a\n    instancesDistribution:\n      instanceTypes: [\"c5.xlarge\"]\n      spotInstancePools: 2\n"
            "      spotAllocationStrategy: capacity-optimized\n") ==
        "cluster.yaml:10:26: nodeGroups[0].instancesDistribution.spotInstancePools: spotInstancePools cannot be specified when also "
        "specifying spotAllocationStrategy: capacity-optimized");
  CHECK(err("nodeGroups:\n  - name: a\n    instancesDistribution:\n      onDemandBaseCapacity: 1\n") ==
        "cluster.yaml:9:7: nodeGroups[0].instancesDistribution: at least two instance types have to be specified for mixed nodegroups "
        "(instanceTypes)");
  CHECK(err("nodeGroups:\n  - name: a\n    instanceType: m5.xlarge\n    spot: true\n").find(
            "nodeGroups[0].spot: spot is a managedNodeGroups field") != std::string::npos);
  CHECK(err("managedNodeGroups:\n  - name: a\n    instanceType: m5.xlarge\n    instanceTypes: [\"m5.xlarge\"]\n").find(
            "only one of instanceType or instanceTypes can be specified") != std::string::npos);
  CHECK(err("nodeGroups:\n  - name: a\n    instancesDistribution:\n      instanceTypes: [\"c5.xlarge\"]\n      spotAllocationStrategy: diversified\n")
            .find("spotAllocationStrategy should be one of: lowest-price, capacity-optimized") != std::string::npos);
}

TEST_CASE("eksctl volumeSize: the root volume, which the nodes advertise as ephemeral-storage") {
  mltwin::test::TempDir d;
  const std::string path = d.file("cluster.yaml");
  auto cluster = [&](const std::string& size) {
    write_text(path, "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c\n  region: us-east-1\n"
                     "managedNodeGroups:\n  - name: trn\n    instanceType: trn1.32xlarge\n    desiredCapacity: 1\n"
                     "    volumeSize: " + size + "\n");
    return path;
  };
  const io::EksctlClusterConfig c = io::read_eksctl_config(cluster("500"));
  REQUIRE(c.node_groups.size() == 1);
  CHECK(c.node_groups[0].volume_size_gib == 500);
  const models::NodeGroupSpec ng = io::to_node_group_spec(c.node_groups[0]);
  CHECK(ng.name == "trn");
  CHECK(ng.extra_capacity.get(policy::rn::kEphemeralStorage) == 500.0 * (1ull << 30) * 1000);
  const std::string e = error_of([&] { io::read_eksctl_config(cluster("0")); });
  CHECK_MESSAGE(e.find("cluster.yaml:10:17") != std::string::npos, "got: " << e);
}

TEST_CASE("eksctl: an error about a node group read from the ClusterConfig names the YAML group, not only the scenario's pointer") {
  // A managed Spot group of a type with no Spot price (the shipped catalog has none).
  mltwin::test::TempDir d;
  const std::string path = d.file("cluster.yaml");
  write_text(path, "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c\n  region: us-east-1\n"
                   "managedNodeGroups:\n  - name: trn-spot\n    instanceType: trn1.32xlarge\n    spot: true\n    desiredCapacity: 1\n");
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"cluster", {{"eksctl", path}}}};
  const std::string e = error_of([&] { io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-yaml-example.json", o); });
  CHECK_MESSAGE(e.rfind(path + ":7:5: managedNodeGroups[0] 'trn-spot': node group 'trn-spot' launches Spot nodes of 'trn1.32xlarge', "
                        "which has no Spot price", 0) == 0, "got: " << e);
  CHECK_MESSAGE(e.find("eks-trn1-yaml-example.json: /cluster/node_groups/0/instance_type, as read from it)") != std::string::npos, "got: " << e);
}

TEST_CASE("eksctl: a node group of a SageMaker instance type is an error at its instanceType") {
  mltwin::test::TempDir d;
  const std::string path = d.file("cluster.yaml");
  // instanceType's value on line 8, column 19 ("    instanceType: " is 18 characters).
  write_text(path, "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c\n  region: us-east-1\n"
                   "managedNodeGroups:\n  - name: cpu\n    instanceType: ml.m5.xlarge\n    desiredCapacity: 1\n");
  io::LoadOptions o;
  o.overrides = nlohmann::json{{"cluster", {{"eksctl", path}}}};
  const std::string e = error_of([&] { io::load_scenario(std::string(MLTWIN_SOURCE_DIR) + "/scenarios/eks-trn1-yaml-example.json", o); });
  CHECK_MESSAGE(e.rfind(path + ":8:19: managedNodeGroups[0].instanceType: 'ml.m5.xlarge' is a SageMaker hosting instance type (ml.*)", 0) == 0,
                "got: " << e);
}
