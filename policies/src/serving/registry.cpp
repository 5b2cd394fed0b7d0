// The serving policy registries (serving.hpp): the built-ins under their names, with the
// arguments they read. Defaults come from the parameter structs (CacheAwareRoutingParams,
// TargetTrackingParams), so the registry, the C++ API and the Python bindings share one set.
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/serving.hpp"

namespace mltwin::policy::serving {
namespace {

std::string text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string text(int v) { return std::to_string(v); }
std::string text(bool v) { return v ? "true" : "false"; }

[[noreturn]] void refuse(const std::string& key, const std::string& why) {
  throw std::invalid_argument("argument '" + key + "': " + why);
}

double positive(const Arguments& a, const std::string& key, double def) {
  const double v = a.get_double(key, def);
  if (!(v > 0) || !std::isfinite(v)) refuse(key, "expected a finite number > 0, got '" + a.get_string(key, "") + "'");
  return v;
}
int at_least(const Arguments& a, const std::string& key, int def, int min) {
  const int v = a.get_int(key, def);
  if (v < min) refuse(key, "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  return v;
}
Nanos duration(const Arguments& a, const std::string& key, Nanos def) {
  if (!a.has(key)) return def;
  try {
    const Nanos v = parse_go_duration(a.get_string(key, ""));
    if (v < 0) refuse(key, "expected a duration >= 0, got '" + a.get_string(key, "") + "'");
    return v;
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).starts_with("argument '")) throw;
    refuse(key, e.what());
  }
}

constexpr const char* kDjlIdleSource =
    "ours, not DJL: the remedy for DJL Serving 0.23.0's idle rule (TemporaryBatchAggregator.isFinished counts idle "
    "time from when a worker took its last batch); false reproduces DJL";
constexpr const char* kRoutingSource =
    "ours: AWS documents MME routing only qualitatively (SageMaker Developer Guide, 'How multi-model endpoints work')";
constexpr const char* kTtSource = "AWS Application Auto Scaling User Guide, 'Target tracking scaling policies'";
constexpr const char* kMetric = "SageMakerVariantInvocationsPerInstance";

Registry<AutoscalingPolicy>::Entry djl_wlm() {
  return {[](const Arguments& a) -> std::unique_ptr<AutoscalingPolicy> {
            return std::make_unique<DjlWlmPolicy>(a.get_bool("idle_from_batch_end", false));
          },
          std::vector<ArgSpec>{ArgSpec::of("idle_from_batch_end", ArgType::Bool, text(false), kDjlIdleSource)},
          "DJL Serving 0.23.0 WorkLoadManager: 503 when the job queue is full, a worker added when the queue "
          "exceeds 2 x batch_size, temporary workers retired after max_idle_time (WorkLoadManager.java)"};
}
Registry<AutoscalingPolicy>::Entry mms_static() {
  return {[](const Arguments&) -> std::unique_ptr<AutoscalingPolicy> { return std::make_unique<MmsStaticPolicy>(); },
          std::vector<ArgSpec>{},
          "Multi Model Server v1.1.9: a fixed pool, 503 only when the job queue is full (wlm/Model.java addJob)"};
}
Registry<ModelCachePolicy>::Entry lru() {
  return {[](const Arguments&) { return make_lru_cache_policy(); }, std::vector<ArgSpec>{},
          "least recently used first, skipping models with requests queued, running or loading"};
}
Registry<RoutingPolicy>::Entry cache_aware() {
  const CacheAwareRoutingParams d;
  return {[](const Arguments& a) {
            CacheAwareRoutingParams p;
            p.heavy_load_per_worker = positive(a, "heavy_load_per_worker", p.heavy_load_per_worker);
            p.max_copies = at_least(a, "max_copies", p.max_copies, 0);
            return make_cache_aware_router(p);
          },
          std::vector<ArgSpec>{ArgSpec::of("heavy_load_per_worker", ArgType::Float, text(d.heavy_load_per_worker), kRoutingSource),
                               ArgSpec::of("max_copies", ArgType::Int, text(d.max_copies), kRoutingSource)},
          "to the least-loaded instance holding the model; a new copy on the instance with the most free memory "
          "when none holds it or every copy is heavily loaded"};
}
Registry<InstanceScalingPolicy>::Entry target_tracking() {
  const TargetTrackingParams d;
  const std::string cooldown = std::string(kTtSource) + " ('Define cooldown periods': 300 s for SageMaker variants)";
  // AWS documents that target tracking creates and manages the alarms, not their datapoint
  // rules: these are what a SageMaker variant's alarms are observed to use.
  const std::string alarms = "observed, not documented: the CloudWatch alarms target tracking creates for a SageMaker variant "
                             "(3 of 3 one-minute datapoints above the target; 15 of 15 below 90 % of it)";
  return {[](const Arguments& a) {
            const std::string metric = a.get_string("metric", kMetric);
            if (metric != kMetric) refuse("metric", "mltwin tracks " + std::string(kMetric) + " only, got '" + metric + "'");
            if (!a.has("target_value")) refuse("target_value", "required (TargetTrackingScalingPolicyConfiguration.TargetValue has no default)");
            TargetTrackingParams p;
            p.target = positive(a, "target_value", p.target);
            p.scale_out_cooldown = duration(a, "scale_out_cooldown", p.scale_out_cooldown);
            p.scale_in_cooldown = duration(a, "scale_in_cooldown", p.scale_in_cooldown);
            p.scale_out_datapoints = at_least(a, "scale_out_datapoints", p.scale_out_datapoints, 1);
            p.scale_in_datapoints = at_least(a, "scale_in_datapoints", p.scale_in_datapoints, 1);
            p.scale_in_ratio = positive(a, "scale_in_ratio", p.scale_in_ratio);
            if (p.scale_in_ratio > 1) refuse("scale_in_ratio", "expected a number in (0, 1], got " + text(p.scale_in_ratio));
            p.disable_scale_in = a.get_bool("disable_scale_in", p.disable_scale_in);
            return make_target_tracking(p);
          },
          std::vector<ArgSpec>{
              ArgSpec::of("metric", ArgType::Text, kMetric, "PredefinedMetricSpecification.PredefinedMetricType"),
              ArgSpec::of("target_value", ArgType::Float, "", "TargetTrackingScalingPolicyConfiguration.TargetValue (required): InvocationsPerInstance per minute"),
              ArgSpec::of("scale_out_cooldown", ArgType::Duration, format_go_duration(d.scale_out_cooldown), cooldown),
              ArgSpec::of("scale_in_cooldown", ArgType::Duration, format_go_duration(d.scale_in_cooldown), cooldown),
              ArgSpec::of("scale_out_datapoints", ArgType::Int, text(d.scale_out_datapoints), alarms),
              ArgSpec::of("scale_in_datapoints", ArgType::Int, text(d.scale_in_datapoints), alarms),
              ArgSpec::of("scale_in_ratio", ArgType::Float, text(d.scale_in_ratio), alarms),
              ArgSpec::of("disable_scale_in", ArgType::Bool, text(d.disable_scale_in), "TargetTrackingScalingPolicyConfiguration.DisableScaleIn")},
          "Application Auto Scaling target tracking on SageMakerVariantInvocationsPerInstance"};
}

}  // namespace

Registry<AutoscalingPolicy>& autoscaling_registry() {
  static Registry<AutoscalingPolicy> r("autoscaling policy", {{"djl-wlm", djl_wlm()}, {"mms-static", mms_static()}});
  return r;
}
Registry<ModelCachePolicy>& model_cache_registry() {
  static Registry<ModelCachePolicy> r("model cache policy", {{"lru", lru()}});
  return r;
}
Registry<RoutingPolicy>& routing_registry() {
  static Registry<RoutingPolicy> r("routing policy", {{"cache-aware", cache_aware()}});
  return r;
}
Registry<InstanceScalingPolicy>& instance_scaling_registry() {
  static Registry<InstanceScalingPolicy> r("instance scaling policy", {{"target-tracking", target_tracking()}});
  return r;
}

}  // namespace mltwin::policy::serving
