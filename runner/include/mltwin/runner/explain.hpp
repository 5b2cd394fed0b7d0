// mltwin/runner/explain.hpp — "why was my job pending?", answered from a training run's
// results database (docs/results-schema.md): the job's phases over time, each period it waited
// with the plugin that decided and its reason (as Volcano v1.12.1 words it), the rule behind
// that plugin, what ended the wait (the jobs or pods whose release let it in), and what would
// have let it run sooner.
#pragma once
#include <string>

namespace mltwin::runner {

/// The explanation of one job, as text. `job` is a job name (jobs.name, e.g. "philly-01156")
/// or a job id (jobs.job). Times are printed in seconds since the start of the run and as
/// durations (d h m s). Throws std::runtime_error if the database cannot be read or is not a
/// training run's, std::invalid_argument if no job has that name or id.
std::string explain_job(const std::string& database, const std::string& job);

}  // namespace mltwin::runner
