// The built-in MME router: to the least-loaded instance that holds the model, or to a new
// instance when none holds it or every copy is heavily loaded. See serving.hpp.
#include "mltwin/policy/serving.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace mltwin::policy::serving {
namespace {

class CacheAwareRouter final : public RoutingPolicy {
 public:
  explicit CacheAwareRouter(const CacheAwareRoutingParams& p) : p_(p) {}
  std::string_view name() const override { return "cache-aware"; }

  RouteDecision route(ModelId, Nanos, std::span<const InstanceView> holders, const InstanceList& everyone) override {
    const InstanceView* best_copy = nullptr;
    bool all_heavy = true;
    for (const InstanceView& v : holders) {
      const double per_worker =
          static_cast<double>(v.model_outstanding) / (v.model_workers > 0 ? v.model_workers : 1);
      if (per_worker < p_.heavy_load_per_worker) all_heavy = false;
      if (!best_copy || v.model_outstanding < best_copy->model_outstanding ||
          (v.model_outstanding == best_copy->model_outstanding && v.outstanding < best_copy->outstanding))
        best_copy = &v;  // holders are sorted by id: ties keep the lowest id
    }
    const int copies = static_cast<int>(holders.size());
    const bool may_copy = p_.max_copies <= 0 || copies < p_.max_copies;
    if (best_copy && !(all_heavy && may_copy)) return {best_copy->instance, false, {}};
    // A new copy: the instance without the model with the most free memory.
    const InstanceView* best_new = nullptr;
    for (const InstanceView& v : everyone.all()) {
      if (v.model_present) continue;
      if (!best_new || v.memory_free > best_new->memory_free ||
          (v.memory_free == best_new->memory_free && v.outstanding < best_new->outstanding))
        best_new = &v;
    }
    if (!best_copy) return {best_new->instance, true, "model not loaded on any instance"};
    if (best_new) return {best_new->instance, true, "every copy of the model is heavily loaded"};
    return {best_copy->instance, false, {}};
  }

 private:
  CacheAwareRoutingParams p_;
};

class TargetTracking final : public InstanceScalingPolicy {
 public:
  explicit TargetTracking(const TargetTrackingParams& p) : p_(p) {}
  std::string_view name() const override { return "target-tracking"; }

  /// True when `then` is a real time (not -kNever, "never") less than `cooldown` before `now`.
  static bool within(Nanos now, Nanos then, Nanos cooldown) {
    return then != -kNever && now - then < cooldown;
  }

  ScalingDecision evaluate(const ScalingObservation& o) override {
    const auto& m = o.invocations_per_instance;
    const int current = o.instances_desired;
    auto clamp = [&](long long n) {
      if (n < o.min_instances) n = o.min_instances;
      if (n > o.max_instances) n = o.max_instances;
      return static_cast<int>(n);
    };
    auto tail_all = [&](int k, auto pred) {
      if (k <= 0 || static_cast<int>(m.size()) < k) return false;
      for (std::size_t i = m.size() - static_cast<std::size_t>(k); i < m.size(); ++i)
        if (!pred(m[i])) return false;
      return true;
    };
    if (m.empty()) return {current, {}};
    const double last = m.back();
    // The instances the metric was measured on (the in-service ones; the desired count when
    // none is in service).
    const long long measured_on = o.instances_in_service > 0 ? o.instances_in_service : current;
    // ceil(measured_on x metric / target): the capacity that brings the metric back to target.
    auto proportional = [&]() {
      const double want = static_cast<double>(measured_on) * last / p_.target;
      long long n = static_cast<long long>(want);
      if (static_cast<double>(n) < want) ++n;
      return n;
    };
    if (tail_all(p_.scale_out_datapoints, [&](double v) { return v > p_.target; })) {
      // The scaling adjustment: what the instances measured on lack.
      const long long adjustment = proportional() - measured_on;
      if (adjustment <= 0) return {current, {}};
      // "The scaling policy won't increase the desired capacity again unless either a larger
      // scale out is triggered or the cooldown period ends. While the cooldown period is in
      // effect, the capacity added by the initiating scale-out activity is calculated as part
      // of the desired capacity for the next scale-out activity." (Application Auto Scaling
      // User Guide, "Target tracking scaling policies", "Define cooldown periods"). A scale-in
      // since the last scale-out ends its cooldown.
      const bool cooling = within(o.now, o.last_scale_out, p_.scale_out_cooldown) &&
                           (o.last_scale_in == -kNever || o.last_scale_in < o.last_scale_out);
      if (!cooling) {
        const int want = clamp(current + adjustment);
        if (want > current) return {want, "high alarm: InvocationsPerInstance above target"};
        return {current, {}};
      }
      // Within the cooldown: the capacity its scale-outs added (desired - base) counts as part
      // of this adjustment; only a larger one acts, adding the difference, and the cooldown
      // it restarts keeps the base.
      const int want = clamp(static_cast<long long>(o.scale_out_base) + adjustment);
      if (want > current) return {want, "high alarm: a larger scale-out within the scale-out cooldown", o.scale_out_base};
      return {current, "scale-out cooldown"};
    }
    if (!p_.disable_scale_in &&
        tail_all(p_.scale_in_datapoints, [&](double v) { return v < p_.scale_in_ratio * p_.target; })) {
      // The scale-in cooldown runs after a scale-in activity; "if another alarm triggers a
      // scale-out activity during the scale-in cooldown period, Application Auto Scaling scales
      // out the target immediately. In this case, the scale-in cooldown period stops and
      // doesn't complete." (same page): a scale-out after the last scale-in ends it.
      const bool cooldown_ended_by_scale_out = o.last_scale_out != -kNever && o.last_scale_out >= o.last_scale_in;
      if (!cooldown_ended_by_scale_out && within(o.now, o.last_scale_in, p_.scale_in_cooldown))
        return {current, "scale-in cooldown"};
      const int want = clamp(proportional());
      if (want < current) return {want, "low alarm: InvocationsPerInstance below target"};
    }
    return {current, {}};
  }

 private:
  TargetTrackingParams p_;
};

}  // namespace

std::unique_ptr<RoutingPolicy> make_cache_aware_router(const CacheAwareRoutingParams& p) {
  return std::make_unique<CacheAwareRouter>(p);
}
std::unique_ptr<InstanceScalingPolicy> make_target_tracking(const TargetTrackingParams& p) {
  if (!(p.target > 0) || !std::isfinite(p.target))
    throw std::invalid_argument("target tracking: the target value must be a finite number > 0, got " + std::to_string(p.target));
  return std::make_unique<TargetTracking>(p);
}

}  // namespace mltwin::policy::serving
