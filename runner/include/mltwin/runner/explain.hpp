// mltwin/runner/explain.hpp — "why was my job pending?", answered from a training run's
// results database (docs/results-schema.md): the job's phases over time, each period it waited
// with the plugin that decided and its reason (as Volcano v1.12.1 words it), the rule behind
// that plugin, what ended the wait (the jobs or pods whose release let it in), and what would
// have let it run sooner.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace mltwin::runner {

/// The explanation of one job, as text. `job` is a job name (jobs.name, e.g. "philly-01156")
/// or a job id (jobs.job). Times are printed in seconds since the start of the run and as
/// durations (d h m s). Throws std::runtime_error if the database cannot be read or is not a
/// training run's, std::invalid_argument if no job has that name or id.
std::string explain_job(const std::string& database, const std::string& job);

namespace detail {
/// Where a run of repeated waiting periods starting at period `i` ends (one past its last
/// period), or `i` if none starts there. `verdicts[k]`: period k's verdict (code, plugin and
/// reason, as one string); `mergeable[k]`: period k is a wait that gave way to another wait
/// (not the last period, not followed by an admission, a placement or a restart). A run is the
/// longest stretch of mergeable periods from `i` using at most 3 distinct verdicts, less its
/// trailing periods whose verdict occurs once in it, if at least 4 periods remain.
std::size_t repeating_run(const std::vector<std::string>& verdicts, const std::vector<bool>& mergeable, std::size_t i);
}  // namespace detail

}  // namespace mltwin::runner
