// _mltwin — the compiled half of the `mltwin` Python package (bindings/python/mltwin/ is the
// other half, which users import). It exposes runner::Run (one run of a scenario), query
// results as NumPy columns, and the adapters that let policies written in Python run inside
// the simulator (policies.cpp).
//
// Conventions: times cross the boundary as integer nanoseconds (the Python layer converts
// seconds and "10m"-style strings); JSON (scenarios, summaries, state) crosses as text and is
// parsed by Python's json module. A C++ exception becomes a Python exception with the same
// message: io::ScenarioError -> mltwin.ScenarioError (a ValueError), std::invalid_argument ->
// ValueError, std::logic_error -> RuntimeError, other std::exception -> RuntimeError. A Python
// exception raised inside a policy crosses the simulator unchanged and reaches the caller of
// run_until with its traceback.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "mltwin/policy/version.hpp"
#include "mltwin/core/time.hpp"
#include "mltwin/io/catalog.hpp"
#include "mltwin/io/scenario.hpp"
#include "mltwin/runner/compare_history.hpp"
#include "mltwin/runner/explain.hpp"
#include "mltwin/runner/run.hpp"
#include "mltwin/runner/trace_export.hpp"
#include "policies.hpp"

namespace py = pybind11;
using namespace mltwin;

namespace {

/// The end reason named `s` (store::to_string's spelling). Throws std::invalid_argument
/// listing them all.
store::EndReason end_reason_of(const std::string& s) {
  if (const auto r = store::end_reason_from_string(s)) return *r;
  std::string all;
  for (store::EndReason r : store::kEndReasons) all += std::string(all.empty() ? "" : ", ") + store::to_string(r);
  throw std::invalid_argument("reason '" + s + "': expected one of " + all);
}

/// A query's columns as (name, type, values, null mask): values an int64 / float64 NumPy array
/// or a list of str; the mask a bool array.
py::list columns_of(const store::ResultTable& t) {
  py::list out;
  for (const auto& c : t.columns) {
    py::array_t<bool> mask(static_cast<py::ssize_t>(t.rows));
    auto* mp = mask.mutable_data();
    for (std::size_t i = 0; i < t.rows; ++i) mp[i] = c.null[i] != 0;
    py::object values;
    const char* type = "integer";
    switch (c.type) {
      case store::ResultColumn::Type::Integer: values = py::array_t<std::int64_t>(static_cast<py::ssize_t>(t.rows), c.integers.data()); break;
      case store::ResultColumn::Type::Real:
        type = "real";
        values = py::array_t<double>(static_cast<py::ssize_t>(t.rows), c.reals.data());
        break;
      case store::ResultColumn::Type::Text: {
        type = "text";
        py::list l(t.rows);
        for (std::size_t i = 0; i < t.rows; ++i) l[i] = py::str(c.texts[i]);
        values = std::move(l);
        break;
      }
    }
    out.append(py::make_tuple(c.name, type, values, mask));
  }
  return out;
}

/// The Python-side handle of a run: owns the runner::Run and the Python policies it calls.
class PyRun {
 public:
  PyRun(const std::string& path, const std::string& out, std::optional<std::uint64_t> seed, const std::string& data_dir,
        std::size_t max_jobs, const std::string& overrides_json, const std::string& document_json,
        const std::string& until_text, py::object autoscaling, py::object memory_cache, py::object disk_cache,
        py::object routing, py::object instance_scaling, bool strict, const std::string& serving_policies_json,
        bool anonymize, const std::string& name_map) {
    runner::RunOptions opts;
    opts.strict = strict;
    opts.anonymize = anonymize;
    opts.name_map = name_map;
    opts.on_warning = [this](const std::string& w) { warnings_.push_back(w); };
    // Python's Run(out=...) writes the named file from the start (users read it while the run
    // goes on); the CLI writes beside it and renames at the end.
    opts.output = runner::Output::Direct;
    opts.out = out;
    opts.seed = seed;
    opts.data_dir = data_dir;
    opts.max_jobs = max_jobs;
    opts.until_text = until_text;
    if (!overrides_json.empty()) opts.overrides = nlohmann::json::parse(overrides_json);
    if (!document_json.empty()) opts.document = nlohmann::json::parse(document_json);
    if (!serving_policies_json.empty()) opts.serving_policies = nlohmann::json::parse(serving_policies_json);
    const bool custom = !autoscaling.is_none() || !memory_cache.is_none() || !disk_cache.is_none() ||
                        !routing.is_none() || !instance_scaling.is_none();
    if (custom) {
      opts.customize_serving = [&](models::inference::PolicySet& set) {
        bindings::install_python_serving_policies(set, autoscaling, memory_cache, disk_cache, routing, instance_scaling);
      };
    }
    run_ = runner::Run::open(path, opts);
  }

