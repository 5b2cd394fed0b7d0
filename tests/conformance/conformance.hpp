// tests/conformance/conformance.hpp — Volcano v1.12.1's own scheduler tests as mltwin's
// conformance suite.
//
// Every table case of pkg/scheduler/actions/*/*_test.go and pkg/scheduler/plugins/**/*_test.go
// at v1.12.1 is a row of upstream_cases.tsv (scripts/conformance/list-upstream-cases.sh). A row
// is either ported here, as a doctest case declared with UPSTREAM_CASE under its upstream file,
// test function and name, or declared NOT_APPLICABLE with the feature it needs that mltwin does
// not model. The suite's main (main.cpp) runs the cases and writes docs/conformance.md from the
// rows and the results: `make test` fails when the page is stale, `make docs` rewrites it.
//
// A ported case builds its inputs with policy::testing's builders, runs the upstream case's
// actions in one session with its tiers (run_session, as uthelper.TestCommonStruct.Run), and
// asserts what upstream asserts (uthelper CheckAll: binds, evictions, pipelined tasks, PodGroup
// phases), and no more.
#pragma once
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "mltwin/policy/config.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/testing/builders.hpp"

/// A ported upstream case: file under pkg/scheduler/, Test function, case name (with " [2]" for
/// a name met again in the same function), exactly as upstream_cases.tsv lists it.
#define UPSTREAM_CASE(file, func, name) TEST_CASE("upstream | " file " | " func " | " name)
/// A test written from Volcano's source where upstream has none (gang, nodeorder, the state
/// machines): the source file it reads and what it checks.
#define SOURCE_CASE(file, what) TEST_CASE("source | " file " | " what)

#define MLTWIN_CONF_CAT2(a, b) a##b
#define MLTWIN_CONF_CAT(a, b) MLTWIN_CONF_CAT2(a, b)
/// Upstream rows that need a feature mltwin does not model. `func` and `name` may be "" for every
/// case of the file (or of the function).
#define NOT_APPLICABLE(file, func, name, reason)                                              \
  [[maybe_unused]] static const bool MLTWIN_CONF_CAT(mltwin_not_applicable_, __COUNTER__) = \
      ::mltwin::conformance::register_row(file, func, name, reason, ::mltwin::conformance::RowKind::NotApplicable)
/// Upstream rows not ported yet, with what they wait for (a rule mltwin does not have yet).
#define NOT_YET(file, func, name, reason)                                                 \
  [[maybe_unused]] static const bool MLTWIN_CONF_CAT(mltwin_not_yet_, __COUNTER__) = \
      ::mltwin::conformance::register_row(file, func, name, reason, ::mltwin::conformance::RowKind::NotYet)
/// Upstream rows where mltwin does otherwise on purpose (e.g. refuses with an error what Volcano
/// logs and ignores); the reason names the test that checks mltwin's behaviour.
#define DIFFERS_ON_PURPOSE(file, func, name, reason)                                        \
  [[maybe_unused]] static const bool MLTWIN_CONF_CAT(mltwin_differs_, __COUNTER__) = \
      ::mltwin::conformance::register_row(file, func, name, reason, ::mltwin::conformance::RowKind::Differs)

namespace mltwin::conformance {

using namespace mltwin::policy;
using namespace mltwin::policy::testing;

enum class RowKind { NotApplicable, NotYet, Differs };
struct DeclaredRow {
  std::string file, func, name, reason;
  RowKind kind = RowKind::NotApplicable;
};
std::vector<DeclaredRow>& declared_rows();
inline bool register_row(const char* file, const char* func, const char* name, const char* reason, RowKind kind) {
  declared_rows().push_back({file, func, name, reason, kind});
  return true;
}

/// A plugin of a tier as upstream's tests write conf.PluginOption: only the extension points
/// listed are enabled. (A test's options skip plugins.ApplyPluginConfDefaults, so a switch left
/// nil is off: framework/session_plugins.go isEnabled is `enabled != nil && *enabled`.)
PluginOption plugin(std::string name, std::vector<Ext> enabled, Arguments args = {});
/// Arguments from key/value pairs.
Arguments args(std::vector<std::pair<std::string, std::string>> kv);

/// What uthelper.TestCommonStruct.CheckAll looks at after the actions ran.
struct Outcome {
  std::map<std::string, std::string> binds;                    ///< pod -> node, in bind order last wins
  int bind_calls = 0;                                          ///< binds asked of the backend
  std::vector<std::string> evicted;                            ///< pods, one entry per evict call
  std::map<std::string, std::vector<std::string>> pipelined;   ///< job -> nodes of its Pipelined tasks
  std::map<std::string, PodGroupPhase> phases;                 ///< job -> PodGroup phase at session close
  // What mltwin records beyond upstream's CheckAll, for the cases written from source:
  std::set<std::string> fit_errors;                            ///< pods with fit errors (job.NodesFitErrors) at close
  std::map<std::string, std::string> reasons;                  ///< job -> "plugin: reason" the session left
};

/// Gives tasks, jobs and queues UIDs in the order of their names (upstream's test builders make
/// UIDs of names, and its orders fall back to them), then opens one session on `w` with `tiers` (conf.Configuration per action in `action_args`), runs
/// `actions` in order, notes the pipelined tasks, closes the session: Volcano's
/// uthelper RegisterSession + Run + CheckAll (api JobUpdater.UpdateAll computes the phases the
/// close sets).
Outcome run_session(World& w, const std::vector<std::string>& actions, const std::vector<Tier>& tiers,
                    const std::map<std::string, Arguments>& action_args = {});

/// Gives tasks, jobs and queues UIDs in the order of their names: upstream's test builders make
/// UIDs of names (a pod's "<namespace>-<name>", a job's "<namespace>/<podgroup>", a queue's its
/// name; equal names, equal UIDs) and its orders fall back to them. mltwin's job and queue
/// orders compare the names themselves (Volcano's UIDs there) and the uid only between equal
/// names, where equal UIDs keep upstream's tie; a task's uid is its pod's metadata.uid, which
/// the task order compares. run_session and SessionOn call it.
void rank_uids_by_name(World& w);

/// An open session for cases that ask a plugin's answers directly (uthelper RegisterSession
/// without Run): opened on construction, closed on destruction.
struct SessionOn {
  RecordingBackend backend;
  std::mt19937_64 rng{7};
  SchedulerConfig cfg;
  std::unique_ptr<Session> session;
  SessionOn(World& w, const std::vector<Tier>& tiers, const std::map<std::string, Arguments>& action_args = {});
  ~SessionOn();
  SessionOn(const SessionOn&) = delete;
  SessionOn& operator=(const SessionOn&) = delete;
  Session* operator->() { return session.get(); }
};

/// uthelper CheckBind: exactly these binds (pod -> node) and no other.
void check_binds(const Outcome& o, const std::map<std::string, std::string>& want);
/// uthelper CheckBind with MinimalBindCheck: only the number of binds.
void check_bind_count(const Outcome& o, int want);
/// uthelper CheckEvict: these evictions as a multiset, and no other.
void check_evicted(const Outcome& o, const std::vector<std::string>& want);
/// uthelper CheckPipelined: each named job has pipelined tasks, each on one of its nodes.
void check_pipelined(const Outcome& o, const std::map<std::string, std::vector<std::string>>& want);
/// uthelper CheckPGStatus: each named job's PodGroup phase.
void check_phases(const Outcome& o, const std::map<std::string, PodGroupPhase>& want);

}  // namespace mltwin::conformance
