// EndpointState: see mltwin/models/endpoint/endpoint_state.hpp.
#include "mltwin/models/endpoint/endpoint_state.hpp"

namespace mltwin::models::inference {

EndpointState::EndpointState(core::Simulator& s, const InferenceScenario& scenario, ServingRecorder* r, MetricsAggregator* m,
                             EndpointStats& stats, core::RngStreams& rng)
    : sim(s), sc(scenario), rec(r), metrics(m), st(stats), itype(scenario.instance_type()),
      storage_bytes(scenario.model_storage_bytes()), rng_endpoint(rng.stream("endpoint.latencies")) {
  holders.resize(sc.models.size());
}

}  // namespace mltwin::models::inference
