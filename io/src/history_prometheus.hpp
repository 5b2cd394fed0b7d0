// history_prometheus.hpp — the job history from a Prometheus export of kube-state-metrics'
// pod series (io::read_job_history; history_prometheus.cpp says how it is read).
#pragma once
#include <string>

#include "mltwin/io/job_history.hpp"

namespace mltwin::io::detail {

/// Whether `data` is the JSON of Prometheus' HTTP API (a "resultType", no Kubernetes "kind").
bool looks_like_prometheus(const std::string& data);

/// The Volcano Jobs of a query_range (or query) answer over kube_pod_created,
/// kube_pod_start_time, kube_pod_completion_time, kube_pod_container_resource_requests,
/// kube_pod_labels and kube_pod_info, appended to `out` by submit time. Throws ScenarioError
/// naming the file and the JSON path.
void read_prometheus_history(const std::string& path, const std::string& data, JobHistory& out);

}  // namespace mltwin::io::detail
