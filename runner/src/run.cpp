// run.cpp — runner::Run: one run of a training or an inference scenario (see run.hpp).
#include "mltwin/policy/version.hpp"
#include "mltwin/runner/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "mltwin/core/rng.hpp"
#include "mltwin/io/inference_scenario.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "output_files.hpp"
#include "snapshots.hpp"
#include "world.hpp"
#include "mltwin_git_sha.hpp"  // generated at build time by apps/git_sha.cmake: MLTWIN_GIT_SHA

#ifndef MLTWIN_GIT_SHA
#define MLTWIN_GIT_SHA "unknown"
#endif

namespace mltwin::runner {

using detail::create_hidden_beside;
using detail::file_id;
using detail::InputId;
using detail::WholeFile;

const char* git_sha() noexcept { return MLTWIN_GIT_SHA; }
const char* version() noexcept { return policy::kVersion; }

namespace {

using nlohmann::json;


/// Where the database goes when the caller does not say.
std::string default_out(const std::string& out, const std::string& name, std::uint64_t seed) {
  return out.empty() ? "results/" + name + "-seed" + std::to_string(seed) + ".sqlite" : out;
}

/// Creates the folder of the file `path` (`what`: "results database") if it is missing.
void create_folder_of(const std::string& path, const std::string& what = "results database") {
  if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error("cannot create " + what + " '" + path + "': cannot create its folder '" + parent.string() +
                               "': " + ec.message());
  }
}

/// True when `a` and `b` name the same file: the same file identity when both exist, else the
/// same path once ".", ".." and symbolic links are resolved.
bool same_file(const std::string& a, const std::string& b) {
  const auto ia = file_id(a), ib = file_id(b);
  if (ia && ib) return *ia == *ib;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return !ea && !eb && ca == cb;
}

/// Throws std::invalid_argument when `out` exists and is not a regular file, or is one of
/// `inputs` (the same file, however it is spelled: links, "..", hard links).
void check_out(const std::string& out, const std::vector<InputId>& inputs, const std::string& flag) {
  if (const std::string what = store::not_a_regular_file(out); !what.empty())
    throw std::invalid_argument(flag + " '" + out + "': " + what + "; expected a regular file or a new path");
  const auto id = file_id(out);
  if (!id) return;
  for (const auto& in : inputs)
    if (in.id == *id)
      throw std::invalid_argument(flag + " '" + out + "': is the run's " + (in.role == "scenario" ? "scenario" : in.role + " input") +
                                  " ('" + in.path + "'), which it would overwrite; choose another file");
}

/// Removes a database file and its journal (an unfinished file that cannot be kept).
void remove_database(const std::string& path) noexcept {
  std::error_code ec;
  for (const char* suffix : {"", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

/// Nothing stored may depend on where the run was started from or on how the scenario and the
/// data folder were spelled (relative, absolute, --data, MLTWIN_DATA, found by search): the
/// scenario is recorded by file name, its inputs as the scenario writes them, each with its
/// SHA-256. So one scenario, inputs and seed give byte-identical databases. A scenario given
/// as a document is hashed as its JSON text.
void record_inputs(store::RunMetadata& meta, const std::string& path, const RunOptions& opts,
                   const std::vector<io::InputFileRef>& inputs) {
  meta.scenario_path = std::filesystem::path(path).filename().string();
  if (opts.anonymize) meta.scenario_path = "scenario.json";  // its name is in the name map (io::NameMap::to_json)
  if (opts.document == std::nullopt) {
    meta.inputs.push_back(store::hash_input_file("scenario", path));
    meta.inputs.back().path = meta.scenario_path;
  }
  for (const auto& in : inputs) {
    meta.inputs.push_back(store::hash_input_file(in.role, in.path));
    meta.inputs.back().path = in.as_written;
  }
}

}  // namespace

namespace detail {

io::LoadOptions load_options(const RunOptions& opts) {
  io::LoadOptions lo;
  lo.data_dir = opts.data_dir;
  lo.catalog_path = opts.catalog;
  lo.overrides = opts.overrides;
  lo.document = opts.document ? &*opts.document : nullptr;
  lo.strict = opts.strict;
  lo.seed = opts.seed;  // the history_distribution model draws while loading, with the run's seed
  lo.serving_policies = opts.serving_policies;
  return lo;
}

std::unique_ptr<World> load_world(const std::string& path, const RunOptions& opts) {
  const io::ScenarioKind kind = opts.document ? io::scenario_kind(*opts.document, path) : io::scenario_kind(path);
  return kind == io::ScenarioKind::Inference ? load_inference_world(path, opts) : load_training_world(path, opts);
}

}  // namespace detail

core::Time parse_until(const std::string& text, const std::string& what) {
  core::Time until = core::Time::max();
  if (!text.empty()) {
    try {
      until = core::Time::zero() + core::parse_duration(text);
    } catch (const std::exception& e) {
      throw std::invalid_argument(what + " " + text + ": expected a time such as 90s, 30m, 12h, 7d (" + e.what() + ")");
    }
    if (until <= core::Time::zero()) throw std::invalid_argument(what + " " + text + ": expected a positive time");
  }
  return until;
}

struct Run::Impl {
  std::string path;
  std::string target;  // the database path asked for
  std::string out;     // where the database is now ("" once removed)
  bool replace_at_end = false;
  std::vector<InputId> inputs;  // the files the run reads: a partial file may not replace one
  std::optional<WholeFile> summary;  // RunOptions::summary_json_out, until finish() writes it
  std::string name_map;              // RunOptions::anonymize: where the name map was written
  std::uint64_t seed = 0;
  core::Simulator sim;
  std::unique_ptr<core::RngStreams> rng;
  std::unique_ptr<store::SqliteStore> db;
  std::string until_text;
  bool finished = false;
  bool started = false;
  core::Time end = core::Time::zero();

  std::unique_ptr<detail::World> world;

  void start() {
    if (started) return;
    started = true;
    world->start();
  }

  /// Checks `out` against the inputs, then creates the database (RunOptions::output says where).
  void open_database(store::RunMetadata meta, const std::string& scenario_path, const RunOptions& opts,
                     const std::vector<io::InputFileRef>& refs) {
    target = out;
    const bool file = out != ":memory:";
    if (opts.document == std::nullopt)
      if (auto id = file_id(scenario_path)) inputs.push_back({*id, "scenario", scenario_path});
    for (const auto& r : refs)
      if (auto id = file_id(r.path)) inputs.push_back({*id, r.role, r.path});
    if (file) check_out(out, inputs, opts.command_line ? "--out" : "out");
    const std::string& summary_out = opts.summary_json_out;
    if (!summary_out.empty()) {
      const std::string flag = opts.command_line ? "--summary-json" : "summary_json_out";
      check_out(summary_out, inputs, flag);
      if (file && same_file(summary_out, out))
        throw std::invalid_argument(flag + " '" + summary_out + "': is the results database ('" + out +
                                    "'), which it would overwrite; choose another file");
    }
    if (world->names()) {
      const std::string flag = opts.command_line ? "--name-map" : "name_map";
      name_map = opts.name_map;
      if (name_map.empty()) {
        if (!file)
          throw std::invalid_argument(flag + ": an anonymized run whose database is in memory needs a file for its name map");
        std::string stem = out;
        if (stem.size() > 7 && stem.ends_with(".sqlite")) stem.resize(stem.size() - 7);
        name_map = stem + ".names.json";
      }
      check_out(name_map, inputs, flag);
      for (const std::string* other : {static_cast<const std::string*>(&out), &summary_out})
        if (!other->empty() && *other != ":memory:" && same_file(name_map, *other))
          throw std::invalid_argument(flag + " '" + name_map + "': is also the run's " + (other == &out ? "database" : "summary file") +
                                      "; choose another file");
    }
    if (opts.before_database) opts.before_database();
    if (const io::NameMap* names = world->names()) {
      // Written before the database, which records the map's SHA-256 (not its content).
      create_folder_of(name_map, "name map");
      WholeFile f(name_map, "name map");
      f.write(names->to_json().dump(2) + "\n");
      f.commit();
      meta.extra["anonymized"] =
          nlohmann::json{{"renamed", {"nodes read from kubectl", "jobs", "queues", "input files"}},
                         {"name_map_sha256", store::hash_input_file("name_map", name_map).sha256},
                         {"nodes", names->nodes.size()}, {"jobs", names->jobs.size()}, {"queues", names->queues.size()},
                         {"files", names->files.size()}}
              .dump();
    }
    if (!summary_out.empty()) {
      // Created now, so that a summary file that cannot be written is an error before the run.
      create_folder_of(summary_out, "summary file");
      summary.emplace(summary_out, "summary file");
    }
    if (!file) {
      db = std::make_unique<store::SqliteStore>(out, meta);
      return;
    }
    create_folder_of(out);
    if (opts.output == Output::Direct) {
      db = std::make_unique<store::SqliteStore>(out, meta);
      return;
    }
    replace_at_end = true;
    const std::string hidden = create_hidden_beside(out);
    try {
      db = std::make_unique<store::SqliteStore>(hidden, meta);
    } catch (const std::runtime_error& e) {
      remove_database(hidden);
      throw std::runtime_error("cannot create results database '" + out + "' (nothing written): " + e.what());
    } catch (...) {
      remove_database(hidden);
      throw;
    }
    out = hidden;
  }

  /// Output::ReplaceAtEnd, once the store is finished: the database goes to `target` if the
  /// run ended as asked, else to partial_path(target) — or stays where it is if that name
  /// is taken by something that is not a regular file, or by one of the inputs. Throws
  /// std::runtime_error if the rename fails (the database is then still at `out`).
  void publish(store::EndReason reason) {
    if (!replace_at_end || out.empty()) return;
    std::string to = store::ended_as_asked(reason) ? target : partial_path(target);
    if (!store::ended_as_asked(reason)) {
      const auto id = file_id(to);
      const bool is_input = id && std::any_of(inputs.begin(), inputs.end(), [&](const InputId& in) { return in.id == *id; });
      if (is_input || !store::not_a_regular_file(to).empty()) return;  // keep the hidden name: out() says it
    }
    db->move_to(to);
    out = to;
  }

  /// After an error: records `reason` (normally Failed) and the time reached, through the
  /// store if it still can, else in the file directly; closes the store (readable) and
  /// publishes the file as partial. An unfinished file (Output::ReplaceAtEnd) whose end
  /// reason could not be written is removed (out becomes ""). Never throws.
  void settle(store::EndReason reason) noexcept {
    finished = true;
    summary.reset();  // an existing summary file stays as it was
    try {
      if (!db->finished()) db->record_end(reason, end);
    } catch (...) {
      // Written below, in the file directly, if at all possible.
    }
    try {
      db->finish(/*keep_open=*/true);
    } catch (...) {
      // The store closed itself; what it committed stays.
    }
    if (out == ":memory:" || out.empty()) return;
    std::string recorded;
    try {
      recorded = end_reason_in(out);
      if (recorded != store::to_string(reason)) {
        store::record_end_in_file(out, reason, end);
        recorded = end_reason_in(out);
      }
    } catch (...) {
      // Neither could write: the disk is full, or the file is damaged.
    }
    if (!replace_at_end) return;  // the caller's file stays, whatever it holds
    if (recorded != store::to_string(reason)) {
      // A file without its end reason would pass for a run still going on (or killed): it
      // goes, and its space with it once the store (finished: it writes no more) is closed.
      remove_database(out);
      out.clear();
      return;
    }
    try {
      publish(reason);
    } catch (...) {
      // It stays under its hidden name: out says where.
    }
  }

  /// run_meta('end_reason') of the database file at `p` ("" without one).
  std::string end_reason_in(const std::string& p) const {
    const store::ResultTable t = store::query_file(p, "SELECT value FROM run_meta WHERE key = 'end_reason'");
    return t.rows == 1 ? t.columns[0].text_at(0) : std::string();
  }
};

std::string partial_path(const std::string& out) {
  const std::string ext = ".sqlite";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".partial" + ext;
  return out + ".partial";
}

Run::Run(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Run::~Run() {
  if (impl_ && impl_->replace_at_end && !impl_->finished) abandon(store::EndReason::Failed);
}

std::unique_ptr<Run> Run::open(const std::string& path, const RunOptions& opts) {
  auto m = std::make_unique<Impl>();
  m->path = path;
  m->until_text = opts.until_text;
  if (!opts.anonymize && !opts.name_map.empty())
    throw std::invalid_argument(std::string(opts.command_line ? "--name-map" : "name_map") + " '" + opts.name_map +
                                "': where an anonymized run writes its name map; give " + (opts.command_line ? "--anonymize" : "anonymize") + " too");
  m->world = detail::load_world(path, opts);
  detail::World& w = *m->world;
  if (opts.on_warning)
    for (const auto& warning : w.warnings()) opts.on_warning(warning);
  if (opts.check_estimate) opts.check_estimate(w.estimate(parse_until(opts.until_text)));
  m->seed = opts.seed.value_or(w.scenario_seed());
  m->out = default_out(opts.out, w.name(), m->seed);
  m->rng = std::make_unique<core::RngStreams>(m->seed);

  store::RunMetadata meta;
  meta.git_sha = git_sha();
  meta.mltwin_version = version();
  meta.until = opts.until_text;
  meta.scenario_json = w.document().dump();
  meta.seed = m->seed;
  RunOptions built = opts;
  if (!built.snapshot_at.empty() && w.kind() != Kind::Training)
    throw std::invalid_argument(std::string(opts.command_line ? "--snapshot-at" : "snapshot_at") +
                                ": an inference run has no Kubernetes scheduling state to snapshot (training runs only)");
  if (!built.snapshot_at.empty() && built.snapshot_prefix.empty()) {
    // Beside the database: results/x-seed1.sqlite -> results/x-seed1.snapshot-6h.json.
    std::string stem = m->out == ":memory:" ? std::string("mltwin") : m->out;
    if (stem.size() > 7 && stem.ends_with(".sqlite")) stem.resize(stem.size() - 7);
    built.snapshot_prefix = stem + ".";
    if (m->out != ":memory:") create_folder_of(m->out);
  }
  w.build(m->sim, *m->rng, meta, built);
  record_inputs(meta, path, opts, w.inputs());
  m->open_database(meta, path, opts, w.inputs());
  w.attach(*m->db);
  m->start();
  return std::unique_ptr<Run>(new Run(std::move(m)));
}

Validation validate(const std::string& path, const RunOptions& opts) {
  const std::unique_ptr<detail::World> w = detail::load_world(path, opts);
  return {w->warnings(), w->description(), w->estimate(core::Time::max())};
}

Kind Run::kind() const noexcept { return impl_->world->kind(); }
const std::string& Run::name() const noexcept { return impl_->world->name(); }
std::uint64_t Run::seed() const noexcept { return impl_->seed; }
const std::string& Run::out() const noexcept { return impl_->out; }
const std::string& Run::name_map() const noexcept { return impl_->name_map; }
const std::string& Run::target() const noexcept { return impl_->target; }
const nlohmann::json& Run::scenario() const noexcept { return impl_->world->document(); }
// A finished run reports where it ended (its last event, or the time it was stopped at), not
// the clock of the simulator, which a trailing metrics sample may have moved past the end.
core::Time Run::now() const { return impl_->finished ? impl_->end : impl_->sim.now(); }
core::Time Run::next_time() const { return impl_->sim.next_time(); }
std::uint64_t Run::events() const { return impl_->sim.stats().events_fired; }
bool Run::finished() const noexcept { return impl_->finished; }
core::Duration Run::progress_chunk() const { return impl_->world->progress_chunk(); }
core::Duration Run::checkpoint_interval() const { return impl_->world->checkpoint_interval(); }
const models::TrainingCluster* Run::training() const noexcept { return impl_->world->training(); }

nlohmann::json Run::snapshot() const {
  const models::TrainingCluster* c = impl_->world->training();
  if (!c) throw std::logic_error("snapshot(): an inference run has no Kubernetes scheduling state (training runs only)");
  return detail::snapshot_of(c->state(), c->scheduler(), now(), impl_->world->training_scenario());
}
const models::inference::Endpoint* Run::endpoint() const noexcept { return impl_->world->endpoint(); }

std::uint64_t Run::run_until(core::Time t) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("run '" + m.world->name() + "' has finished; open a new Run");
  m.start();
  if (m.sim.next_time() > t) {
    // Nothing to fire: still move the clock (a caller stepping through a quiet period sees
    // now() advance), but never past the last event when the run is over.
    if (m.sim.next_time() != core::Time::max() && t > m.sim.now()) return m.sim.run_until(t);
    return 0;
  }
  return m.sim.run_until(t);
}

void Run::checkpoint() {
  Impl& m = *impl_;
  if (!m.finished) m.db->checkpoint(m.sim.now());
}

void Run::finish(store::EndReason reason) {
  Impl& m = *impl_;
  if (m.finished) return;
  m.finished = true;
  m.end = m.sim.now();
  try {
    m.start();
    m.end = m.world->finish(reason, m.sim.now(), m.until_text, *m.db);
    m.db->record_end(reason, m.end);
    m.db->finish(/*keep_open=*/true);
    m.publish(reason);
  } catch (...) {
    m.settle(store::EndReason::Failed);  // records failed where it can, and tries the partial name
    throw;
  }
  if (!m.summary) return;
  if (!store::ended_as_asked(reason)) {
    m.summary.reset();  // an existing summary file stays as it was, as the database does
    return;
  }
  try {
    m.summary->write(summary_json().dump(2) + "\n");
    m.summary->commit();
  } catch (const std::exception& e) {
    m.summary.reset();
    throw std::runtime_error(std::string(e.what()) + " (the run itself ended " + store::to_string(reason) +
                             "; its database is '" + m.out + "')");
  }
  m.summary.reset();
}

void Run::abandon(store::EndReason reason) noexcept {
  Impl& m = *impl_;
  if (m.finished) return;
  m.end = m.sim.now();
  m.settle(reason);
}

std::string Run::status_line(double wall) const {
  const Impl& m = *impl_;
  const double rate = wall > 0 ? static_cast<double>(m.sim.stats().events_fired) / wall / 1e6 : 0.0;
  // Done: the share of the workload's span (the last submission; the traffic's length) reached;
  // the ETA assumes the rest goes at the pace so far (a training run also drains after its last
  // submission, which the ETA cannot see: "draining").
  const double frac = std::min(1.0, m.sim.now().seconds() / m.world->span_s());
  std::string eta = "ETA --";
  if (frac >= 1.0) eta = m.world->past_span();
  else if (frac >= 0.01 && wall > 0) eta = "ETA " + io::human_duration(wall * (1.0 - frac) / frac);
  const int width = 30, filled = static_cast<int>(frac * width);
  const std::string bar = fmt::format("[{}{}] {:3.0f}%", std::string(filled, '='), std::string(width - filled, ' '), frac * 100);
  return fmt::format("{}  sim {}  {}  wall {}  {}  {:.2f}M events/s", bar, io::human_duration(m.sim.now().seconds()),
                     m.world->progress(), io::human_duration(wall), eta, rate);
}

detail::RunFacts Run::facts(double wall_s) const {
  const Impl& m = *impl_;
  return {m.world->name(), m.seed, m.finished ? m.end : m.sim.now(), m.finished, m.sim.stats().events_fired, wall_s};
}

void Run::print_summary(std::ostream& os, double wall_s) const { impl_->world->print_summary(os, facts(wall_s)); }

nlohmann::json Run::summary_json() const {
  const Impl& m = *impl_;
  const detail::RunFacts run = facts(0);
  json j = {{"scenario", run.name}, {"seed", m.seed}, {"kind", m.world->kind() == Kind::Training ? "training" : "inference"},
            {"sim_end_s", detail::summary_seconds(run.end.ns())}, {"events", run.events}, {"database", m.out}};
  m.world->summary_json(j, run);
  return j;
}

nlohmann::json Run::state_json() const {
  const Impl& m = *impl_;
  json j = {{"now_s", detail::summary_seconds(m.sim.now().ns())}, {"now_ns", m.sim.now().ns()}, {"events", m.sim.stats().events_fired}};
  m.world->state_json(j);
  return j;
}

store::ResultTable Run::query(const std::string& sql) { return impl_->db->query(sql); }

}  // namespace mltwin::runner
