// The session runner and checks of the conformance suite (conformance.hpp).
#include <algorithm>
#include <random>
#include <sstream>

#include "conformance.hpp"
#include "mltwin/policy/session.hpp"

namespace mltwin::conformance {

std::vector<DeclaredRow>& declared_rows() {
  static std::vector<DeclaredRow> rows;
  return rows;
}

PluginOption plugin(std::string name, std::vector<Ext> enabled, Arguments a) {
  PluginOption p{std::move(name), {}, std::move(a)};
  for (auto& e : p.enabled) e = false;
  for (Ext e : enabled) p.enabled[static_cast<std::size_t>(e)] = true;
  return p;
}

Arguments args(std::vector<std::pair<std::string, std::string>> kv) {
  Arguments a;
  for (auto& [k, v] : kv) a.set(std::move(k), std::move(v));
  return a;
}

void rank_uids_by_name(World& w) {
  std::vector<std::pair<std::string, TaskId>> tasks;
  std::vector<std::pair<std::string, JobId>> jobs;
  std::vector<std::pair<std::string, QueueId>> queues;
  for (const TaskInfo& t : w.state.tasks()) tasks.emplace_back(t.name, t.id);
  for (const JobInfo& j : w.state.jobs()) jobs.emplace_back(j.name, j.id);
  for (const QueueInfo& q : w.state.queues()) queues.emplace_back(q.name, q.id);
  std::sort(tasks.begin(), tasks.end());
  std::sort(jobs.begin(), jobs.end());
  std::sort(queues.begin(), queues.end());
  // Equal names get equal UIDs, as upstream's would.
  auto rank = [](const auto& sorted, auto&& set) {
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i == 0 || sorted[i].first != sorted[i - 1].first) ++r;
      set(sorted[i].second, r);
    }
  };
  rank(tasks, [&](TaskId t, std::uint64_t r) { w.state.task(t).uid = r; });
  rank(jobs, [&](JobId j, std::uint64_t r) { w.state.job(j).uid = r; });
  rank(queues, [&](QueueId q, std::uint64_t r) { w.state.queue(q).uid = r; });
}

SessionOn::SessionOn(World& w, const std::vector<Tier>& tiers, const std::map<std::string, Arguments>& action_args) {
  rank_uids_by_name(w);
  cfg.tiers = tiers;
  cfg.action_arguments = action_args;
  const std::string problem = cfg.validate();
  REQUIRE_MESSAGE(problem.empty(), problem);
  session = std::make_unique<Session>(w.state, backend, cfg, rng, 1);
  session->open();
}

SessionOn::~SessionOn() { session->close(); }

Outcome run_session(World& w, const std::vector<std::string>& actions, const std::vector<Tier>& tiers,
                    const std::map<std::string, Arguments>& action_args) {
  SchedulerConfig cfg;
  cfg.actions = actions;
  cfg.tiers = tiers;
  cfg.action_arguments = action_args;
  rank_uids_by_name(w);
  const std::string problem = cfg.validate();
  REQUIRE_MESSAGE(problem.empty(), problem);
  RecordingBackend be;
  std::mt19937_64 rng{7};
  Session s(w.state, be, cfg, rng, 1);
  s.open();
  s.run_actions();
  Outcome o;
  for (const JobInfo& j : w.state.jobs()) {
    if (!j.live) continue;
    for (TaskId t : j.tasks) {
      const TaskInfo& ti = w.state.task(t);
      if (ti.status == TaskStatus::Pipelined) o.pipelined[j.name].push_back(w.state.node(ti.node).name);
      if (s.find_fit_errors(t)) o.fit_errors.insert(ti.name);
    }
  }
  s.close();
  for (const JobInfo& j : w.state.jobs())
    if (const Verdict* v = s.job_reason(j.id)) o.reasons[j.name] = std::string(v->plugin) + ": " + std::string(v->reason);
  for (const auto& b : be.binds) {
    o.binds[w.state.task(b.task).name] = w.state.node(b.node).name;
    ++o.bind_calls;
  }
  for (const auto& [t, reason] : be.evictions) o.evicted.push_back(w.state.task(t).name);
  for (const JobInfo& j : w.state.jobs())
    if (j.live) o.phases[j.name] = j.phase;
  return o;
}

namespace {
template <class M>
std::string show(const M& m) {
  std::ostringstream os;
  os << "{";
  for (const auto& [k, v] : m) os << " " << k << "->" << v;
  os << " }";
  return os.str();
}
}  // namespace

void check_binds(const Outcome& o, const std::map<std::string, std::string>& want) {
  INFO("want binds " << show(want) << ", got " << show(o.binds));
  CHECK(o.bind_calls == static_cast<int>(want.size()));
  CHECK(o.binds == want);
}

void check_bind_count(const Outcome& o, int want) {
  INFO("got binds " << show(o.binds));
  CHECK(o.bind_calls == want);
}

void check_evicted(const Outcome& o, const std::vector<std::string>& want) {
  std::map<std::string, int> w, g;
  for (const auto& p : want) ++w[p];
  for (const auto& p : o.evicted) ++g[p];
  INFO("want evictions " << show(w) << ", got " << show(g));
  CHECK(g == w);
}

void check_pipelined(const Outcome& o, const std::map<std::string, std::vector<std::string>>& want) {
  for (const auto& entry : want) {  // no structured binding: clang 14 cannot capture one (INFO)
    const std::string& job = entry.first;
    const std::vector<std::string>& nodes = entry.second;
    INFO("job " << job);
    const auto it = o.pipelined.find(job);
    REQUIRE_MESSAGE(it != o.pipelined.end(), "no task of " << job << " pipelined");
    for (const auto& n : it->second) {
      INFO("pipelined on " << n);
      CHECK(std::find(nodes.begin(), nodes.end(), n) != nodes.end());
    }
  }
}

void check_phases(const Outcome& o, const std::map<std::string, PodGroupPhase>& want) {
  for (const auto& entry : want) {  // no structured binding: clang 14 cannot capture one (INFO)
    const std::string& job = entry.first;
    const PodGroupPhase phase = entry.second;
    const auto it = o.phases.find(job);
    REQUIRE_MESSAGE(it != o.phases.end(), "job " << job << " is not in the session");
    INFO("job " << job << ": want " << to_string(phase) << ", got " << to_string(it->second));
    CHECK(it->second == phase);
  }
}

}  // namespace mltwin::conformance
