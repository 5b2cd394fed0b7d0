// training_world.cpp — the training world: an EKS cluster under Volcano (models::TrainingCluster)
// as a Run drives it (world.hpp).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "mltwin/io/job_history.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/models/training.hpp"
#include "mltwin/policy/version.hpp"
#include "snapshots.hpp"
#include "world.hpp"

namespace mltwin::runner::detail {
namespace {

using nlohmann::json;

json distribution_json(const io::Distribution& d) {
  return {{"n", d.n}, {"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}, {"max", d.max}};
}

/// io/report.hpp Deadlock as the summary's JSON and run_meta('deadlock') write it (null: none).
json deadlock_json(const std::optional<io::Deadlock>& d) {
  if (!d) return nullptr;
  return {{"queues", d->queues}, {"waiting", d->waiting}, {"unlock_queue", d->unlock_queue}, {"unlock_weight", d->unlock_weight}};
}

// The cluster model needs its recorder at construction, the store needs the RNG stream names
// the model creates: this forwards to the store once it exists.
class Forward final : public models::TrainingRecorder {
 public:
  models::TrainingRecorder* to = nullptr;
  void job_submitted(const models::JobSubmitted& j) override { to->job_submitted(j); }
  void job_final(const models::JobFinal& j) override { to->job_final(j); }
  void pod_event(const models::PodEvent& e) override { to->pod_event(e); }
  void decision(const models::Decision& d) override { to->decision(d); }
  void phase_change(const models::PhaseChange& p) override { to->phase_change(p); }
  void sample(const models::ClusterSample& s) override { to->sample(s); }
  void node_event(const models::NodeEvent& e) override { to->node_event(e); }
  void node_launched(const models::NodeLaunched& n) override { to->node_launched(n); }
  void node_ended(const models::NodeEnded& n) override { to->node_ended(n); }
  void link_usage(const models::LinkUsage& u) override { to->link_usage(u); }
  void step_period(const models::StepPeriod& p) override { to->step_period(p); }
  void checkpoint(core::Time now) override { to->checkpoint(now); }
};

class TrainingWorld final : public World {
 public:
  TrainingWorld(const std::string& path, io::LoadedScenario sc, std::optional<io::NameMap> names)
      : World(Kind::Training, path, sc.name, sc.json, sc.seed, sc.warnings, sc.inputs), sc_(std::move(sc)), names_(std::move(names)) {}

  const io::NameMap* names() const override { return names_ ? &*names_ : nullptr; }

  io::RunEstimate estimate(core::Time until) const override { return io::estimate_run(sc_, until); }

  std::string description() const override {
    std::size_t nodes = 0;
    for (const auto& g : sc_.training.node_groups) nodes += static_cast<std::size_t>(g.count);
    return fmt::format("scenario '{}': {} nodes in {} node group(s), {} queues, {} jobs, Volcano {}", sc_.name, nodes,
                       sc_.training.node_groups.size(), sc_.training.queues.size(), sc_.training.jobs.size(),
                       policy::kVolcanoRelease) +
           (sc_.history ? "\n" + sc_.history->describe() : std::string()) +
           (sc_.pods_from ? "\n" + sc_.pods_from->describe() : std::string());
  }

  void build(core::Simulator& sim, core::RngStreams& rng, store::RunMetadata& meta, const RunOptions& opts) override {
    cluster_ = std::make_unique<models::TrainingCluster>(sc_.training, sim, rng, fwd_);
    if (opts.check_promises) cluster_->scheduler().set_check_promises(true);
    if (!opts.snapshot_at.empty())
      snapshots_ = std::make_unique<SnapshotWriter>(opts.snapshot_at, opts.snapshot_prefix, opts.on_snapshot, &sc_.training);
    on_snapshot_missed_ = opts.on_snapshot_missed;
    if (snapshots_ && opts.session_observer) both_ = std::make_unique<ObserverPair>(*snapshots_, *opts.session_observer);
    cluster_->set_session_observer(both_ ? both_.get() : snapshots_ ? snapshots_.get() : opts.session_observer);
    meta.kind = store::RunKind::Training;
    meta.volcano_release = policy::kVolcanoRelease;
    // The history_distribution duration model drew while loading, from this stream of the same
    // seed (io::LoadOptions::seed): named here so that the run's metadata lists it.
    const bool drawn = (sc_.history && sc_.history->model == "history_distribution") ||
                       (sc_.pods_from && sc_.pods_from->model == "history_distribution");
    if (drawn) rng.stream(io::kHistoryRunTimeStream);
    meta.rng_streams = rng.names();
    meta.extra["random_inputs"] =
        std::string("bind latency, pod start-up latency (per their distributions), Kubernetes pod UIDs (order of "
                    "a gang's pods created together: which pod goes to which node), Volcano's node tie-break") +
        (drawn ? ", the jobs' run times drawn from the job history (history_distribution)" : "");
  }
  void attach(store::SqliteStore& db) override { fwd_.to = &db; }
  void start() override { cluster_->start(); }

  core::Time finish(store::EndReason reason, core::Time now, const std::string& until_text, store::SqliteStore& db) override {
    // A run that completed ends at its last event; one stopped early at the time reached.
    const core::Time end = reason == store::EndReason::Completed ? std::max(cluster_->last_event(), core::Time::zero()) : now;
    std::string note;
    if (reason == store::EndReason::Until)
      note = "still waiting at --until " + (until_text.empty() ? io::human_duration(end.seconds()) : until_text);
    else if (reason != store::EndReason::Completed)
      note = std::string("run ") + store::to_string(reason) + " at " + io::human_duration(end.seconds());
    cluster_->finish(end, note);
    // A deadlock is found over the whole run (io::summarize); kept for `mltwin explain`, which
    // reads only the database.
    if (reason != store::EndReason::Failed)
      if (const auto d = io::summarize(name(), scenario_seed(), sc_.training, *cluster_, end.seconds()).deadlock)
        db.record_deadlock(deadlock_json(d).dump());
    if (snapshots_ && on_snapshot_missed_)
      for (const std::string& label : snapshots_->missed()) on_snapshot_missed_(label);
    return end;
  }

  double span_s() const override {
    return sc_.training.jobs.empty() ? 1.0 : std::max(1.0, sc_.training.jobs.back().submit.seconds());
  }
  core::Duration progress_chunk() const override { return core::Duration::s(3600); }
  core::Duration checkpoint_interval() const override { return core::Duration::s(86400); }
  std::string progress() const override { return fmt::format("jobs {}/{} ended", cluster_->ended(), cluster_->total_jobs()); }
  const char* past_span() const override { return "draining"; }

  void print_summary(std::ostream& os, const RunFacts& run) const override {
    io::RunSummary s = io::summarize(run.name, run.seed, sc_.training, *cluster_, run.end.seconds());
    s.events = run.events;
    s.wall_s = run.wall_s;
    io::print_summary(os, s);
    if (sc_.history) os << sc_.history->describe() << "\n";
    if (sc_.pods_from) os << sc_.pods_from->describe() << "\n";
    os << fmt::format("Events: {} in {:.2f} s wall ({:.2f} M events/s)\n", s.events, run.wall_s,
                      run.wall_s > 0 ? static_cast<double>(s.events) / run.wall_s / 1e6 : 0.0);
  }

  void summary_json(json& j, const RunFacts& run) const override;
  void state_json(json& j) const override;

  const models::TrainingCluster* training() const override { return cluster_.get(); }
  const models::TrainingScenario* training_scenario() const override { return &sc_.training; }

 private:
  io::LoadedScenario sc_;
  std::optional<io::NameMap> names_;
  Forward fwd_;
  std::unique_ptr<SnapshotWriter> snapshots_;  // declared before the cluster: destroyed after it
  std::unique_ptr<ObserverPair> both_;
  std::function<void(const std::string&)> on_snapshot_missed_;
  std::unique_ptr<models::TrainingCluster> cluster_;
};

void TrainingWorld::summary_json(json& j, const RunFacts& run) const {
  const io::RunSummary s = io::summarize(run.name, run.seed, sc_.training, *cluster_, run.end.seconds());
  j["jobs"] = s.jobs;
  // A workload from a job history CSV: how the jobs without end_time got their run time.
  if (sc_.history) {
    const io::JobHistoryUse& h = *sc_.history;
    j["job_history"] = {{"file", h.file}, {"jobs", h.jobs}, {"unfinished", h.unfinished}, {"running", h.running},
                        {"pending", h.pending}, {"unfinished_model", h.model.empty() ? json(nullptr) : json(h.model)},
                        {"unfinished_s", h.unfinished_s}, {"unfinished_min_s", h.unfinished_min_s},
                        {"unfinished_max_s", h.unfinished_max_s}, {"finished_jobs_read", h.from_jobs},
                        {"conditional", h.conditional}, {"fallback", h.fallback}, {"now", h.now.empty() ? json(nullptr) : json(h.now)},
                        {"seed", h.model == "history_distribution" ? json(h.seed) : json(nullptr)}, {"skipped", h.skipped},
                        {"skipped_reasons", h.skipped_reasons}};
  }
  // The cluster's pods from kubectl: how many jobs each way, and the duration model.
  if (sc_.pods_from) {
    const io::PodsFromUse& p = *sc_.pods_from;
    j["pods_from"] = {{"files", p.files}, {"now", p.now}, {"running_jobs", p.running_jobs}, {"pending_jobs", p.pending_jobs},
                      {"admitted_jobs", p.admitted_jobs}, {"unmodelled", p.unmodelled},
                      {"constraints_from_job", p.constraints_from_job},
                      {"other_pods", p.other_pods}, {"held_nodes", p.held_nodes}, {"duration_model", p.model},
                      {"duration_key", p.key.empty() ? json(nullptr) : json(p.key)},
                      {"duration_fixed", p.fixed.empty() ? json(nullptr) : json(p.fixed)},
                      {"duration_history", p.history.empty() ? json(nullptr) : json(p.history)},
                      {"duration_conditional", p.conditional}, {"duration_fallback", p.fallback},
                      {"duration_seed", p.model == "history_distribution" ? json(p.seed) : json(nullptr)}};
  }
  json phases = json::object();
  for (const auto& [phase, n] : s.phases) phases[phase] = n;
  j["phases"] = phases;
  j["makespan_s"] = s.makespan_s;
  j["queueing_s"] = distribution_json(s.queueing_s);
  j["jct_s"] = distribution_json(s.jct_s);
  json queues = json::array();
  for (const auto& q : s.queues)
    queues.push_back({{"queue", q.queue}, {"submitted", q.submitted}, {"completed", q.completed}, {"running", q.running},
                      {"pending", q.pending}, {"refused", q.refused}, {"ended_otherwise", q.ended_otherwise}, {"queueing_s", distribution_json(q.queueing_s)},
                      {"jct_s", distribution_json(q.jct_s)}});
  j["queues"] = queues;
  j["allocation_ratio"] = s.allocation_ratio;
  j["weekly_allocation_ratio"] = s.weekly_allocation_ratio;
  j["sessions"] = s.sessions;
  j["cycles"] = s.cycles;
  j["binds"] = s.binds;
  if (s.bind_failures > 0) j["bind_failures"] = s.bind_failures;
  j["statements_discarded"] = s.discarded;
  // Jobs an admission webhook refused, and jobs admitted that can never be placed.
  j["refused"] = s.refused;
  j["never_placeable"] = s.never_placeable;
  // The autoscaler trap (jobs that never got a pod though the groups could grow) and churn
  // (nodes scaled up that never held a pod, their node-hours and cost).
  j["autoscaler_trapped"] = s.autoscaler_trapped;
  j["deadlock"] = deadlock_json(s.deadlock);  // null: none
  j["autoscaler_churn"] = {{"nodes", s.churn_nodes}, {"node_hours", s.churn_node_hours}, {"usd", s.churn_usd}, {"cut", s.churn_cut}};
  // The job controller's work (io/report.hpp RunSummary): pods evicted, restarts, final
  // phases by policy, gangs re-formed by torchrun, jobs left stuck by SyncJob.
  j["lifecycle"] = {{"evictions", s.evictions},           {"drained", s.drained},         {"restarts", s.restarts},
                    {"failed_max_retry", s.failed},       {"aborted", s.aborted},
                    {"terminated", s.terminated},         {"completed_by_policy", s.completed_early},
                    {"resumed_in_place", s.resumed_in_place}, {"stuck", s.stuck},
                    {"lost_training_s", s.lost_training_s}, {"lost_neuroncore_s", s.lost_neuroncore_s},
                    {"readmission_s", distribution_json(s.readmission_s)}};
  {
    json by = json::object();
    for (const auto& [what, count] : s.priority_inversions) by[what] = count;
    j["priority_inversions"] = {{"by", by}, {"example", s.priority_inversion_example}};
  }
  j["cost_usd"] = s.cost_usd;
  {
    // io/report.hpp Starvation: the criterion, the count, the longest waits.
    json worst = json::array();
    for (const auto& w : s.starvation.worst)
      worst.push_back({{"job", w.name}, {"queue", w.queue}, {"waited_s", w.waited_s}, {"run_s", w.run_s},
                       {"placed", w.placed}, {"overtaken_by", w.overtaken_by}});
    j["starvation"] = {{"wait_factor", s.starvation.wait_factor}, {"jobs", s.starvation.jobs}, {"worst", worst},
                       {"remedy", s.starvation.jobs > 0 ? "sla plugin (sla-waiting-time)" : ""}};
  }
  {
    // io/report.hpp CrossQueueStarvation: held back by later jobs of other queues; the
    // queue-order ties measured in the sessions.
    const auto& x = s.cross_queue_starvation;
    json worst = json::array();
    for (const auto& w : x.worst) {
      json by = json::object();
      for (const auto& [q, n] : w.by_queue) by[q] = n;
      worst.push_back({{"job", w.name}, {"queue", w.queue}, {"waited_s", w.waited_s}, {"run_s", w.run_s},
                       {"placed", w.placed}, {"overtaken_by", w.overtaken_by}, {"overtaken_by_queue", by},
                       {"tie_sessions", w.tie_sessions}, {"tie_winner", w.tie_winner}, {"tie_by_uid", w.tie_by_uid}});
    }
    j["cross_queue_starvation"] = {
        {"wait_factor", x.wait_factor}, {"jobs", x.jobs}, {"tie_jobs", x.tie_jobs}, {"tie_sessions", x.tie_sessions},
        {"worst", worst},
        {"remedy", x.jobs > 0 ? "spec.priority of queue " + x.worst.front().queue + " above that of the queues placed first"
                              : std::string()}};
  }
  {
    // io/report.hpp ShortQueue: queues whose share under contention is below their smallest job.
    json qs = json::array();
    for (const auto& q : s.short_queues)
      qs.push_back({{"queue", q.queue}, {"weight", q.weight}, {"total_weight", q.total_weight},
                    {"total_neuroncores", q.total_neuroncores}, {"share_neuroncores", q.share_neuroncores}, {"smallest_neuroncores", q.smallest_neuroncores},
                    {"largest_neuroncores", q.largest_neuroncores}, {"jobs", q.jobs},
                    {"mean_queueing_s", std::isnan(q.mean_queueing_s) ? json(nullptr) : json(q.mean_queueing_s)},
                    {"weight_for_smallest", q.weight_for_smallest}, {"weight_for_largest", q.weight_for_largest}});
    j["short_queues"] = qs;
  }
  {
    // io/report.hpp ReclaimChurn: jobs the reclaim action evicted more than once.
    json worst = json::array();
    for (const auto& w : s.reclaim_churn.worst)
      worst.push_back({{"job", w.name}, {"queue", w.queue}, {"evictions", w.evictions}, {"phase", w.phase},
                       {"lost_training_s", w.lost_training_s}});
    j["reclaim_churn"] = {{"jobs", s.reclaim_churn.jobs}, {"evictions", s.reclaim_churn.evictions},
                          {"queues", s.reclaim_churn.queues}, {"worst", worst},
                          {"remedy", s.reclaim_churn.jobs > 0 ? "queue shares in whole gangs (proportion weights, capacity deserved), or reclaimable: false" : ""}};
  }
  if (s.startup) {
    j["startup_s"] = s.startup_s;
    j["startup_share"] = s.startup_share;
    j["image_pull_s"] = s.image_pull_s;
    j["compile_cache"] = {{"hits", s.compile_hits}, {"misses", s.compile_misses}, {"waits", s.compile_waits}};
  }
  if (s.dynamic_nodes) {
    j["node_failures"] = s.node_failures;
    j["nodes_launched"] = s.nodes_launched;
    j["nodes_removed"] = s.nodes_removed;
  }
  if (s.node_taint_evictions > 0) j["node_taint_evictions"] = s.node_taint_evictions;  // tolerationSeconds of a node group's NoExecute taint ran out
  if (s.efa_cross_zone_failures > 0) j["efa_cross_zone_failures"] = s.efa_cross_zone_failures;  // job attempts failed: EFA split across zones
  if (s.spot) j["spot_interruptions"] = s.spot_interruptions;
  if (s.neuron_name_mixes > 0)
    j["neuron_names_mixed"] = {{"nodes", s.neuron_name_mixes}, {"first", s.neuron_name_mix_example},
                               {"remedy", "request one Neuron resource name across the cluster (aws.amazon.com/neuron)"}};
  if (s.derived) {
    // Where the jobs' time on the nodes went (duration model derived), s and USD.
    json jt = {{"total_s", s.job_time_s()}, {"total_usd", s.job_time_usd()}};
    const std::pair<const char*, const io::RunSummary::Share*> rows[] = {
        {"compute", &s.compute}, {"communication", &s.communication}, {"sync", &s.sync},
        {"compile", &s.compiling}, {"startup", &s.starting}, {"lost", &s.lost}};
    for (const auto& [name, sh] : rows) jt[name] = {{"s", sh->s}, {"usd", sh->usd}};
    j["job_time"] = jt;
    if (s.contention) j["fabric_retimes"] = s.retimes;
  }
}

void TrainingWorld::state_json(json& j) const {
  const policy::ClusterState& cs = cluster_->state();
  j["submitted"] = cluster_->submitted();
  j["ended"] = cluster_->ended();
  j["jobs_total"] = cluster_->total_jobs();
  json nodes = json::array();
  for (const auto& n : cs.nodes()) {
    const models::InstanceType* nt = sc_.training.catalog.find(n.instance_type);
    const int cpd = nt && nt->neuroncores_per_chip > 0 ? nt->neuroncores_per_chip : 2;
    nodes.push_back({{"name", n.name},
                     {"instance_type", n.instance_type},
                     {"neuroncores_allocatable", n.allocatable.scalars.get(policy::rn::kNeuronCore) / 1000.0},
                     {"neuroncores_used", models::neuroncores_in(n.used, cpd)},
                     {"cpu_used", n.used.milli_cpu / 1000.0},
                     {"memory_used_bytes", n.used.memory},
                     {"pods", n.task_count}});
  }
  j["nodes"] = nodes;
  json jobs = json::array();
  for (const auto& job : cs.jobs()) {
    if (!job.live || job.phase == policy::PodGroupPhase::Completed) continue;
    json tasks = json::array();
    for (policy::TaskId t : job.tasks) {
      const policy::TaskInfo& ti = cs.task(t);
      tasks.push_back({{"name", ti.name}, {"status", policy::to_string(ti.status)},
                       {"node", ti.node == policy::kNone ? json(nullptr) : json(cs.node(ti.node).name)}});
    }
    jobs.push_back({{"name", job.name}, {"queue", cs.queue(job.queue).name}, {"phase", policy::to_string(job.phase)},
                    {"min_available", job.min_available}, {"pods", tasks}});
  }
  j["jobs"] = jobs;  // jobs not yet completed
}

}  // namespace

std::unique_ptr<World> load_training_world(const std::string& path, const RunOptions& opts) {
  if (opts.customize_serving || !opts.serving_policies.is_null())
    throw std::invalid_argument("serving policies apply to inference scenarios; '" + path + "' is a training scenario");
  io::LoadOptions lo = load_options(opts);
  if (opts.max_jobs > 0) {
    // Only a Philly workload has jobs to keep: say so in the option's name, rather than let
    // the patch below fail validation as if the scenario file were wrong.
    json doc = opts.document ? *opts.document : json();
    if (!opts.document) {
      std::ifstream in(path);
      doc = json::parse(in, nullptr, /*allow_exceptions=*/false);  // a bad file: load_scenario says where
    }
    if (!lo.overrides.is_null()) doc.merge_patch(lo.overrides);
    if (doc.is_object() && doc.contains("workload") && doc["workload"].is_object() && !doc["workload"].contains("philly"))
      throw std::invalid_argument(std::string(opts.command_line ? "--max-jobs" : "max_jobs") +
                                  " applies to Philly workloads; the workload of '" + path + "' is not one");
    json patch = {{"workload", {{"philly", {{"max_jobs", opts.max_jobs}}}}}};
    if (lo.overrides.is_null()) lo.overrides = patch;
    else lo.overrides.merge_patch(patch);
  }
  io::LoadedScenario sc = io::load_scenario(path, lo);
  std::optional<io::NameMap> names;
  if (opts.anonymize) names = io::anonymize(sc);
  return std::make_unique<TrainingWorld>(path, std::move(sc), std::move(names));
}

}  // namespace mltwin::runner::detail
