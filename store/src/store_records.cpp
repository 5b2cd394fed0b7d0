// store_records.cpp — SqliteStore's recorder calls: one row (or row update) per fact, each
// column named (col<T>("name"), param<T>("name"): checked at compile time against
// results_schema.hpp).
#include <algorithm>
#include <string>

#include "store_impl.hpp"

namespace mltwin::store {

using namespace detail;

namespace {

const char* to_text(inf::ModelEvent::Kind k) {
  using K = inf::ModelEvent::Kind;
  switch (k) {
    case K::DownloadStart: return "DownloadStart";
    case K::Downloaded: return "Downloaded";
    case K::LoadStart: return "LoadStart";
    case K::Loaded: return "Loaded";
    case K::Unloaded: return "Unloaded";
    case K::ArtifactDeleted: return "ArtifactDeleted";
    case K::LoadFailed: return "LoadFailed";
  }
  return "Unknown";
}
const char* to_text(inf::WorkerEvent::Kind k) {
  using K = inf::WorkerEvent::Kind;
  switch (k) {
    case K::Added: return "Added";
    case K::Ready: return "Ready";
    case K::Retired: return "Retired";
    case K::Stopped: return "Stopped";
    case K::ScaleUpSkipped: return "ScaleUpSkipped";
  }
  return "Unknown";
}
const char* to_text(inf::InstanceEvent::Kind k) {
  using K = inf::InstanceEvent::Kind;
  switch (k) {
    case K::Launched: return "Launched";
    case K::InService: return "InService";
    case K::Terminated: return "Terminated";
    case K::DesiredChanged: return "DesiredChanged";
  }
  return "Unknown";
}
/// The model events that carry how long they took (ModelEvent::duration_ns).
bool has_duration(inf::ModelEvent::Kind k) {
  using K = inf::ModelEvent::Kind;
  return k == K::Downloaded || k == K::Loaded || k == K::Unloaded;
}


}  // namespace

void SqliteStore::job_submitted(const models::JobSubmitted& j) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "job_submitted");
  constexpr const Table& T = schema::kJobs;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), j.job);
  b.set_text(col<T>("name"), j.name);
  b.set_text(col<T>("queue"), j.queue);
  b.set_int(col<T>("submit_ns"), j.submit.ns());
  b.set_int(col<T>("nnodes"), j.nnodes);
  b.set_int(col<T>("nproc_per_node"), j.nproc_per_node);
  b.set_int(col<T>("neuron_devices_per_pod"), j.neuron_devices_per_pod);
  b.set_real(col<T>("cpu_per_pod"), j.cpu_per_pod);
  b.set_real(col<T>("memory_gib_per_pod"), j.memory_gib_per_pod);
  b.set_int(col<T>("efa_per_pod"), j.efa_per_pod);
  b.set_text_or_null(col<T>("neuron_resource"), j.neuron_resource);
  b.set_text_or_null(col<T>("other_requests"), j.other_requests);
  b.set_real(col<T>("duration_s"), j.duration_s);
  b.set_int(col<T>("trace_row"), j.trace_row);
  b.set_int(col<T>("trace_gpus"), j.trace_gpus);
  b.set_text(col<T>("phase"), "Pending");  // until job_final
  j.steps > 0 ? b.set_int(col<T>("steps"), j.steps) : b.set_null(col<T>("steps"));
  m.jobs_buffered.push_back(j.job);
  m.end_row(b);
}