  std::uint64_t run_until(std::int64_t t_ns) {
    if (failed_) throw std::logic_error("this run stopped on an error (" + failure_ + "); open a new Run");
    try {
      std::uint64_t fired = 0;
      {
        // Policies written in Python take the GIL back when they are called.
        py::gil_scoped_release release;
        fired = run_->run_until(core::Time::from_ns(t_ns));
      }
      return fired;
    } catch (py::error_already_set& e) {
      fail(e.what());
      throw;
    } catch (const std::exception& e) {
      fail(e.what());
      throw;
    }
  }

  runner::Run& run() { return *run_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  /// The model may be half-way through an event: record the run as failed at the time reached
  /// and close the database (readable), without asking the model to wrap up.
  void fail(const std::string& what) {
    failed_ = true;
    failure_ = what.substr(0, what.find('\n'));
    try {
      run_->abandon(store::EndReason::Failed);
    } catch (...) {
      // The original error is the one to report.
    }
  }
  std::unique_ptr<runner::Run> run_;
  std::vector<std::string> warnings_;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace

PYBIND11_MODULE(_mltwin, m) {
  m.doc() = "mltwin's compiled core; import `mltwin`, not this module.";
  m.attr("__version__") = runner::version();
  m.attr("git_sha") = runner::git_sha();
  m.attr("volcano_release") = policy::kVolcanoRelease;
  m.attr("djl_serving_release") = policy::kDjlServingRelease;
  m.attr("mms_release") = policy::kMmsRelease;
  {
    py::list reasons;
    for (store::EndReason r : store::kEndReasons) reasons.append(store::to_string(r));
    m.attr("end_reasons") = reasons;
  }

  static py::exception<io::ScenarioError> scenario_error(m, "ScenarioError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io::ScenarioError& e) {
      scenario_error(e.what());
    }
  });

