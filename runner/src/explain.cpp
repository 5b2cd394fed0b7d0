// explain.cpp — runner::explain_job (see explain.hpp). Reads only the database.
#include "mltwin/runner/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/store/sqlite_store.hpp"

namespace mltwin::runner {
namespace {

using store::ResultColumn;
using store::ResultTable;

constexpr std::int64_t kNs = 1'000'000'000;

/// Column `name` of `t` (throws if absent: the database is not a training run's).
const ResultColumn& col(const ResultTable& t, const char* name) {
  for (const auto& c : t.columns)
    if (c.name == name) return c;
  throw std::runtime_error(std::string("results database has no column '") + name + "': not a training run's database?");
}
std::optional<std::int64_t> int_at(const ResultTable& t, const char* name, std::size_t row) {
  return col(t, name).int_at(row);
}
double real_at(const ResultTable& t, const char* name, std::size_t row) {
  return col(t, name).real_at(row).value_or(std::nan(""));
}
std::string text_at(const ResultTable& t, const char* name, std::size_t row) { return col(t, name).text_at(row); }

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

/// "1d 02h03m04.05s"-style duration, shortest form.
std::string dur(std::int64_t ns) {
  const double s = static_cast<double>(ns) / kNs;
  if (s < 60) return fmt::format("{:.3g} s", s);
  std::int64_t total = ns / kNs;
  const std::int64_t d = total / 86400, h = (total % 86400) / 3600, m = (total % 3600) / 60, sec = total % 60;
  if (d > 0) return fmt::format("{}d {:02}h{:02}m", d, h, m);
  if (h > 0) return fmt::format("{}h{:02}m{:02}s", h, m, sec);
  return fmt::format("{}m{:02}s", m, sec);
}
/// A time since the start of the run as a person reads a clock: "02:00:07.050", "80d 16:42:14"
/// (milliseconds only when there are any).
std::string at(std::int64_t ns) {
  const std::int64_t ms = (ns % kNs) / 1'000'000;
  std::int64_t total = ns / kNs;
  const std::int64_t d = total / 86400, h = (total % 86400) / 3600, m = (total % 3600) / 60, sec = total % 60;
  std::string out = d > 0 ? fmt::format("{}d {:02}:{:02}:{:02}", d, h, m, sec) : fmt::format("{:02}:{:02}:{:02}", h, m, sec);
  if (ms > 0) out += fmt::format(".{:03}", ms);
  return out;
}

/// The rule behind a plugin's verdict, and the knobs that would change it (Volcano v1.12.1).
struct Rule {
  const char* rule;
  const char* sooner;  ///< nullptr: nothing to do sooner (the verdict is no wait)
};
constexpr const char* kJobControllerRule =
    "Volcano's job controller (pkg/controllers/job) handles a pod event with the first policy naming it, the "
    "task's before the job's, else SyncJob: RestartJob deletes every pod, RestartTask the task's, both count a retry "
    "(Failed at maxRetry); SyncJob recreates a missing pod once the PodGroup is admitted but never a Failed one; "
    "training since the last checkpoint is lost";
const Rule* rule_of(const std::string& plugin) {
  static const std::map<std::string, Rule> rules = {
      {"overcommit",
       {"the overcommit plugin (pkg/scheduler/plugins/overcommit) admits a PodGroup to Inqueue only while the "
        "minResources of the PodGroups already Inqueue, plus the resources in use, plus its own fit within "
        "overcommit-factor (default 1.2) x the cluster's allocatable resources",
        "a larger overcommit-factor or cluster, or fewer or smaller PodGroups admitted ahead of it"}},
      {"overcommit-trap",
       {"the overcommit plugin (pkg/scheduler/plugins/overcommit) admits a PodGroup to Inqueue only while the "
        "minResources of the PodGroups already Inqueue, plus the resources in use, plus its own fit within "
        "overcommit-factor (default 1.2) x the allocatable resources of the nodes present; until then the job "
        "controller creates no pod, and the cluster autoscaler, which adds nodes only for Pending pods, never "
        "scales out for it (volcano#3910)",
        "enqueue left out of volcano.actions (allocate then admits the PodGroup, its pods are created and the "
        "autoscaler scales out for them); or an overcommit-factor, or node groups' min_size, large enough that "
        "overcommit-factor x the nodes present admits it — with no node present, no factor does"}},
      {"proportion",
       {"the proportion plugin (pkg/scheduler/plugins/proportion) keeps each queue within its deserved share: the "
        "cluster divided among the queues with demand in proportion to their weights, capped by capability, "
        "raised to guarantee",
        "a larger weight (or guarantee) for its queue — or a larger spec.capability if that caps its share, which "
        "weight cannot raise —, less of the queue's share in use, or less demand from the other queues"}},
      {"gang",
       {"the gang plugin (pkg/scheduler/plugins/gang) places a job only when all of its minAvailable pods fit at "
        "once; '0/N nodes are unavailable' counts, for each node, the first reason it failed: the first resource it "
        "lacked, or a predicate (an untolerated taint, a node selector or affinity it does not match)",
        "enough nodes with room for all of its pods at once (a larger node group, or other jobs' pods ending "
        "sooner), smaller pods, or tolerations and node affinity that let it use more nodes"}},
      {"predicates",
       {"the predicates plugin (pkg/scheduler/plugins/predicates) filters nodes by the pod's node selector, "
        "affinity, taints and tolerations",
        "nodes matching the pod's constraints"}},
      {"sla",
       {"the sla plugin (pkg/scheduler/plugins/sla) counts a job's waiting time (its annotation sla-waiting-time, "
        "else the plugin's argument) from its PodGroup's creation; past it, the job's Permit lets it into Inqueue "
        "whatever the plugins of later tiers vote, and, with sla in a tier before gang's, lets allocate hold the idle "
        "resources found for its pods (pipelined) until the whole gang fits, so that smaller jobs cannot take them",
        "the rest of its gang's nodes freed by the pods running there (it already holds what it found); placing sla "
        "in a tier before gang's if it is not (gang's Reject otherwise voids the hold)"}},
      {"proportion-capability",
       {"the proportion plugin's enqueue check (pkg/scheduler/plugins/proportion, JobEnqueueableFn) admits a "
        "PodGroup to Inqueue only while its minResources, plus what its queue has allocated and admitted (less "
        "elastic resources), fit the queue's real capability: the cluster less the other queues' guarantees, capped "
        "by the queue's spec.capability — the queue's weight plays no part",
        "a larger spec.capability (when the queue sets one) or guarantee for its queue, or a larger cluster, or less "
        "of that capability in use by the queue's running and Inqueue jobs; a larger weight does not help"}},
      {"capacity",
       {"the capacity plugin (pkg/scheduler/plugins/capacity) keeps each queue within its real capability (its "
        "spec.capability, and what the other queues' guarantees leave; with enableHierarchy, also each ancestor's) "
        "when admitting and allocating; its spec.deserved only decides reclaim",
        "a larger capability (or guarantee) for its queue and its ancestors, or less of it in use"}},
      {"drf",
       {"the drf plugin (pkg/scheduler/plugins/drf) orders jobs and queues by dominant resource share",
        "a smaller dominant share for it or its queue"}},
      {"job-controller-end",
       {"Volcano's job controller (pkg/controllers/job) handles a pod event with the first policy naming it, the "
        "task's before the job's: CompleteJob, AbortJob and TerminateJob kill the Job's remaining pods and end it "
        "Completed, Aborted or Terminated once they are gone (state/running.go, completing.go, aborting.go, terminating.go)",
        nullptr}},
      {"job-controller",
       {kJobControllerRule,
        "a shorter checkpoint interval (less lost work), fewer evictions (its queue within its deserved share, or "
        "preempt/reclaim left out), and a PodFailed policy (TorchX max_retries >= 1) where survivors may time out"}},
      {"job-controller-fault",
       {kJobControllerRule,
        "a shorter checkpoint interval (less lost work), fewer of the faults behind the pod event (failed nodes, "
        "Spot interruptions: On-Demand capacity for long jobs), and a PodFailed policy (TorchX max_retries >= 1) where "
        "survivors may time out"}},
  };
  auto it = rules.find(plugin);
  return it == rules.end() ? nullptr : &it->second;
}

/// The rule's key for a verdict: the plugin, except proportion's enqueue refusal, which is a
/// capability limit, not a share (its reason as proportion.go words it).
std::string rule_key(const std::string& plugin, const std::string& reason, bool trapped) {
  if (plugin == "proportion" && reason.starts_with("queue resource quota insufficient")) return "proportion-capability";
  if (plugin == "overcommit" && trapped) return "overcommit-trap";
  // A restart the scheduler's eviction caused, or one a fault caused (a failed node, a Spot
  // interruption, a taint): the advice differs (models/training/job_controller.cpp's rows).
  if (plugin == "job-controller" && reason.find("evicted (preempt)") == std::string::npos &&
      reason.find("evicted (reclaim)") == std::string::npos)
    return "job-controller-fault";
  return plugin;
}

/// A job-controller verdict that ends the Job rather than restarting it: the Volcano Job phase
/// after a CompleteJob, AbortJob or TerminateJob (models/training/job_controller.cpp's rows).
bool ends_job(const std::string& plugin, const std::string& code) {
  static const std::set<std::string> ending = {"Completing", "Completed", "Aborting", "Aborted", "Terminating", "Terminated"};
  return plugin == "job-controller" && ending.count(code) > 0;
}

struct Decision {
  std::int64_t t;
  std::string code, plugin, reason;
  bool same_verdict(const Decision& o) const { return code == o.code && plugin == o.plugin && reason == o.reason; }
};

}  // namespace

std::size_t detail::repeating_run(const std::vector<std::string>& verdicts, const std::vector<bool>& mergeable, std::size_t i) {
  // Greedy: extend while the periods are mergeable and use at most kMaxVerdicts verdicts; then
  // drop trailing periods whose verdict occurs once in the run (they are not repetitions).
  constexpr std::size_t kMaxVerdicts = 3, kMinPeriods = 4;
  std::vector<std::string_view> seen;
  std::size_t j = i;
  while (j < verdicts.size() && mergeable[j]) {
    if (std::find(seen.begin(), seen.end(), verdicts[j]) == seen.end()) {
      if (seen.size() == kMaxVerdicts) break;
      seen.push_back(verdicts[j]);
    }
    ++j;
  }
  auto count = [&](std::size_t end, std::string_view v) {
    return static_cast<std::size_t>(std::count(verdicts.begin() + static_cast<std::ptrdiff_t>(i), verdicts.begin() + static_cast<std::ptrdiff_t>(end), v));
  };
  while (j > i && count(j, verdicts[j - 1]) == 1) --j;
  return j - i >= kMinPeriods ? j : i;
}

std::string explain_job(const std::string& db, const std::string& job_arg) {
  const ResultTable kind = store::query_file(db, "SELECT value FROM run_meta WHERE key = 'run_kind'");
  if (kind.rows == 1 && text_at(kind, "value", 0) != "training")
    throw std::runtime_error("results database '" + db + "' is an inference run's; explain answers for training jobs");

  const bool numeric = !job_arg.empty() && std::all_of(job_arg.begin(), job_arg.end(), [](char c) { return c >= '0' && c <= '9'; });
  const ResultTable jobs = store::query_file(
      db, "SELECT * FROM jobs WHERE name = " + quoted(job_arg) + (numeric ? " OR job = " + job_arg : std::string()) +
              " ORDER BY name = " + quoted(job_arg) + " DESC LIMIT 1");
  if (jobs.rows == 0) throw std::invalid_argument("no job named or numbered '" + job_arg + "' in " + db);
  const std::int64_t id = *int_at(jobs, "job", 0);
  const std::string name = text_at(jobs, "name", 0);
  const std::int64_t submit = *int_at(jobs, "submit_ns", 0);
  const auto scheduled = int_at(jobs, "scheduled_ns", 0);
  const auto start = int_at(jobs, "start_ns", 0);
  const auto end = int_at(jobs, "end_ns", 0);
  const std::string phase = text_at(jobs, "phase", 0);

  // The schedule period: a release at time x is seen by the session at the next boundary.
  std::int64_t period = kNs;
  double starvation_factor = 1;  // output.starvation_wait_factor (the summary's flag)
  {
    const ResultTable sc = store::query_file(db, "SELECT value FROM run_meta WHERE key = 'scenario_json'");
    if (sc.rows == 1) {
      const auto doc = nlohmann::json::parse(text_at(sc, "value", 0), nullptr, false);
      if (doc.is_object() && doc.contains("output") && doc["output"].contains("starvation_wait_factor") &&
          doc["output"]["starvation_wait_factor"].is_number())
        starvation_factor = doc["output"]["starvation_wait_factor"].get<double>();
      if (doc.is_object() && doc.contains("volcano") && doc["volcano"].contains("schedule_period")) {
        const auto& p = doc["volcano"]["schedule_period"];
        if (p.is_number()) period = static_cast<std::int64_t>(std::llround(p.get<double>() * 1e9));
        else if (p.is_string()) period = core::parse_duration(p.get<std::string>()).count_ns();
      }
    }
  }

  std::string out;
  out += fmt::format("Job {} (job {}) in queue {}: {} pod(s) x {} Neuron device(s), {:g} CPU, {:.1f} GiB, {} EFA each; {}\n",
                     name, id, text_at(jobs, "queue", 0), *int_at(jobs, "nnodes", 0),
                     *int_at(jobs, "neuron_devices_per_pod", 0), real_at(jobs, "cpu_per_pod", 0),
                     real_at(jobs, "memory_gib_per_pod", 0), *int_at(jobs, "efa_per_pod", 0), phase);
  out += fmt::format("  submitted at {}", at(submit));
  if (scheduled) out += fmt::format("; placed after {} of queueing", dur(*scheduled - submit));
  // Start (all pods running) to end: training for a torchrun job, the pods' work for a job of
  // independent pods.
  if (start && end) out += fmt::format("; ran {}", dur(*end - *start));
  if (end) out += fmt::format("; ended at {} ({} after submission)", at(*end), dur(*end - submit));
  out += "\n";
  const std::string final_reason = text_at(jobs, "reason", 0);
  if (!final_reason.empty()) out += "  final reason: " + final_reason + "\n";
  // The autoscaler trap (models/training.cpp finish: the final reason names it).
  const bool trapped = final_reason.find("the autoscaler trap") != std::string::npos;
  // The queue deadlock the run ended in, if any (run_meta('deadlock'), io/report.hpp Deadlock).
  nlohmann::json deadlock;
  {
    const ResultTable dl = store::query_file(db, "SELECT value FROM run_meta WHERE key = 'deadlock'");
    if (dl.rows == 1) deadlock = nlohmann::json::parse(text_at(dl, "value", 0), nullptr, false);
  }
  const std::string queue = text_at(jobs, "queue", 0);
  const bool deadlocked = phase == "Pending" && deadlock.is_object() && deadlock.contains("queues") &&
                          deadlock["queues"].is_array() &&
                          std::any_of(deadlock["queues"].begin(), deadlock["queues"].end(),
                                      [&](const nlohmann::json& q) { return q.is_string() && q.get<std::string>() == queue; });

  // Timeline: PodGroup phases and pod events, in time order.
  const std::string sid = std::to_string(id);
  const ResultTable phases =
      store::query_file(db, "SELECT t_ns, from_phase, to_phase FROM phases WHERE job = " + sid + " ORDER BY rowid");
  const ResultTable pods =
      store::query_file(db, "SELECT pod, event, node, t_ns FROM pods WHERE job = " + sid + " ORDER BY rowid");
  std::vector<std::pair<std::int64_t, std::string>> lines;
  const bool refused = phase == "Refused";  // the admission webhook refused the Job: no PodGroup, no pods
  lines.emplace_back(submit, refused ? "submitted: the Job's creation was refused (no PodGroup, no pods)" : "submitted: PodGroup Pending");
  for (std::size_t i = 0; i < phases.rows; ++i)
    lines.emplace_back(*int_at(phases, "t_ns", i), "PodGroup " + text_at(phases, "from_phase", i) + " -> " + text_at(phases, "to_phase", i));
  // Pod events at the same instant are grouped: "4 pods Bound on trn1-0, trn1-1, ...".
  for (std::size_t i = 0; i < pods.rows;) {
    const std::int64_t t = *int_at(pods, "t_ns", i);
    const std::string ev = text_at(pods, "event", i);
    std::vector<std::string> nodes;
    std::size_t j = i;
    for (; j < pods.rows && *int_at(pods, "t_ns", j) == t && text_at(pods, "event", j) == ev; ++j)
      if (auto n = text_at(pods, "node", j); !n.empty()) nodes.push_back(n);
    std::sort(nodes.begin(), nodes.end());
    std::string line = fmt::format("{} pod(s) {}", j - i, ev);
    if (!nodes.empty()) line += " on " + fmt::format("{}", fmt::join(nodes, ", "));
    lines.emplace_back(t, line);
    i = j;
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out += "\nTimeline (time since the start of the run, then since submission):\n";
  for (const auto& [t, what] : lines) out += fmt::format("  {:>17}  +{:<12} {}\n", at(t), dur(t - submit), what);

  // Waiting periods: each verdict holds from its session until the next verdict.
  const ResultTable dec =
      store::query_file(db, "SELECT t_ns, code, plugin, reason FROM decisions WHERE job = " + sid + " ORDER BY rowid");
  std::vector<Decision> ds;
  for (std::size_t i = 0; i < dec.rows; ++i)
    ds.push_back({*int_at(dec, "t_ns", i), text_at(dec, "code", i), text_at(dec, "plugin", i), text_at(dec, "reason", i)});
  const ResultTable meta = store::query_file(db, "SELECT value FROM run_meta WHERE key = 'end_ns'");
  const std::int64_t run_end = meta.rows == 1 ? std::stoll(text_at(meta, "value", 0)) : (end ? *end : submit);

  if (refused) {
    out += "\nWhy it never ran: it was refused at submission (the final reason above); nothing was ever scheduled.\n";
    return out;
  }
  out += "\nWhy it waited:\n";
  bool waited = false;
  std::set<std::string> explained;  // plugins whose rule was printed (once: a job may wait on one for months)
  auto rule_once = [&](const Decision& v) {
    const std::string key = ends_job(v.plugin, v.code) ? "job-controller-end" : rule_key(v.plugin, v.reason, trapped);
    if (const Rule* r = rule_of(key); r != nullptr && explained.insert(key).second) {
      out += fmt::format("      rule: {}.\n", r->rule);
      if (r->sooner != nullptr) out += fmt::format("      sooner with: {}.\n", r->sooner);
    }
  };
  // Repeated identical periods (a job alternating between two verdicts every few sessions, for
  // days) are merged: a period whose verdict gives way to another waiting verdict — nothing
  // admitted, placed or restarted it — may join a run (detail::repeating_run).
  std::vector<std::string> verdicts;
  std::vector<bool> mergeable;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    verdicts.push_back(ds[i].code + '\x1f' + ds[i].plugin + '\x1f' + ds[i].reason);
    auto waiting = [&](std::size_t k) { return ds[k].code != "Success" && ds[k].plugin != "job-controller"; };  // nor an ending
    mergeable.push_back(waiting(i) && i + 1 < ds.size() && waiting(i + 1));
  }
  std::vector<std::size_t> endings;  // the job controller's rows that ended the Job (not waits)
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const Decision& d = ds[i];
    if (d.code == "Success") continue;
    if (ends_job(d.plugin, d.code)) {
      endings.push_back(i);
      continue;
    }
    waited = true;
    if (const std::size_t j = detail::repeating_run(verdicts, mergeable, i); j > i) {
      // ds[i .. j) alternate among a few verdicts; ds[j] (another waiting verdict) is printed next.
      std::vector<std::size_t> first;  // each verdict's first period, in order of appearance
      for (std::size_t k = i; k < j; ++k)
        if (std::none_of(first.begin(), first.end(), [&](std::size_t f) { return ds[f].same_verdict(ds[k]); })) first.push_back(k);
      out += fmt::format("  {} .. {} ({}): {} periods, alternating between {} verdicts:\n", at(d.t), at(ds[j].t),
                         dur(ds[j].t - d.t), j - i, first.size());
      for (std::size_t f : first) {
        std::size_t n = 0;
        std::int64_t total = 0;
        for (std::size_t k = f; k < j; ++k)
          if (ds[k].same_verdict(ds[f])) {
            ++n;
            total += ds[k + 1].t - ds[k].t;
          }
        out += fmt::format("    {} period(s), {} in all: {} by {}: {}\n", n, dur(total), ds[f].code,
                           ds[f].plugin.empty() ? "-" : ds[f].plugin, ds[f].reason);
      }
      for (std::size_t f : first) rule_once(ds[f]);
      i = j - 1;
      continue;
    }
    bool last = i + 1 == ds.size();
    // A job that ended (Failed, Aborted, ...) waits no longer than its end, even if a session
    // still saw its PodGroup while its pods terminated.
    const bool ended_here = last && end && *end < run_end;
    std::int64_t until = last ? (ended_here ? *end : run_end) : ds[i + 1].t;
    // A restart (job controller) ends when the job's pods are bound again, which the scheduler
    // records as no verdict when it places the job in its first session: the next Bound event.
    if (d.plugin == "job-controller")
      for (std::size_t p = 0; p < pods.rows; ++p) {
        const std::int64_t t = *int_at(pods, "t_ns", p);
        if (t > d.t && t < until && text_at(pods, "event", p) == "Bound") {
          until = t;
          last = false;
          break;
        }
      }
    out += fmt::format("  {} .. {} ({}): {} by {}: {}\n", at(d.t), at(until), dur(until - d.t), d.code,
                       d.plugin.empty() ? "-" : d.plugin, d.reason);
    rule_once(d);
    if (last && ended_here) {
      out += fmt::format("      the job ended {} at {}.\n", phase, at(*end));
      continue;
    }
    if (last) {
      out += deadlocked ? "      still waiting when the run ended, deadlocked (see Deadlock below).\n"
                        : "      still waiting when the run ended.\n";
      continue;
    }
    if (i + 1 == ds.size() || until < ds[i + 1].t) {  // ended by the restart's bind
      out += fmt::format("      placed again at {} (its pods bound).\n", at(until));
      continue;
    }
    // What ended this wait: what was released in the schedule period before the next verdict.
    const Decision& next = ds[i + 1];
    const std::int64_t lo = next.t - period, hi = next.t;
    if (next.plugin == "sla" && next.code == "Success") {
      // Admitted by sla's Permit, whatever the other plugins voted (their rejection is the wait).
      out += fmt::format("      admitted at {} by sla: {}.\n", at(next.t), next.reason);
    } else if (next.plugin == "enqueue" && next.code == "Success") {
      const ResultTable freed = store::query_file(
          db, fmt::format("SELECT j.name, j.job, p.t_ns, j.nnodes, j.neuron_devices_per_pod FROM phases p JOIN jobs j ON j.job = p.job "
                          "WHERE p.to_phase = 'Completed' AND p.t_ns > {} AND p.t_ns <= {} ORDER BY p.t_ns, j.job",
                          lo, hi));
      for (std::size_t k = 0; k < freed.rows; ++k)
        out += fmt::format("      admitted at {} after job {} (job {}) completed at {}, releasing {} pod(s) x {} Neuron device(s).\n",
                           at(next.t), text_at(freed, "name", k), *int_at(freed, "job", k), at(*int_at(freed, "t_ns", k)),
                           *int_at(freed, "nnodes", k), *int_at(freed, "neuron_devices_per_pod", k));
      if (freed.rows == 0) out += fmt::format("      admitted at {}.\n", at(next.t));
    } else if (next.plugin == "allocate" && next.code == "Success") {
      // The nodes of the gang placed by this session: its first nnodes Bound events from then on.
      std::set<std::string> mine;
      const std::int64_t gang = *int_at(jobs, "nnodes", 0);
      for (std::size_t k = 0, n = 0; k < pods.rows && static_cast<std::int64_t>(n) < gang; ++k)
        if (text_at(pods, "event", k) == "Bound" && *int_at(pods, "t_ns", k) >= next.t) {
          mine.insert(text_at(pods, "node", k));
          ++n;
        }
      const ResultTable freed = store::query_file(
          db, fmt::format("SELECT j.name, j.job, p.node, p.t_ns, p.event FROM pods p JOIN jobs j ON j.job = p.job "
                          "WHERE p.event IN ('Succeeded', 'Deleted') AND p.t_ns > {} AND p.t_ns <= {} AND p.job <> {} "
                          "ORDER BY p.t_ns, p.node",
                          lo, hi, id));
      std::size_t told = 0;
      for (std::size_t k = 0; k < freed.rows; ++k) {
        if (mine.count(text_at(freed, "node", k)) == 0) continue;
        out += fmt::format("      placed at {} on {}, freed at {} by job {}'s pod ({}).\n", at(next.t),
                           text_at(freed, "node", k), at(*int_at(freed, "t_ns", k)), text_at(freed, "name", k),
                           text_at(freed, "event", k));
        ++told;
      }
      if (told == 0) out += fmt::format("      placed at {}.\n", at(next.t));
    }
  }
  if (!waited && phase != "Refused") out += "  it never waited: every session that considered it admitted or placed it.\n";
  if (!endings.empty()) {
    out += "\nHow it ended:\n";
    for (std::size_t i : endings) {
      out += fmt::format("  {}: {} by job-controller: {}\n", at(ds[i].t), ds[i].code, ds[i].reason);
      rule_once(ds[i]);
    }
    if (end) out += fmt::format("      the job ended {} at {}.\n", phase, at(*end));
  }
  if (deadlocked) {
    std::vector<std::string> qs;
    for (const auto& q : deadlock["queues"])
      if (q.is_string()) qs.push_back(q.get<std::string>());
    const std::string unlock_queue = deadlock.value("unlock_queue", std::string());
    const int unlock_weight = deadlock.value("unlock_weight", 0);
    out += fmt::format(
        "\nDeadlock: the run ended with queues {} each deserving less than their smallest job (the summary's short-queue "
        "lines), so proportion refuses every gang and nothing runs: {} job(s) waited on an idle cluster, this one among "
        "them (queue {}). Remedy: {}a guarantee (spec.guarantee.resource) of at least its smallest job for one of these "
        "queues. Raising every deadlocked queue's weight keeps the lock.\n",
        fmt::join(qs, ", "), deadlock.value("waiting", std::size_t{0}), queue,
        unlock_queue.empty() ? std::string()
                             : fmt::format("raise one queue's weight — queue {} to {} — so that its smallest job fits its share; "
                                           "once it asks for nothing more, the others' shares grow. Or ",
                                           unlock_queue, unlock_weight));
  }
  if (trapped)
    out += "\nAutoscaler trap: the job never got a pod: enqueue kept its PodGroup Pending (the overcommit plugin admits no "
           "more than the nodes present allow), so the job controller created no pod and the cluster autoscaler, which "
           "adds nodes only for Pending pods, never scaled out for it (volcano#3910). Remedy: leave enqueue out of "
           "volcano.actions (or enough nodes present from the start that overcommit-factor x their allocatable admits it; a larger "
           "overcommit-factor does not help a node group that scales from zero).\n";
  // A job that can never be placed (models/training.cpp: its final reason says so) waits for
  // want of nodes, not of turns: the summary leaves it out of both starvation flags, and so does
  // explain.
  const bool never_placeable = final_reason.starts_with("can never be placed");
  // Starvation (the summary's flag, io/report.hpp find_starvation): it waited more than the
  // factor x its run time while jobs of its queue submitted later and requesting fewer
  // NeuronCores in all were placed before it.
  if (phase != "Refused" && !never_placeable) {
    const std::int64_t placed = scheduled ? *scheduled : run_end;
    const double waited_s = static_cast<double>(placed - submit) / 1e9;
    const double run_s = real_at(jobs, "duration_s", 0);
    if (waited_s > starvation_factor * run_s) {
      const std::int64_t size = *int_at(jobs, "nnodes", 0) * *int_at(jobs, "neuron_devices_per_pod", 0);
      const ResultTable over = store::query_file(
          db, fmt::format("SELECT name, scheduled_ns FROM jobs WHERE queue = {} AND phase <> 'Refused' AND submit_ns > {} "
                          "AND nnodes * neuron_devices_per_pod < {} AND scheduled_ns IS NOT NULL AND scheduled_ns < {} "
                          "ORDER BY scheduled_ns, job",
                          quoted(text_at(jobs, "queue", 0)), submit, size, scheduled ? *scheduled : INT64_MAX));
      if (over.rows > 0)
        out += fmt::format(
            "\nStarvation: it waited {} ({:.1f}x its {} run) while {} later, smaller job(s) of queue {} were placed before it "
            "(the first, {}, at {}): Volcano's allocate skips a gang that does not fit now and goes on with the next, smaller "
            "job. Remedy: the sla plugin (an sla-waiting-time for this job, or for all), which holds the cluster for a job "
            "that has waited that long (docs/volcano.md, 'Faithful to a fault').\n",
            dur(placed - submit), waited_s / std::max(run_s, 1e-9), dur(static_cast<std::int64_t>(std::llround(run_s * 1e9))),
            over.rows, text_at(jobs, "queue", 0), text_at(over, "name", 0), at(*int_at(over, "scheduled_ns", 0)));
    }
  }
  // Cross-queue starvation (the summary's flag, io/report.hpp find_cross_queue_starvation): it
  // waited more than the factor x its run time while jobs of other queues submitted later were
  // placed before it.
  if (phase != "Refused" && !never_placeable) {
    const std::int64_t placed = scheduled ? *scheduled : run_end;
    const double waited_s = static_cast<double>(placed - submit) / 1e9;
    const double run_s = real_at(jobs, "duration_s", 0);
    if (waited_s > starvation_factor * run_s) {
      const ResultTable over = store::query_file(
          db, fmt::format("SELECT queue, COUNT(*) AS n, MIN(scheduled_ns) AS first FROM jobs WHERE queue <> {} AND "
                          "phase <> 'Refused' AND submit_ns > {} AND scheduled_ns IS NOT NULL AND scheduled_ns < {} "
                          "GROUP BY queue ORDER BY n DESC, queue",
                          quoted(text_at(jobs, "queue", 0)), submit, scheduled ? *scheduled : INT64_MAX));
      if (over.rows > 0) {
        std::string by;
        for (std::size_t k = 0; k < over.rows; ++k)
          by += fmt::format("{}{} of queue {} (the first at {})", k ? ", " : "", *int_at(over, "n", k), text_at(over, "queue", k),
                            at(*int_at(over, "first", k)));
        out += fmt::format(
            "\nCross-queue starvation: it waited {} ({:.1f}x its {} run) while later jobs of other queues were placed before "
            "it: {}. Volcano's allocate takes queues in QueueOrderFn order (spec.priority, then share; on a tie the Queue "
            "created first, then the lower UID: framework/session_plugins.go). The run's summary flags the job "
            "(cross_queue_starvation) only if it measured a queue-order tie going against it; then the remedy is a higher "
            "spec.priority for queue {} than for queue {}; if the shares decided, the queue share flag and its weights.\n",
            dur(placed - submit), waited_s / std::max(run_s, 1e-9), dur(static_cast<std::int64_t>(std::llround(run_s * 1e9))), by,
            text_at(jobs, "queue", 0), text_at(over, "queue", 0));
      }
    }
  }
  // Reclaim churn (the summary's flag, io/report.hpp ReclaimChurn): evicted by reclaim twice or more.
  std::size_t reclaimed = 0;
  for (const Decision& d : ds)
    if (d.plugin == "job-controller" && d.reason.find("evicted (reclaim)") != std::string::npos) ++reclaimed;
  if (reclaimed >= 2)
    out += fmt::format(
        "\nReclaim churn: the reclaim action evicted this job {} times, restarting it each time (RestartJob). "
        "Volcano's reclaim takes pods, one by one, from any queue holding more than its deserved share for a queue whose "
        "next pod fits within its own, so a gang larger than its queue's share is reclaimed each time it is placed. "
        "Remedy: queue shares that hold whole gangs and sum to at most the cluster (proportion's weights, or "
        "capacity's spec.deserved), or reclaimable: false on the queues.\n",
        reclaimed);
  return out;
}

}  // namespace mltwin::runner
