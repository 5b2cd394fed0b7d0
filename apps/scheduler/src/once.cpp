// One scheduling cycle on a snapshot (mltwin/scheduler/once.hpp).
#include "mltwin/scheduler/once.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/policy/scheduler.hpp"
#include "mltwin/policy/scheduler_cache.hpp"

namespace mltwin::scheduler {

using nlohmann::json;

namespace {

/// Records what the Scheduler asks the world to do, by object name. Every call succeeds: a
/// dry run, as if the API server accepted each bind and eviction.
class DryRun : public policy::Backend {
 public:
  DryRun(const policy::SchedulerCache& cache, const std::unordered_map<std::string, std::string>& pod_names,
         const std::unordered_map<std::string, std::string>& group_names, Decisions& out)
      : cache_(cache), pod_names_(pod_names), group_names_(group_names), out_(out) {}

  policy::CallResult bind(const policy::TaskInfo& t, const policy::NodeInfo& n) override {
    out_.binds.push_back({pod(t), n.name});
    return policy::CallResult::success();
  }
  policy::CallResult evict(const policy::TaskInfo& t, const policy::Eviction& e) override {
    out_.evictions.push_back({pod(t), std::string(e.reason),
                              e.preemptor == policy::kNone ? std::string() : pod(cache_.state().task(e.preemptor)), e.tier + 1,
                              std::string(e.plugins)});
    return policy::CallResult::success();
  }
  void podgroup_phase_changed(const policy::JobInfo& j, policy::PodGroupPhase from, policy::PodGroupPhase to) override {
    out_.phases.push_back({group(j), policy::to_string(from), policy::to_string(to)});
  }
  void task_nominated(const policy::TaskInfo& t, const policy::NodeInfo& n) override {
    out_.nominations.push_back({pod(t), n.name});
  }
  void job_condition(const policy::JobInfo& j, const policy::Status& s) override {
    conditions_[group(j)] = s;  // the last word of the session on each job
  }
  const std::map<std::string, policy::Status>& conditions() const { return conditions_; }

