// inference_world.cpp — the inference world: a SageMaker multi-model endpoint
// (models::inference::Endpoint) as a Run drives it (world.hpp).
#include <cmath>
#include <fmt/format.h>

#include <stdexcept>

#include "mltwin/io/inference_report.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/models/serving_metrics.hpp"
#include "mltwin/policy/version.hpp"
#include "world.hpp"

namespace mltwin::runner::detail {
namespace {

namespace inf = models::inference;
using nlohmann::json;

// The metrics aggregator hands each closed period to this, which notes the worst minute and
// passes it on to the store.
class MinutePeaks final : public inf::ServingRecorder {
 public:
  explicit MinutePeaks(inf::ServingRecorder& to) : to_(to) {}
  double worst_p99_us = 0;
  std::uint64_t busiest = 0;
  void request(const inf::RequestDone& r) override { to_.request(r); }
  void model_event(const inf::ModelEvent& e) override { to_.model_event(e); }
  void worker_event(const inf::WorkerEvent& e) override { to_.worker_event(e); }
  void instance_event(const inf::InstanceEvent& e) override { to_.instance_event(e); }
  void minute(const inf::MinuteMetrics& m) override {
    if (m.model_latency_p99_us == m.model_latency_p99_us) worst_p99_us = std::max(worst_p99_us, m.model_latency_p99_us);
    busiest = std::max(busiest, m.invocations);
    to_.minute(m);
  }
  void checkpoint(core::Time now) override { to_.checkpoint(now); }

 private:
  inf::ServingRecorder& to_;
};

json latency_json(const inf::LatencySummary& l) {
  return {{"count", l.count}, {"mean_us", l.mean_us}, {"min_us", l.min_us}, {"max_us", l.max_us}, {"p50_us", l.p50_us},
          {"p90_us", l.p90_us}, {"p99_us", l.p99_us}, {"p999_us", l.p999_us}};
}

/// The model server reproduced, e.g. "DJL Serving 0.23.0".
std::string model_server(const inf::InferenceScenario& sc) {
  return sc.server.kind == inf::ServerSpec::Kind::Mms ? std::string("MMS ") + policy::kMmsRelease
                                                      : std::string("DJL Serving ") + policy::kDjlServingRelease;
}

class InferenceWorld final : public World {
 public:
  InferenceWorld(const std::string& path, io::LoadedInferenceScenario sc)
      : World(Kind::Inference, path, sc.name, sc.json, sc.seed, sc.warnings, sc.inputs), sc_(std::move(sc)) {}

  io::RunEstimate estimate(core::Time until) const override { return io::estimate_run(sc_, until); }

  std::string description() const override {
    const auto& e = sc_.inference.endpoint;
    const auto& p = sc_.inference.policies;
    return fmt::format("inference scenario '{}': {} x {} ({}), {} models, {}\n  policies: autoscaling {}, "
                       "routing {}, memory cache {}, disk cache {}, instance scaling {}",
                       sc_.name, e.initial_instances, e.instance_type,
                       p.instance_scaling ? fmt::format("scaling {}..{}", e.min_instances, e.max_instances) : "fixed fleet",
                       sc_.inference.models.size(), model_server(sc_.inference), inf::autoscaling_policy_name(sc_.inference),
                       p.routing.name, p.memory_cache.name, p.disk_cache.name,
                       p.instance_scaling ? p.instance_scaling->name : std::string("none (fixed fleet)"));
  }

  void build(core::Simulator& sim, core::RngStreams& rng, store::RunMetadata& meta, const RunOptions& opts) override {
    sim_ = &sim;
    rng_ = &rng;
    meta.kind = store::RunKind::Inference;
    meta.request_sampling.record_full = sc_.inference.output.request_records_full;
    meta.request_sampling.sample_every = sc_.inference.output.request_sample_every;
    meta.extra["model_server"] = model_server(sc_.inference);
    meta.extra["random_inputs"] =
        "arrival times and model choices (traffic), service times, OverheadLatency, S3 first byte, "
        "load / unload / worker start-up / instance start-up / health-check times (per their "
        "distributions), Locust waits";
    // The streams the model will draw from (recorded so a reader knows which inputs are random).
    meta.rng_streams = {"endpoint.latencies", "endpoint.overhead", "serving.service_time", "traffic.arrivals",
                        "traffic.locust_wait", "traffic.models"};
    policies_ = inf::default_policies(sc_.inference);
    if (opts.customize_serving) {
      const bool had_scaling = policies_.scaling != nullptr;
      opts.customize_serving(policies_);
      // A scaling policy the caller added (the scenario's own was checked when it was loaded).
      if (!had_scaling && policies_.scaling)
        if (std::string w = io::fixed_fleet_warning(sc_.inference, std::string(policies_.scaling->name())); !w.empty()) {
          w = path() + ": " + w;
          if (opts.strict) throw io::ScenarioError(w + " (strict: warnings are errors)");
          if (opts.on_warning) opts.on_warning(w);
        }
    }
    // The policies as run (a Python object's name when one replaced the scenario's choice).
    const std::string scaling = policies_.scaling ? std::string(policies_.scaling->name()) : "none (fixed fleet)";
    server_ = meta.extra["model_server"] + " (worker autoscaling " + std::string(policies_.autoscaling->name()) + ")";
    meta.extra["serving_policies"] = "autoscaling " + std::string(policies_.autoscaling->name()) + ", routing " +
                                     std::string(policies_.routing->name()) + ", instance scaling " + scaling;
  }
  void attach(store::SqliteStore& db) override {
    peaks_ = std::make_unique<MinutePeaks>(db);
    agg_ = std::make_unique<inf::MetricsAggregator>(sc_.inference.output.metrics_period, core::Time::zero(), peaks_.get());
    ep_ = std::make_unique<inf::Endpoint>(*sim_, sc_.inference, *rng_, &db, agg_.get(), std::move(policies_));
  }
  void start() override { ep_->start(); }