void SqliteStore::job_final(const models::JobFinal& j) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "job_final");
  constexpr const Table& T = schema::kJobs;
  // The row to update may still be waiting in the insert buffer.
  if (std::find(m.jobs_buffered.begin(), m.jobs_buffered.end(), j.job) != m.jobs_buffered.end())
    m.flush(m.rows<T>());

  UpdateBinder u(m.update_job.get(), T);
  u.integer(1, j.job);
  u.text(param<T>("phase"), j.phase);
  u.text_or_null(param<T>("podgroup_phase"), j.podgroup_phase);
  u.time(param<T>("inqueue_ns"), j.inqueue);
  u.time(param<T>("scheduled_ns"), j.scheduled);
  u.time(param<T>("start_ns"), j.start);
  u.time(param<T>("end_ns"), j.end);
  u.text_or_null(param<T>("nodes"), j.nodes);
  u.text_or_null(param<T>("reason"), j.reason);
  u.integer(param<T>("restarts"), j.restarts);
  u.real(param<T>("lost_training_s"), j.lost_training_s);
  u.real(param<T>("startup_s"), j.startup_s);
  // The start-up breakdown: NULL when the scenario has no startup block.
  const auto startup_real = [&](int p, double v) { j.startup_modelled ? u.real(p, v) : u.null(p); };
  j.startup_modelled ? u.time(param<T>("training_start_ns"), j.training_start) : u.null(param<T>("training_start_ns"));
  startup_real(param<T>("image_pull_s"), j.image_pull_s);
  startup_real(param<T>("rendezvous_s"), j.rendezvous_s);
  startup_real(param<T>("compile_s"), j.compile_s);
  u.text_or_null(param<T>("compile_cache"), j.startup_modelled ? std::string_view(j.compile_cache) : std::string_view());
  startup_real(param<T>("dataset_read_s"), j.dataset_read_s);
  // The computing / communicating / synchronisation split exists only with derived durations.
  const auto derived_real = [&](int p, double v) { j.derived ? u.real(p, v) : u.null(p); };
  derived_real(param<T>("compute_s"), j.compute_s);
  derived_real(param<T>("communication_s"), j.communication_s);
  derived_real(param<T>("sync_s"), j.sync_s);
  derived_real(param<T>("step_s"), j.step_s);
  m.check(u.rc(), "binding a jobs update");
  m.check(step_once(m.update_job.get()), "updating a jobs row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': job_final for job " +
                             std::to_string(j.job) + ", which was never submitted");
  m.row_written();
}

void SqliteStore::pod_event(const models::PodEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "pod_event");
  constexpr const Table& T = schema::kPods;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), e.job);
  b.set_int(col<T>("pod"), e.pod);
  b.set_text(col<T>("event"), e.event);
  b.set_text_or_null(col<T>("node"), e.node);
  b.set_time(col<T>("t_ns"), e.t);
  m.end_row(b);
}

void SqliteStore::decision(const models::Decision& d) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "decision");
  constexpr const Table& T = schema::kDecisions;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), d.job);
  b.set_time(col<T>("t_ns"), d.t);
  b.set_text(col<T>("code"), d.code);
  b.set_text_or_null(col<T>("plugin"), d.plugin);
  b.set_text_or_null(col<T>("reason"), d.reason);
  m.end_row(b);
}

void SqliteStore::phase_change(const models::PhaseChange& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "phase_change");
  constexpr const Table& T = schema::kPhases;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), p.job);
  b.set_time(col<T>("t_ns"), p.t);
  b.set_text(col<T>("from_phase"), p.from);
  b.set_text(col<T>("to_phase"), p.to);
  m.end_row(b);
}

void SqliteStore::node_event(const models::NodeEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_event");
  constexpr const Table& T = schema::kNodeEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_text(col<T>("node"), e.node);
  b.set_text(col<T>("node_group"), e.group);
  b.set_text(col<T>("event"), e.event);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::node_launched(const models::NodeLaunched& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_launched");
  constexpr const Table& T = schema::kNodes;
  RowBuffer& b = m.rows<T>();
  b.set_text(col<T>("node"), n.node);
  b.set_text(col<T>("node_group"), n.group);
  b.set_text(col<T>("instance_type"), n.instance_type);
  b.set_text(col<T>("capacity_type"), n.capacity_type);
  b.set_text_or_null(col<T>("zone"), n.zone);
  b.set_time(col<T>("launch_ns"), n.t);
  b.set_real(col<T>("usd_per_hour"), n.usd_per_hour);
  b.set_text(col<T>("price_source"), n.price_source);
  m.end_row(b);
}

void SqliteStore::node_ended(const models::NodeEnded& n) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "node_ended");
  constexpr const Table& T = schema::kNodes;
  // The row may still be waiting in the insert buffer (nodes end rarely: flush it whole).
  m.flush(m.rows<T>());
  UpdateBinder u(m.end_node.get(), T);
  u.text(1, n.node);
  u.time(param<T>("end_ns"), n.t);
  m.check(u.rc(), "binding a nodes update");
  m.check(step_once(m.end_node.get()), "updating a nodes row");
  if (sqlite3_changes(m.db.get()) != 1)
    throw std::runtime_error("results database '" + m.path + "': node_ended for node '" + std::string(n.node) +
                             "', which was never launched");
  m.row_written();
}