 private:
  std::string pod(const policy::TaskInfo& t) const {
    auto it = pod_names_.find(cache_.pod_uid(t.id));
    return it == pod_names_.end() ? t.name : it->second;
  }
  std::string group(const policy::JobInfo& j) const {
    auto it = group_names_.find(cache_.podgroup_uid(j.id));
    return it == group_names_.end() ? j.name : it->second;
  }
  const policy::SchedulerCache& cache_;
  const std::unordered_map<std::string, std::string>& pod_names_;
  const std::unordered_map<std::string, std::string>& group_names_;
  Decisions& out_;
  std::map<std::string, policy::Status> conditions_;
};

}  // namespace

Decisions run_once(const k8s::Snapshot& snap, const OnceOptions& opts) {
  Decisions d;
  d.notes = snap.notes;
  const std::optional<policy::TimeNs> now = opts.now ? opts.now : snap.meta.now;
  if (!now) throw std::invalid_argument("no time for the session: give one (--now), or a snapshot that carries it");
  d.now = *now;
  policy::SchedulerConfig config;
  if (opts.config) {
    config = *opts.config;
    d.config_source = opts.config_name;
  } else if (snap.meta.scheduler_conf) {
    std::vector<std::string> warnings;
    config = k8s::parse_volcano_scheduler_config(*snap.meta.scheduler_conf, snap.meta.scheduler_conf_source, &warnings);
    for (auto& w : warnings) d.notes.push_back(std::move(w));
    d.config_source = "the snapshot's: data.volcano-scheduler.conf of " + std::string(k8s::kSnapshotConfigMap) + " in " + snap.meta.scheduler_conf_file;
  } else {
    config = policy::volcano_default_config();
    d.config_source = "Volcano's default";
  }
  policy::Scheduler scheduler(config, opts.tiebreak_seed);
  if (snap.meta.tiebreak_state) scheduler.set_tiebreak_state(*snap.meta.tiebreak_state);
  policy::SchedulerCache cache;
  k8s::load(snap, cache);
  policy::ClusterState& state = cache.state();
  state.set_now(*now);

  std::unordered_map<std::string, std::string> pod_names, group_names;
  for (const auto& p : snap.pods) pod_names[p.uid] = p.name;
  for (const auto& g : snap.podgroups) group_names[g.object.uid] = g.object.name;

  for (const auto& n : state.nodes())
    if (!n.name.empty()) {
      ++d.counts.nodes;
      d.counts.ready_nodes += n.ready;
    }
  for (const auto* list : {&state.pending_jobs(), &state.active_jobs()})
    for (policy::JobId j : *list) {
      ++d.counts.podgroups;
      for (policy::TaskId t : state.job(j).tasks) {
        ++d.counts.pods;
        d.counts.pending_pods += state.task(t).status == policy::TaskStatus::Pending;
      }
    }
  for (const auto& q : state.queues()) d.counts.queues += !q.name.empty();
  // What the cache holds but the cycle cannot see (scheduler_cache.hpp says when), with the
  // first few names, so that the user can look them up.
  struct Left {
    std::size_t n = 0;
    std::string names;
    void add(const std::string& name) {
      if (++n <= 3) names += (names.empty() ? "" : ", ") + name;
    }
    std::string list() const { return names + (n > 3 ? ", ..." : ""); }
  } no_queue, no_group, no_node;
  for (const auto& g : snap.podgroups)
    if (cache.find_podgroup(g.object.uid) == policy::kNone) no_queue.add(g.object.name);
  for (const auto& p : snap.pods) {
    if (!p.podgroup.empty() && cache.find_podgroup_by_name(p.podgroup) == policy::kNone) no_group.add(p.name);
    else if (!p.node.empty() && cache.find_node_by_name(p.node) == policy::kNone) no_node.add(p.name);
  }
  if (no_queue.n == 1)
    d.notes.push_back("1 PodGroup left out (" + no_queue.list() + "): its queue is not in the snapshot (Volcano's cache leaves such jobs out)");
  else if (no_queue.n > 1)
    d.notes.push_back(std::to_string(no_queue.n) + " PodGroups left out (" + no_queue.list() +
                      "): their queues are not in the snapshot (Volcano's cache leaves such jobs out)");
  if (no_group.n > 0)
    d.notes.push_back(std::to_string(no_group.n) + (no_group.n == 1 ? " pod" : " pods") + " left out (" + no_group.list() +
                      "): the PodGroup named by annotation scheduling.k8s.io/group-name is not in the snapshot, or is left out");
  if (no_node.n > 0)
    d.notes.push_back(std::to_string(no_node.n) + (no_node.n == 1 ? " pod" : " pods") + " left out (" + no_node.list() +
                      "): on a node that is not in the snapshot, so its requests count nowhere");

  DryRun backend(cache, pod_names, group_names, d);
  scheduler.run_once(state, backend);
  for (const auto& [group, s] : backend.conditions())
    if (!s.ok()) d.waiting.push_back({group, policy::to_string(s.code), s.plugin, s.reason});
  return d;
}

json to_json(const Decisions& d) {
  json binds = json::array(), evictions = json::array(), phases = json::array(), waiting = json::array(),
       nominations = json::array();
  for (const auto& n : d.nominations) nominations.push_back({{"pod", n.pod}, {"node", n.node}});
  for (const auto& b : d.binds) binds.push_back({{"pod", b.pod}, {"node", b.node}});
  for (const auto& e : d.evictions)
    evictions.push_back({{"pod", e.pod}, {"reason", e.reason}, {"preemptor", e.preemptor}, {"tier", e.tier}, {"plugins", e.plugins}});
  for (const auto& p : d.phases) phases.push_back({{"podgroup", p.podgroup}, {"from", p.from}, {"to", p.to}});
  for (const auto& w : d.waiting) waiting.push_back({{"podgroup", w.podgroup}, {"code", w.code}, {"plugin", w.plugin}, {"reason", w.reason}});
  return {{"schema", 1},
          {"now", k8s::format_rfc3339(d.now)},
          {"configuration", d.config_source},
          {"counts",
           {{"nodes", d.counts.nodes},
            {"ready_nodes", d.counts.ready_nodes},
            {"podgroups", d.counts.podgroups},
            {"pods", d.counts.pods},
            {"pending_pods", d.counts.pending_pods},
            {"queues", d.counts.queues}}},
          {"binds", binds},
          {"evictions", evictions},
          {"podgroup_phases", phases},
          {"nominations", nominations},
          {"waiting", waiting},
          {"notes", d.notes}};
}

std::string to_text(const Decisions& d) {
  std::ostringstream out;
  out << "one scheduling cycle at " << k8s::format_rfc3339(d.now) << " on " << d.counts.nodes << " nodes (" << d.counts.ready_nodes
      << " ready), " << d.counts.podgroups << " PodGroups, " << d.counts.pods << " pods (" << d.counts.pending_pods << " pending), "
      << d.counts.queues << " queues\n";
  out << "configuration: " << d.config_source << "\n";
  for (const auto& n : d.notes) out << "note: " << n << "\n";
  out << "\nbinds (" << d.binds.size() << "):\n";
  for (const auto& b : d.binds) out << "  " << b.pod << " -> " << b.node << "\n";
  out << "evictions (" << d.evictions.size() << "):\n";
  for (const auto& e : d.evictions) {
    out << "  " << e.pod << ": " << e.reason;
    if (!e.preemptor.empty()) out << " for " << e.preemptor;
    if (e.tier > 0) out << ", chosen by tier " << e.tier << " (" << e.plugins << ")";
    out << "\n";
  }
  out << "PodGroup phases (" << d.phases.size() << "):\n";
  for (const auto& p : d.phases) out << "  " << p.podgroup << ": " << p.from << " -> " << p.to << "\n";
  if (!d.nominations.empty()) {
    out << "nominated (" << d.nominations.size() << "; status.nominatedNodeName):\n";
    for (const auto& n : d.nominations) out << "  " << n.pod << " -> " << n.node << "\n";
  }
  out << "waiting (" << d.waiting.size() << "):\n";
  for (const auto& w : d.waiting) out << "  " << w.podgroup << ": " << w.code << " (" << w.plugin << "): " << w.reason << "\n";
  return out.str();
}

}  // namespace mltwin::scheduler