  core::Time finish(store::EndReason reason, core::Time now, const std::string&, store::SqliteStore& db) override {
    // As for training: a run that completed ends at its last event (a caller stepping in
    // chunks may have moved the clock past it), one stopped early at the time reached.
    const core::Time end = reason == store::EndReason::Completed ? ep_->last_event() : now;
    ep_->finish(end);
    const auto& st = ep_->stats();
    db.record_request_accounting(
        {st.requests, st.served, st.rejected_503, st.rejected_507, st.timed_out_424, st.not_ready_429, st.not_found_404,
         st.unserved_at_end});
    return end;
  }

  double span_s() const override { return std::max(1.0, sc_.inference.traffic.seconds()); }
  core::Duration progress_chunk() const override { return core::Duration::s(60); }
  core::Duration checkpoint_interval() const override { return core::Duration::s(3600); }
  std::string progress() const override {
    const auto& st = ep_->stats();
    return fmt::format("requests {} ({} in flight)", st.requests, st.in_flight);
  }
  const char* past_span() const override { return "traffic over"; }

  void print_summary(std::ostream& os, const RunFacts& run) const override {
    io::InferenceSummary s;
    s.scenario = run.name;
    s.seed = run.seed;
    s.server = server_;
    s.instance_type = sc_.inference.endpoint.instance_type;
    s.sim_end_s = summary_seconds(run.end.ns());
    s.finished = run.finished;
    s.stats = ep_->stats();
    s.totals = agg_->totals();
    s.model_latency = agg_->model_latency_summary();
    s.overhead_latency = agg_->overhead_latency_summary();
    s.end_to_end = agg_->end_to_end_latency_summary();
    s.histogram_relative_error = agg_->model_latency().relative_error_bound();
    s.peak_minute_p99_model_latency_us = peaks_->worst_p99_us;
    s.peak_minute_invocations = peaks_->busiest;
    s.cache_hit_ratio = cache_hit_ratio();
    s.p99_slo_ms = sc_.inference.slo.p99_model_latency_ms;
    s.max_5xx_ratio = sc_.inference.slo.max_5xx_ratio;
    s.invocation_timeout_s = summary_seconds(sc_.inference.endpoint.invocation_timeout.count_ns());
    s.events = run.events;
    s.wall_s = run.wall_s;
    io::print_inference_summary(os, s);
  }

  /// ModelCacheHit over the run: hits / requests that reached an instance (0 before any);
  /// NaN on a SingleModel endpoint, for which CloudWatch publishes no ModelCacheHit (SageMaker
  /// Developer Guide, "CloudWatch metrics for multi-model endpoint deployments").
  double cache_hit_ratio() const {
    if (sc_.inference.endpoint.mode == inf::EndpointSpec::Mode::SingleModel) return std::nan("");
    const auto& st = ep_->stats();
    const std::uint64_t reached = st.requests - st.in_flight;
    return reached > 0 ? static_cast<double>(st.cache_hits) / static_cast<double>(reached) : 0.0;
  }

