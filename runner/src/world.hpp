// world.hpp — what a Run drives: the model of one world (a training cluster, an inference
// endpoint) behind one interface, so that Run, the CLI and the Python module never branch on
// which it is. training_world.cpp and inference_world.cpp implement it.
//
// A run's life, as Run::open and Run drive a World:
//   load_world()  the scenario is read and checked (warnings, the size estimate come from it);
//   build()       before the database exists: the run's metadata is filled and what does not
//                 record is built (training builds its model here, as the RNG streams it
//                 creates are known only then; inference lists the streams its endpoint may
//                 draw from);
//   attach(db)    the database exists: the model's records go to it (inference builds its
//                 endpoint here, recording into the database from the start);
//   start()       the first events are scheduled;
//   finish()      the books are closed at the end of the run.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/io/anonymize.hpp"
#include "mltwin/io/run_estimate.hpp"
#include "mltwin/io/report.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/runner/run.hpp"
#include "mltwin/store/sqlite_store.hpp"

namespace mltwin::runner::detail {

/// Seconds for a summary, from whole ns: ns / 1e9, the double nearest the decimal value (60 s
/// is 60). core::Duration::seconds() multiplies by 1e-9, which is not exact (60 s would print
/// 60.00000000000001); the simulation keeps that, the reports use this.
inline double summary_seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

/// The run-wide facts a World's summary needs beside its own state.
struct RunFacts {
  const std::string& name;
  std::uint64_t seed;
  core::Time end;  ///< where the run ended (finished) or the time reached
  bool finished;
  std::uint64_t events;
  double wall_s;
};

class World {
 public:
  virtual ~World() = default;

  Kind kind() const { return kind_; }
  const std::string& path() const { return path_; }  ///< the scenario file (or the name of a document)
  const std::string& name() const { return name_; }
  const nlohmann::json& document() const { return doc_; }  ///< the scenario after overrides
  std::uint64_t scenario_seed() const { return seed_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<io::InputFileRef>& inputs() const { return inputs_; }
  /// The names anonymized (RunOptions::anonymize); null: the run keeps the real ones.
  virtual const io::NameMap* names() const { return nullptr; }

  /// The run's size up to `until` (Time::max(): the whole workload).
  virtual io::RunEstimate estimate(core::Time until) const = 0;
  /// `mltwin validate`'s line about the scenario ("inference scenario 'x': 20 x ml.c5d...").
  virtual std::string description() const = 0;

  /// Builds the model on `sim` with `rng` and fills `meta` (kind, scenario, RNG streams, the
  /// world's run_meta keys). Throws std::invalid_argument for options that do not apply.
  virtual void build(core::Simulator& sim, core::RngStreams& rng, store::RunMetadata& meta, const RunOptions& opts) = 0;
  /// The database exists: the model records into it from now on.
  virtual void attach(store::SqliteStore& db) = 0;
  virtual void start() = 0;
  /// Closes the books at the end of a run that ended for `reason` with the clock at `now`;
  /// returns where the run ended (its last event if it completed, else now). Records what the
  /// world owes the database (jobs still waiting, the request accounting).
  virtual core::Time finish(store::EndReason reason, core::Time now, const std::string& until_text,
                            store::SqliteStore& db) = 0;

  /// Simulated seconds the progress bar measures against (the last submission; the traffic).
  virtual double span_s() const = 0;
  /// The CLI's stride through simulated time and its checkpoint interval: a training run spans
  /// months, an inference run hours.
  virtual core::Duration progress_chunk() const = 0;
  virtual core::Duration checkpoint_interval() const = 0;
  /// The progress line's words about the workload ("jobs 3/10 ended"), and what it says once
  /// the span is over ("draining", "traffic over").
  virtual std::string progress() const = 0;
  virtual const char* past_span() const = 0;

  virtual void print_summary(std::ostream& os, const RunFacts& run) const = 0;
  /// Adds the world's fields to the summary JSON (docs/cli.md, --json) and to state().
  virtual void summary_json(nlohmann::json& j, const RunFacts& run) const = 0;
  virtual void state_json(nlohmann::json& j) const = 0;

  virtual const models::TrainingCluster* training() const { return nullptr; }
  /// The training scenario the world runs (its jobs' PriorityClasses for snapshots); null for inference.
  virtual const models::TrainingScenario* training_scenario() const { return nullptr; }
  virtual const models::inference::Endpoint* endpoint() const { return nullptr; }

 protected:
  World(Kind kind, std::string path, std::string name, nlohmann::json doc, std::uint64_t seed, std::vector<std::string> warnings,
        std::vector<io::InputFileRef> inputs)
      : kind_(kind),
        path_(std::move(path)),
        name_(std::move(name)),
        doc_(std::move(doc)),
        seed_(seed),
        warnings_(std::move(warnings)),
        inputs_(std::move(inputs)) {}

 private:
  Kind kind_;
  std::string path_;
  std::string name_;
  nlohmann::json doc_;
  std::uint64_t seed_;
  std::vector<std::string> warnings_;
  std::vector<io::InputFileRef> inputs_;
};

/// Loads the scenario at `path` (or opts.document) as the world its "kind" names. Throws
/// io::ScenarioError for a bad scenario, std::invalid_argument for an option that does not
/// apply to that world (max_jobs to inference, serving policies to training).
std::unique_ptr<World> load_world(const std::string& path, const RunOptions& opts);
std::unique_ptr<World> load_training_world(const std::string& path, const RunOptions& opts);
std::unique_ptr<World> load_inference_world(const std::string& path, const RunOptions& opts);

/// LoadOptions from RunOptions (shared by both worlds).
io::LoadOptions load_options(const RunOptions& opts);

}  // namespace mltwin::runner::detail