void SqliteStore::link_usage(const models::LinkUsage& l) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "link_usage");
  constexpr const Table& T = schema::kLinkUsage;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("start_ns"), l.start);
  b.set_time(col<T>("end_ns"), l.end);
  b.set_text(col<T>("link"), l.link);
  b.set_real(col<T>("bytes"), l.bytes);
  b.set_real(col<T>("utilisation"), l.utilisation);
  m.end_row(b);
}

void SqliteStore::step_period(const models::StepPeriod& p) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "step_periods");
  constexpr const Table& T = schema::kStepPeriods;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("job"), p.job);
  b.set_int(col<T>("attempt"), p.attempt);
  b.set_time(col<T>("start_ns"), p.start);
  b.set_time(col<T>("end_ns"), p.end);
  b.set_int(col<T>("nodes"), p.nodes);
  p.nodes > 1 ? b.set_real(col<T>("efa_gbps"), p.efa_gbps) : b.set_null(col<T>("efa_gbps"));
  b.set_real(col<T>("step_s"), p.step_s);
  b.set_real(col<T>("communication_s"), p.communication_s);
  b.set_real(col<T>("steps"), p.steps);
  b.set_text(col<T>("end_reason"), p.end_reason);
  m.end_row(b);
}

void SqliteStore::sample(const models::ClusterSample& c) {
  Impl& m = *impl_;
  m.require(RunKind::Training, "sample");
  constexpr const Table& T = schema::kClusterMetrics;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), c.t);
  b.set_real(col<T>("neuroncores_allocated"), c.neuroncores_allocated);
  b.set_real(col<T>("neuroncores_total"), c.neuroncores_total);
  if (c.neuroncores_total > 0)
    b.set_real(col<T>("allocation_ratio"), c.neuroncores_allocated / c.neuroncores_total);
  else
    b.set_null(col<T>("allocation_ratio"));
  b.set_int(col<T>("jobs_pending"), c.jobs_pending);
  b.set_int(col<T>("jobs_inqueue"), c.jobs_inqueue);
  b.set_int(col<T>("jobs_running"), c.jobs_running);
  b.set_int(col<T>("pods_running"), c.pods_running);
  m.end_row(b);
}

// ---------------------------------------------------------------------------------------
// Inference tables

void SqliteStore::request(const inf::RequestDone& r) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "request");
  ++m.requests_reported;
  if (!m.sampling.keeps(r.id)) return;
  constexpr const Table& T = schema::kRequests;
  RowBuffer& b = m.rows<T>();
  b.set_int(col<T>("id"), static_cast<std::int64_t>(r.id));
  b.set_int(col<T>("model"), r.model);
  r.instance < 0 ? b.set_null(col<T>("instance")) : b.set_int(col<T>("instance"), r.instance);
  b.set_time(col<T>("arrival_ns"), r.arrival);
  // status 0: still in flight when the run ended, never answered
  r.status == 0 ? b.set_null(col<T>("done_ns")) : b.set_time(col<T>("done_ns"), r.done);
  b.set_int(col<T>("status"), r.status);
  b.set_int(col<T>("overhead_latency_ns"), r.overhead_ns);
  b.set_int(col<T>("model_loading_wait_ns"), r.loading_wait_ns);
  b.set_int(col<T>("model_latency_ns"), r.model_latency_ns);
  b.set_int(col<T>("queue_ns"), r.queue_ns);
  b.set_int(col<T>("batch_size"), r.batch);
  // NULL on a SingleModel endpoint, for which CloudWatch publishes no ModelCacheHit.
  r.cache_hit_published ? b.set_int(col<T>("cache_hit"), r.cache_hit ? 1 : 0) : b.set_null(col<T>("cache_hit"));
  m.end_row(b);
}