  void summary_json(json& j, const RunFacts&) const override {
    const auto& st = ep_->stats();
    const auto t = agg_->totals();
    j["server"] = server_;
    j["instance_type"] = sc_.inference.endpoint.instance_type;
    j["requests"] = st.requests;
    j["served"] = st.served;
    j["rejected_503"] = st.rejected_503;
    j["rejected_507"] = st.rejected_507;
    j["timed_out_424"] = st.timed_out_424;
    j["not_ready_429"] = st.not_ready_429;
    j["not_found_404"] = st.not_found_404;
    j["abandoned_in_container"] = st.abandoned_in_container;
    j["stranded_jobs"] = st.stranded_jobs;
    j["invocation_timeout_s"] = summary_seconds(sc_.inference.endpoint.invocation_timeout.count_ns());
    j["in_flight"] = st.in_flight;
    j["unserved_at_end"] = st.unserved_at_end;
    // null on a SingleModel endpoint: ModelCacheHit is a multi-model metric.
    const double hit = cache_hit_ratio();
    j["cache_hit_ratio"] = std::isnan(hit) ? json(nullptr) : json(hit);
    j["downloads"] = st.downloads;
    j["loads"] = st.loads;
    j["unloads"] = st.unloads;
    j["workers_added"] = st.workers_added;
    j["workers_retired"] = st.workers_retired;
    j["max_workers_seen"] = st.max_workers_seen;
    j["max_queue_seen"] = st.max_queue_seen;
    j["instances_launched"] = st.instances_launched;
    j["instance_hours"] = st.instance_seconds / 3600.0;
    j["cost_usd"] = st.cost_usd;
    j["status_5xx"] = t.status_5xx;
    j["model_latency"] = latency_json(agg_->model_latency_summary());
    j["overhead_latency"] = latency_json(agg_->overhead_latency_summary());
    j["end_to_end_latency"] = latency_json(agg_->end_to_end_latency_summary());
    j["histogram_relative_error"] = agg_->model_latency().relative_error_bound();
    j["peak_minute_p99_model_latency_us"] = peaks_->worst_p99_us;
    j["peak_minute_invocations"] = peaks_->busiest;
    const double p99_ms = agg_->model_latency_summary().p99_us / 1000.0;
    const double ratio_5xx = t.invocations > 0 ? static_cast<double>(t.status_5xx) / static_cast<double>(t.invocations) : 0.0;
    j["slo"] = {{"p99_model_latency_ms", sc_.inference.slo.p99_model_latency_ms},
                {"max_5xx_ratio", sc_.inference.slo.max_5xx_ratio},
                {"p99_met", sc_.inference.slo.p99_model_latency_ms <= 0 || p99_ms <= sc_.inference.slo.p99_model_latency_ms},
                {"5xx_met", ratio_5xx <= sc_.inference.slo.max_5xx_ratio},
                // Failures neither verdict counts (ModelLatency is of 200s; neither 424 nor 429
                // is in Invocation5XXErrors): the printed verdicts name them too.
                {"not_counted_424_429", st.timed_out_424 + st.not_ready_429}};
  }

  void state_json(json& j) const override {
    const auto& st = ep_->stats();
    j["requests"] = st.requests;
    j["in_flight"] = st.in_flight;
    j["served"] = st.served;
    j["rejected_503"] = st.rejected_503;
    j["rejected_507"] = st.rejected_507;
    j["timed_out_424"] = st.timed_out_424;
    j["not_ready_429"] = st.not_ready_429;
    j["not_found_404"] = st.not_found_404;
    json instances = json::array();
    int workers = 0;
    for (const auto& in : ep_->snapshot()) {
      json models = json::array();
      for (const auto& ms : in.models) {
        workers += ms.workers;
        models.push_back({{"model", ms.model}, {"state", ms.state}, {"workers", ms.workers}, {"workers_busy", ms.workers_busy},
                          {"workers_starting", ms.workers_starting}, {"queue", ms.queue}, {"outstanding", ms.outstanding},
                          {"waiting_for_load", ms.waiting_for_load}});
      }
      instances.push_back({{"id", in.id}, {"state", in.state}, {"launched_s", summary_seconds(in.launched.ns())},
                           {"memory_used_bytes", in.memory_used}, {"memory_capacity_bytes", in.memory_capacity},
                           {"disk_used_bytes", in.disk_used}, {"disk_capacity_bytes", in.disk_capacity}, {"vcpu", in.vcpu},
                           {"batches_running", in.batches_running}, {"outstanding", in.outstanding},
                           {"artifacts_on_disk", in.artifacts_on_disk}, {"models", models}});
    }
    j["workers"] = workers;
    j["instances"] = instances;
  }

  const inf::Endpoint* endpoint() const override { return ep_.get(); }

 private:
  io::LoadedInferenceScenario sc_;
  core::Simulator* sim_ = nullptr;
  core::RngStreams* rng_ = nullptr;
  inf::PolicySet policies_;  // until attach() hands them to the endpoint
  std::string server_;       // "DJL Serving 0.23.0 (worker autoscaling djl-wlm)"
  std::unique_ptr<MinutePeaks> peaks_;
  std::unique_ptr<inf::MetricsAggregator> agg_;
  std::unique_ptr<inf::Endpoint> ep_;
};

}  // namespace

std::unique_ptr<World> load_inference_world(const std::string& path, const RunOptions& opts) {
  if (opts.max_jobs > 0)
    throw std::invalid_argument(std::string(opts.command_line ? "--max-jobs" : "max_jobs") +
                                " applies to Philly (training) workloads; '" + path + "' is an inference scenario");
  if (opts.anonymize)
    throw std::invalid_argument(std::string(opts.command_line ? "--anonymize" : "anonymize") +
                                " renames a training cluster's nodes and jobs read from it; '" + path +
                                "' is an inference scenario (its names are the scenario's own: models, instance types)");
  return std::make_unique<InferenceWorld>(path, io::load_inference_scenario(path, load_options(opts)));
}

}  // namespace mltwin::runner::detail
