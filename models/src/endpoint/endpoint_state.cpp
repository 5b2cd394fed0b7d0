// EndpointState: see mltwin/models/endpoint/endpoint_state.hpp.
#include "mltwin/models/endpoint/endpoint_state.hpp"

#include <algorithm>

namespace mltwin::models::inference {

EndpointState::EndpointState(core::Simulator& s, const InferenceScenario& scenario, ServingRecorder* r, MetricsAggregator* m,
                             EndpointStats& stats, core::RngStreams& rng)
    : sim(s), sc(scenario), rec(r), metrics(m), st(stats), itype(scenario.instance_type()),
      storage_bytes(scenario.model_storage_bytes()), rng_endpoint(rng.stream("endpoint.latencies")) {
  holders.resize(sc.models.size());
}

int EndpointState::min_workers() const {
  if (sc.server.kind == ServerSpec::Kind::Mms) return max_workers();
  return sc.server.min_workers;
}

int EndpointState::max_workers() const {
  if (sc.server.kind == ServerSpec::Kind::Mms)
    return sc.server.mms_workers_per_model > 0 ? sc.server.mms_workers_per_model : itype->vcpu;
  if (sc.server.max_workers > 0) return sc.server.max_workers;
  // WlmConfigManager.getDefaultMaxWorkers (CPU): cpuCores / OMP_NUM_THREADS when set.
  const int omp = std::min(std::max(sc.server.omp_num_threads, 1), itype->vcpu);
  return std::max(1, itype->vcpu / omp);
}

}  // namespace mltwin::models::inference
