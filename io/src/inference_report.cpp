#include "mltwin/io/inference_report.hpp"
#include "mltwin/io/report.hpp"

#include <cmath>
#include <string>
#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mltwin::io {

namespace {
std::string ms(double us) { return std::isnan(us) ? std::string("-") : fmt::format("{:.2f}", us / 1000.0); }
}  // namespace

void print_inference_summary(std::ostream& os, const InferenceSummary& s) {
  const auto& st = s.stats;
  const auto& t = s.totals;
  fmt::print(os, "mltwin inference run: {} (seed {})\n", s.scenario, s.seed);
  fmt::print(os, "  endpoint: {} x {} launched, {}; simulated {} ({:.1f} s)\n", st.instances_launched, s.instance_type,
             s.server, human_duration(s.sim_end_s), s.sim_end_s);
  const double answered =
      static_cast<double>(st.served + st.rejected_503 + st.rejected_507 + st.timed_out_424 + st.not_ready_429 + st.not_found_404);
  // Before the run has finished, the requests not answered yet are in flight; after, they are
  // unserved at the end (Endpoint::finish).
  fmt::print(os, "  requests: {} arrived, {} served (200), {} rejected 503, {} rejected 507, {} timed out 424, "
                 "{} not ready 429, {} {}\n",
             st.requests, st.served, st.rejected_503, st.rejected_507, st.timed_out_424, st.not_ready_429, st.in_flight,
             s.finished ? "unserved at the end (in flight when the run ended)" : "in flight");
  if (st.not_found_404 > 0)
    fmt::print(os,
               "  model not found 404: {} (requests for models the SingleModel server did not register in its "
               "load_models; the caller gets ModelError, OriginalStatusCode 404; counted in Invocation4XXErrors)\n",
               st.not_found_404);
  if (st.timed_out_424 + st.not_ready_429 > 0)
    fmt::print(os,
               "  invocation timeout {:g} s: {} ModelError 424 (InvocationModelErrors; their containers ran them anyway, "
               "{} still held at the end), {} ModelNotReadyException 429 (model still loading, or its load abandoned at the 360 s limit); latencies count 200s only\n",
               s.invocation_timeout_s, st.timed_out_424, st.abandoned_in_container, st.not_ready_429);
  if (st.stranded_jobs > 0)
    fmt::print(os,
               "  NOTE: {} requests were stranded (each counted once, however often): in a job queue when its last worker "
               "retired (DJL Serving 0.23.0 with minWorkers 0: nothing polls the queue until a request, refused 503, "
               "starts a worker). "
               "Remedy: minWorkers >= 1 in serving.properties.\n",
               st.stranded_jobs);
  const double r5xx = answered > 0 ? static_cast<double>(st.rejected_503 + st.rejected_507) / answered : 0.0;
  if (std::isnan(s.cache_hit_ratio))  // a SingleModel endpoint: ModelCacheHit is a multi-model metric
    fmt::print(os, "  5xx share: {:.4f} %   ModelCacheHit: not published for SingleModel endpoints\n", 100.0 * r5xx);
  else
    fmt::print(os, "  5xx share: {:.4f} %   ModelCacheHit: {:.4f}\n", 100.0 * r5xx, s.cache_hit_ratio);
  fmt::print(os, "  latency, ms (whole run, from histograms within ±{:.2f} %):\n", 100.0 * s.histogram_relative_error);
  fmt::print(os, "    {:<16} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "mean", "p50", "p90", "p99", "p99.9", "max");
  auto row = [&](const char* name, const models::inference::LatencySummary& l) {
    fmt::print(os, "    {:<16} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", name, ms(l.mean_us), ms(l.p50_us),
               ms(l.p90_us), ms(l.p99_us), ms(l.p999_us), ms(l.max_us));
  };
  row("ModelLatency", s.model_latency);
  row("OverheadLatency", s.overhead_latency);
  row("end to end", s.end_to_end);
  fmt::print(os, "  worst minute: p99 ModelLatency {} ms; busiest minute: {} invocations\n",
             ms(s.peak_minute_p99_model_latency_us), s.peak_minute_invocations);
  fmt::print(os, "  models: {} downloads, {} loads, {} unloads, {} load failures, {} artifacts deleted\n", st.downloads,
             st.loads, st.unloads, st.load_failures, st.artifacts_deleted);
  fmt::print(os, "  workers: {} added, {} retired, {} scale-ups skipped (memory); at most {} at once; {} batches\n",
             st.workers_added, st.workers_retired, st.scale_ups_skipped, st.max_workers_seen, st.batches);
  fmt::print(os, "  cost: {:.2f} instance-hours, ${:.2f}\n", st.instance_seconds / 3600.0, st.cost_usd);
  // Neither SLO counts the 424s and 429s: ModelLatency is of 200s, and neither is in
  // Invocation5XXErrors (a 424 is an InvocationModelError). A verdict says so when there were
  // any, so that "met" is not read as "no failures".
  const std::uint64_t uncounted = st.timed_out_424 + st.not_ready_429;
  const std::string not_counted =
      uncounted == 0 ? std::string()
                     : fmt::format("; not counted: {} requests ({:.4f} % of those answered) failed with 424 ModelError "
                                   "or 429 ModelNotReadyException",
                                   uncounted, answered > 0 ? 100.0 * static_cast<double>(uncounted) / answered : 0.0);
  if (s.p99_slo_ms > 0) {
    const bool met = !std::isnan(s.model_latency.p99_us) && s.model_latency.p99_us / 1000.0 <= s.p99_slo_ms;
    fmt::print(os, "  SLO p99 ModelLatency <= {:g} ms: {} ({} ms, 200s only{})\n", s.p99_slo_ms, met ? "met" : "MISSED",
               ms(s.model_latency.p99_us), not_counted);
  }
  if (s.max_5xx_ratio > 0)
    fmt::print(os, "  SLO 5xx share <= {:.4f} %: {}{}\n", 100.0 * s.max_5xx_ratio, r5xx <= s.max_5xx_ratio ? "met" : "MISSED",
               uncounted == 0 ? std::string() : " (5xx only" + not_counted + ")");
  fmt::print(os, "  kernel: {} events in {:.2f} s wall\n", s.events, s.wall_s);
  (void)t;
}

}  // namespace mltwin::io
