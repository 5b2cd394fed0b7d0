// mltwin/io/inference_report.hpp — the summary printed after an inference run.
//
// Definitions:
// - requests: every arrival is served (200), rejected (503: job queue full or no instance in
//   service; 507: no memory or disk for the model) or unserved at the end (not answered when the
//   run ended: queued, in a batch, waiting for a load); the four add up to the arrivals.
// - ModelLatency: from the request entering the model server's job queue to its answer, µs
//   (CloudWatch's ModelLatency); OverheadLatency: SageMaker's share before the container, µs;
//   end-to-end: arrival at the endpoint to the answer.
// - Whole-run percentiles come from log-binned histograms (models::inference::LatencyHistogram,
//   bins of ratio 1.01): each is within ±0.5 % of the exact type-7 percentile; the summary says so.
// - cost = instance-seconds (launch to termination, or to the end of the run) × the instance
//   type's on-demand price per hour / 3600, USD.
// - SLO: the scenario's p99 ModelLatency target (ms) and the largest acceptable share of 5xx
//   answers; each is reported as met or missed.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "mltwin/models/inference.hpp"
#include "mltwin/models/serving_metrics.hpp"

namespace mltwin::io {

struct InferenceSummary {
  std::string scenario;
  std::uint64_t seed = 0;
  std::string server;                 ///< "DJL Serving 0.23.0 (djl-wlm)" / "MMS v1.1.9 (mms-static)"
  std::string instance_type;
  double sim_end_s = 0;
  bool finished = true;               ///< the endpoint's finish() ran: in-flight requests are unserved at the end
  models::inference::EndpointStats stats;
  models::inference::RunTotals totals;
  models::inference::LatencySummary model_latency, overhead_latency, end_to_end;
  double histogram_relative_error = 0;
  double peak_minute_p99_model_latency_us = 0;  ///< worst minute's exact p99
  std::uint64_t peak_minute_invocations = 0;
  double cache_hit_ratio = 0;          ///< hits / requests that reached an instance; NaN: not
                                       ///< published (a SingleModel endpoint): the summary says so
  double p99_slo_ms = 0, max_5xx_ratio = 0;
  double invocation_timeout_s = 60;    ///< the scenario's endpoint.invocation_timeout, s
  std::uint64_t events = 0;
  double wall_s = 0;
};

void print_inference_summary(std::ostream& os, const InferenceSummary& s);

}  // namespace mltwin::io