  m.def(
      "_instance_catalog",
      [](const std::string& path) {
        const std::string p = io::find_catalog(path);
        (void)io::read_catalog(p);  // checked as a run reads it
        std::ifstream in(p, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        return py::make_tuple(p, text.str());
      },
      py::arg("path") = "",
      "(path of the catalog file found, its text): the file mltwin.instance_catalog reads. Raises ScenarioError.");

  m.def("parse_duration_ns", [](const std::string& s) { return core::parse_duration(s).count_ns(); }, py::arg("text"),
        "A duration such as \"100ms\", \"90s\", \"30m\", \"12h\", \"7d\" in integer ns. Raises ValueError.");

  py::class_<PyRun>(m, "Run", "One run of a scenario (see mltwin.Run for the documented Python API).")
      .def(py::init<const std::string&, const std::string&, std::optional<std::uint64_t>, const std::string&, std::size_t,
                    const std::string&, const std::string&, const std::string&, py::object, py::object, py::object,
                    py::object, py::object, bool, const std::string&, bool, const std::string&>(),
           py::arg("path"), py::arg("out"), py::arg("seed"), py::arg("data_dir"), py::arg("max_jobs"),
           py::arg("overrides_json"), py::arg("document_json"), py::arg("until_text"), py::arg("autoscaling"),
           py::arg("memory_cache"), py::arg("disk_cache"), py::arg("routing"), py::arg("instance_scaling"),
           py::arg("strict") = false, py::arg("serving_policies_json") = "", py::arg("anonymize") = false,
           py::arg("name_map") = "")
      .def_property_readonly("name_map", [](PyRun& r) { return r.run().name_map(); })
      .def_property_readonly("warnings", &PyRun::warnings)
      .def_property_readonly("kind", [](PyRun& r) { return r.run().kind() == runner::Kind::Training ? "training" : "inference"; })
      .def_property_readonly("name", [](PyRun& r) { return r.run().name(); })
      .def_property_readonly("seed", [](PyRun& r) { return r.run().seed(); })
      .def_property_readonly("out", [](PyRun& r) { return r.run().out(); })
      .def_property_readonly("scenario_json", [](PyRun& r) { return r.run().scenario().dump(); })
      .def_property_readonly("now_ns", [](PyRun& r) { return r.run().now().ns(); })
      .def_property_readonly("next_time_ns", [](PyRun& r) {
        const core::Time t = r.run().next_time();
        return t == core::Time::max() ? py::object(py::none()) : py::object(py::int_(t.ns()));
      })
      .def_property_readonly("events", [](PyRun& r) { return r.run().events(); })
      .def_property_readonly("finished", [](PyRun& r) { return r.run().finished(); })
      .def("run_until", &PyRun::run_until, py::arg("t_ns"))
      .def("checkpoint", [](PyRun& r) { r.run().checkpoint(); })
      .def("finish", [](PyRun& r, const std::string& reason) { r.run().finish(end_reason_of(reason)); }, py::arg("reason"))
      .def("status_line", [](PyRun& r, double wall) { return r.run().status_line(wall); }, py::arg("wall_s"))
      .def("summary_text", [](PyRun& r, double wall) {
        std::ostringstream os;
        r.run().print_summary(os, wall);
        return os.str();
      }, py::arg("wall_s"))
      .def("summary_json", [](PyRun& r) { return r.run().summary_json().dump(); })
      .def("state_json", [](PyRun& r) { return r.run().state_json().dump(); })
      .def("snapshot", [](PyRun& r) { return r.run().snapshot().dump(); })
      .def("query", [](PyRun& r, const std::string& sql) { return columns_of(r.run().query(sql)); }, py::arg("sql"));

  m.def("query_file", [](const std::string& path, const std::string& sql) { return columns_of(store::query_file(path, sql)); },
        py::arg("path"), py::arg("sql"), "Runs SQL on a results database file (read-only); columns as Run.query.");

  m.def("explain", &runner::explain_job, py::arg("database"), py::arg("job"),
        "Why a training job waited, from a run's database file: its phases, each wait's deciding plugin and "
        "reason, the rule behind it, what ended it. `job`: a name or an id. Raises RuntimeError / ValueError.");

  m.def("_compare_history_json",
        [](const std::string& history, const std::string& db, std::size_t worst, const std::string& name_map) {
          const runner::HistoryComparison c = runner::compare_history(history, db, name_map);
          nlohmann::json j = c.to_json();
          j["report"] = c.report(worst);
          return j.dump();
        },
        py::arg("history"), py::arg("database"), py::arg("worst") = 10, py::arg("name_map") = "",
        "mltwin.compare's C++ side: the comparison as JSON text (see mltwin.compare).");

  m.def("export_trace",
        [](const std::string& db, const std::string& out) {
          const auto st = runner::export_trace(db, out);
          return py::dict(py::arg("slices") = st.slices, py::arg("instants") = st.instants, py::arg("counters") = st.counters);
        },
        py::arg("database"), py::arg("out"),
        "Writes a run's database as a Chrome/Perfetto trace-event JSON file (ui.perfetto.dev); returns event counts.");

  bindings::bind_policies(m);
}