void SqliteStore::model_event(const inf::ModelEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "model_event");
  constexpr const Table& T = schema::kModelEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_int(col<T>("instance"), e.instance);
  b.set_int(col<T>("model"), e.model);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("bytes"), static_cast<std::int64_t>(e.bytes));
  has_duration(e.kind) ? b.set_int(col<T>("duration_ns"), e.duration_ns) : b.set_null(col<T>("duration_ns"));
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::worker_event(const inf::WorkerEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "worker_event");
  constexpr const Table& T = schema::kWorkerEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  b.set_int(col<T>("instance"), e.instance);
  b.set_int(col<T>("model"), e.model);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("temporary"), e.temporary ? 1 : 0);
  b.set_int(col<T>("workers_after"), e.workers_after);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::instance_event(const inf::InstanceEvent& e) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "instance_event");
  constexpr const Table& T = schema::kInstanceEvents;
  RowBuffer& b = m.rows<T>();
  b.set_time(col<T>("t_ns"), e.t);
  // DesiredChanged is about the endpoint's desired count, not one instance.
  if (e.kind == inf::InstanceEvent::Kind::DesiredChanged)
    b.set_null(col<T>("instance"));
  else
    b.set_int(col<T>("instance"), e.instance);
  b.set_text(col<T>("event"), to_text(e.kind));
  b.set_int(col<T>("desired_after"), e.desired_after);
  b.set_text_or_null(col<T>("reason"), e.reason);
  m.end_row(b);
}

void SqliteStore::minute(const inf::MinuteMetrics& x) {
  Impl& m = *impl_;
  m.require(RunKind::Inference, "minute");
  constexpr const Table& T = schema::kEndpointMetrics;
  RowBuffer& b = m.rows<T>();
  const auto count = [&b](int slot, std::uint64_t v) { b.set_int(slot, static_cast<std::int64_t>(v)); };
  b.set_time(col<T>("start_ns"), x.start);
  b.set_time(col<T>("end_ns"), x.end);
  count(col<T>("invocations"), x.invocations);
  b.set_real(col<T>("invocations_per_instance"), x.invocations_per_instance);
  count(col<T>("invocation_4xx_errors"), x.invocation_4xx);
  count(col<T>("invocation_5xx_errors"), x.invocation_5xx);
  count(col<T>("invocation_model_errors"), x.invocation_model_errors);
  count(col<T>("model_latency_count"), x.served);
  b.set_real_or_null(col<T>("model_latency_avg_us"), x.model_latency_avg_us);
  b.set_real_or_null(col<T>("model_latency_p50_us"), x.model_latency_p50_us);
  b.set_real_or_null(col<T>("model_latency_p90_us"), x.model_latency_p90_us);
  b.set_real_or_null(col<T>("model_latency_p99_us"), x.model_latency_p99_us);
  b.set_real_or_null(col<T>("overhead_latency_avg_us"), x.overhead_latency_avg_us);
  b.set_real_or_null(col<T>("overhead_latency_p50_us"), x.overhead_latency_p50_us);
  b.set_real_or_null(col<T>("overhead_latency_p90_us"), x.overhead_latency_p90_us);
  b.set_real_or_null(col<T>("overhead_latency_p99_us"), x.overhead_latency_p99_us);
  b.set_real_or_null(col<T>("model_cache_hit"), x.model_cache_hit);
  count(col<T>("model_loading_wait_time_count"), x.model_loading_waits);
  b.set_real_or_null(col<T>("model_loading_wait_time_avg_us"), x.model_loading_wait_avg_us);
  count(col<T>("model_downloading_time_count"), x.model_downloads);
  b.set_real_or_null(col<T>("model_downloading_time_avg_us"), x.model_downloading_avg_us);
  count(col<T>("model_loading_time_count"), x.model_loads);
  b.set_real_or_null(col<T>("model_loading_time_avg_us"), x.model_loading_avg_us);
  count(col<T>("model_unloading_time_count"), x.model_unloads);
  b.set_real_or_null(col<T>("model_unloading_time_avg_us"), x.model_unloading_avg_us);
  b.set_real(col<T>("loaded_model_count"), x.loaded_model_count);
  b.set_real(col<T>("cpu_utilization_pct"), x.cpu_utilization);
  b.set_real(col<T>("memory_utilization_pct"), x.memory_utilization);
  b.set_int(col<T>("instances_in_service"), x.instances_in_service);
  b.set_int(col<T>("workers"), x.workers);
  m.end_row(b);
}

}  // namespace mltwin::store
