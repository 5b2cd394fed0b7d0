// mltwin/scheduler/once.hpp — one volcano-scheduler cycle on a cluster snapshot, and what it
// decided: what `mltwin-scheduler --once` runs and prints. Links only the policy library and
// the Kubernetes object codec, as the executable does.
//
// The cycle is the policy library's Scheduler::run_once on the SchedulerCache the snapshot's
// objects make (mltwin/k8s/snapshot.hpp): the same code the twin runs at each session. Nothing
// is sent anywhere: binds and evictions are recorded as decided (a dry run).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/config.hpp"

namespace mltwin::scheduler {

/// What one cycle decided, with objects named "namespace/name" (nodes by name).
struct Decisions {
  struct Bind {
    std::string pod, node;
  };
  /// A victim, its reason ("preempt", "reclaim"), the pod the room is made for, and the tier
  /// (1-based, in the configuration's order) and plugins that chose it (policy::Eviction).
  struct Eviction {
    std::string pod, reason, preemptor;
    int tier = 0;
    std::string plugins;
  };
  struct Phase {
    std::string podgroup, from, to;  ///< PodGroup phases as Volcano writes them ("Pending", "Inqueue", ...)
  };
  /// A pending pod nominated to a node (its status.nominatedNodeName, which volcano-scheduler
  /// writes at session close for a pod preempt made room for: policy::Backend::task_nominated).
  struct Nomination {
    std::string pod, node;
  };
  /// Why a PodGroup is not (fully) scheduled, as the session left it: the deciding plugin or
  /// action and its reason (Volcano's PodGroup condition Unschedulable).
  struct Waiting {
    std::string podgroup, code, plugin, reason;
  };
  policy::TimeNs now = 0;  ///< the session's time, ns since the Unix epoch
  std::vector<Bind> binds;
  std::vector<Eviction> evictions;
  std::vector<Phase> phases;
  std::vector<Nomination> nominations;
  std::vector<Waiting> waiting;
  /// Which configuration ran: OnceOptions::config_name, "the snapshot's: ... in <file>" or
  /// "Volcano's default".
  std::string config_source;
  /// The snapshot's notes (kinds skipped), then the cycle's own.
  std::vector<std::string> notes;
  /// What the cycle ran on.
  struct Counts {
    std::size_t nodes = 0, ready_nodes = 0, pods = 0, pending_pods = 0, podgroups = 0, queues = 0;
  } counts;
};

struct OnceOptions {
  /// The scheduler's configuration (--scheduler-conf); unset: the one a twin's snapshot
  /// carries (k8s::SnapshotMeta::scheduler_conf), else Volcano's default.
  std::optional<policy::SchedulerConfig> config;
  /// How `config` is named in Decisions::config_source (e.g. "--scheduler-conf volcano.yaml").
  std::string config_name = "--scheduler-conf";
  /// Seeds the stream that breaks node-score ties, unless the snapshot carries the twin's
  /// stream (k8s::SnapshotMeta::tiebreak_state).
  std::uint64_t tiebreak_seed = 0;
  /// The session's time, ns since the Unix epoch; else the snapshot's (SnapshotMeta::now); else
  /// the caller must give one (the executable gives the wall clock).
  std::optional<policy::TimeNs> now;
};

/// Loads the snapshot into a fresh SchedulerCache and runs one cycle. Throws k8s::InputError
/// for a configuration carried by the snapshot that does not read; std::invalid_argument for a
/// configuration the Scheduler refuses, for a tie-break state that is not a std::mt19937_64's,
/// or when no time is known.
Decisions run_once(const k8s::Snapshot& snap, const OnceOptions& opts);

/// The decisions as JSON (docs/mltwin-scheduler.md gives the schema, "schema": 1).
nlohmann::json to_json(const Decisions& d);
/// The decisions as text for a terminal.
std::string to_text(const Decisions& d);

}  // namespace mltwin::scheduler
