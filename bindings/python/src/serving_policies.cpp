// serving_policies.cpp — serving policies written in Python (autoscaling, model cache, routing,
// instance scaling) and the serving side of the policy API as Python sees it (policies.hpp).
//
// GIL: the simulator runs with the GIL released (PyRun::run_until); every call into Python
// below takes it back first, and every Python object a C++ policy keeps is released under the
// GIL (PyRef), because C++ may destroy a policy or a session's callbacks while the GIL is not
// held. A Python exception propagates out of the adapter as pybind11::error_already_set and
// crosses the simulator to the caller of run_until, which re-raises it with its traceback.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/serving.hpp"
#include "policies.hpp"
#include "py_common.hpp"

namespace mltwin::bindings {
namespace {

namespace ps = policy::serving;

/// A decision as Python holds it: the C++ decision (policy/serving.hpp), whose `reason` is a
/// string_view, with the text it views kept inside (copies re-point it). Python's
/// AdmitDecision, RouteDecision and ScalingDecision are these, so a reason a Python policy
/// builds per call lives as long as its decision object and no longer.
template <class D>
struct Owned : D {
  std::string text;
  Owned() = default;
  explicit Owned(const D& d) : D(d), text(d.reason) { this->reason = text; }
  Owned(const Owned& o) : D(o), text(o.text) { this->reason = text; }
  Owned& operator=(const Owned& o) {
    D::operator=(o);
    text = o.text;
    this->reason = text;
    return *this;
  }
  ~Owned() = default;
  void set_reason(std::string r) {
    text = std::move(r);
    this->reason = text;
  }
};
using PyAdmit = Owned<ps::AdmitDecision>;
using PyRoute = Owned<ps::RouteDecision>;
using PyScale = Owned<ps::ScalingDecision>;

// ---------------------------------------------------------------------------------------------
// Serving

class PyAutoscaling final : public ps::AutoscalingPolicy {
 public:
  explicit PyAutoscaling(py::object o) : name_(name_of(o)), o_(hold(std::move(o))) {}
  std::string_view name() const override { return name_; }
  ps::AdmitDecision on_arrival(const ps::PoolObservation& pool) override {
    py::gil_scoped_acquire gil;
    py::object r = o_->get().attr("on_arrival")(pool);
    if (!py::isinstance<PyAdmit>(r))
      throw py::type_error(name_ + ".on_arrival must return mltwin.policies.AdmitDecision, got " +
                           std::string(py::str(r.get_type().attr("__name__"))));
    last_ = r.cast<PyAdmit>();  // its reason stays valid until the next call (the model copies it)
    return last_;
  }
  ps::WorkerDecision on_worker_free(const ps::WorkerObservation& w) override {
    py::gil_scoped_acquire gil;
    py::object r = o_->get().attr("on_worker_free")(w);
    if (!py::isinstance<ps::WorkerDecision>(r))
      throw py::type_error(name_ + ".on_worker_free must return mltwin.policies.WorkerDecision, got " +
                           std::string(py::str(r.get_type().attr("__name__"))));
    return r.cast<ps::WorkerDecision>();
  }

 private:
  std::string name_;
  PyRefPtr o_;
  PyAdmit last_;
};

/// What a Python cache policy's choose_victims receives as `evictable`: valid during the call.
struct GuardView {
  const ps::EvictionGuard* guard = nullptr;
  bool call(ps::ModelId m) const {
    if (guard == nullptr) {
      PyErr_SetString(PyExc_ReferenceError,
                      "evictable() used after the choose_victims call it was handed to returned: it was valid only "
                      "during that call");
      throw py::error_already_set();
    }
    return guard->evictable(m);
  }
};

class PyCache final : public ps::ModelCachePolicy {
 public:
  explicit PyCache(py::object o) : name_(name_of(o)), o_(hold(std::move(o))) {}
  std::string_view name() const override { return name_; }
  void on_insert(ps::ModelId m, std::uint64_t bytes, ps::Nanos now) override {
    members_.insert(m);
    py::gil_scoped_acquire gil;
    o_->get().attr("on_insert")(m, bytes, now);
  }
  void on_access(ps::ModelId m, ps::Nanos now) override {
    py::gil_scoped_acquire gil;
    o_->get().attr("on_access")(m, now);
  }
  void on_resize(ps::ModelId m, std::uint64_t bytes) override {
    py::gil_scoped_acquire gil;
    o_->get().attr("on_resize")(m, bytes);
  }
  void on_remove(ps::ModelId m) override {
    members_.erase(m);
    py::gil_scoped_acquire gil;
    o_->get().attr("on_remove")(m);
  }
  bool choose_victims(std::uint64_t bytes_needed, ps::Nanos now, const ps::EvictionGuard& guard,
                      std::vector<ps::ModelId>& victims) override {
    py::gil_scoped_acquire gil;
    auto view = std::make_shared<GuardView>(GuardView{&guard});
    py::cpp_function evictable([view](ps::ModelId m) { return view->call(m); }, py::arg("model"));
    py::object r;
    try {
      r = o_->get().attr("choose_victims")(bytes_needed, now, evictable);
    } catch (...) {
      view->guard = nullptr;
      throw;
    }
    view->guard = nullptr;
    if (r.is_none()) return false;
    // The model trusts a policy's victims; a Python one is checked first (a model it does not
    // hold, a duplicate or an unevictable one would corrupt the instance's accounting).
    if (!py::isinstance<py::sequence>(r) || py::isinstance<py::str>(r))
      throw py::type_error(name_ + ".choose_victims must return a list of model ids or None");
    std::set<ps::ModelId> seen;
    for (py::handle h : r) {
      if (!py::isinstance<py::int_>(h)) throw py::type_error(name_ + ".choose_victims: victims must be model ids (int)");
      const auto m = h.cast<ps::ModelId>();
      if (members_.count(m) == 0)
        throw py::value_error(name_ + ".choose_victims: model " + std::to_string(m) + " is not in this cache");
      if (!seen.insert(m).second) throw py::value_error(name_ + ".choose_victims: model " + std::to_string(m) + " listed twice");
      if (!guard.evictable(m))
        throw py::value_error(name_ + ".choose_victims: model " + std::to_string(m) + " cannot be evicted now (evictable() is False)");
      victims.push_back(m);
    }
    return true;
  }

 private:
  std::set<ps::ModelId> members_;  // models in this cache (for checking victims)
  std::string name_;
  PyRefPtr o_;
};

/// A ScalingObservation as Python sees it: the per-minute datapoints as a list it may keep.
struct PyScalingObservation {
  ps::Nanos now = 0;
  int instances_in_service = 0, instances_desired = 0, min_instances = 1, max_instances = 1;
  std::vector<double> invocations_per_instance;
  std::optional<ps::Nanos> last_scale_out, last_scale_in;  // None: never
  int scale_out_base = 0;
  static PyScalingObservation of(const ps::ScalingObservation& o) {
    PyScalingObservation p;
    p.now = o.now;
    p.instances_in_service = o.instances_in_service;
    p.instances_desired = o.instances_desired;
    p.min_instances = o.min_instances;
    p.max_instances = o.max_instances;
    p.invocations_per_instance.assign(o.invocations_per_instance.begin(), o.invocations_per_instance.end());
    if (o.last_scale_out != -ps::kNever) p.last_scale_out = o.last_scale_out;
    if (o.last_scale_in != -ps::kNever) p.last_scale_in = o.last_scale_in;
    p.scale_out_base = o.scale_out_base;
    return p;
  }
  /// The C++ observation; its span points into this object.
  ps::ScalingObservation view() const {
    ps::ScalingObservation o;
    o.now = now;
    o.instances_in_service = instances_in_service;
    o.instances_desired = instances_desired;
    o.min_instances = min_instances;
    o.max_instances = max_instances;
    o.invocations_per_instance = invocations_per_instance;
    o.last_scale_out = last_scale_out.value_or(-ps::kNever);
    o.last_scale_in = last_scale_in.value_or(-ps::kNever);
    o.scale_out_base = scale_out_base;
    return o;
  }
};

/// What a Python router's route() receives as `everyone`: valid during the call.
struct FleetView {
  const ps::InstanceList* fleet = nullptr;
  py::list call() const {
    if (fleet == nullptr) {
      PyErr_SetString(PyExc_ReferenceError,
                      "everyone() used after the route call it was handed to returned: it was valid only during that call");
      throw py::error_already_set();
    }
    py::list l;
    for (const ps::InstanceView& v : fleet->all()) l.append(v);
    return l;
  }
};

class PyRouter final : public ps::RoutingPolicy {
 public:
  explicit PyRouter(py::object o) : name_(name_of(o)), o_(hold(std::move(o))) {}
  std::string_view name() const override { return name_; }
  ps::RouteDecision route(ps::ModelId model, ps::Nanos now, std::span<const ps::InstanceView> holders,
                          const ps::InstanceList& everyone) override {
    py::gil_scoped_acquire gil;
    py::list hl(holders.size());
    for (std::size_t i = 0; i < holders.size(); ++i) hl[i] = py::cast(holders[i]);
    auto view = std::make_shared<FleetView>(FleetView{&everyone});
    py::cpp_function all([view]() { return view->call(); });
    py::object r;
    try {
      r = o_->get().attr("route")(model, now, hl, all);
    } catch (...) {
      view->fleet = nullptr;
      throw;
    }
    view->fleet = nullptr;
    if (!py::isinstance<PyRoute>(r))
      throw py::type_error(name_ + ".route must return mltwin.policies.RouteDecision, got " +
                           std::string(py::str(r.get_type().attr("__name__"))));
    last_ = r.cast<PyRoute>();  // its reason stays valid until the next call
    ps::RouteDecision d = last_;
    // The instance must be in service; new_copy follows from whether the model is there.
    for (const ps::InstanceView& v : holders)
      if (v.instance == d.instance) {
        d.new_copy = false;
        return d;
      }
    for (const ps::InstanceView& v : everyone.all())
      if (v.instance == d.instance) {
        d.new_copy = !v.model_present;
        return d;
      }
    throw py::value_error(name_ + ".route chose instance " + std::to_string(d.instance) +
                          ", which is not in service (choose one of holders or of everyone())");
  }

 private:
  std::string name_;
  PyRefPtr o_;
  PyRoute last_;
};

class PyScaling final : public ps::InstanceScalingPolicy {
 public:
  explicit PyScaling(py::object o) : name_(name_of(o)), o_(hold(std::move(o))) {}
  std::string_view name() const override { return name_; }
  ps::ScalingDecision evaluate(const ps::ScalingObservation& obs) override {
    py::gil_scoped_acquire gil;
    py::object r = o_->get().attr("evaluate")(PyScalingObservation::of(obs));
    if (!py::isinstance<PyScale>(r))
      throw py::type_error(name_ + ".evaluate must return mltwin.policies.ScalingDecision, got " +
                           std::string(py::str(r.get_type().attr("__name__"))));
    last_ = r.cast<PyScale>();  // its reason stays valid until the next call (the model copies it)
    const ps::ScalingDecision d = last_;
    if (d.desired < obs.min_instances || d.desired > obs.max_instances)
      throw py::value_error(name_ + ".evaluate wants " + std::to_string(d.desired) + " instances, outside min_instances .. " +
                            "max_instances (" + std::to_string(obs.min_instances) + " .. " + std::to_string(obs.max_instances) + ")");
    return d;
  }

 private:
  std::string name_;
  PyRefPtr o_;
  PyScale last_;
};

}  // namespace

void install_python_serving_policies(models::inference::PolicySet& set, py::object autoscaling, py::object memory_cache,
                                     py::object disk_cache, py::object routing, py::object instance_scaling) {
  py::gil_scoped_acquire gil;
  if (!autoscaling.is_none()) set.autoscaling = std::make_unique<PyAutoscaling>(autoscaling);
  if (!routing.is_none()) set.routing = std::make_unique<PyRouter>(routing);
  if (!instance_scaling.is_none()) set.scaling = std::make_unique<PyScaling>(instance_scaling);
  auto factory = [](py::object f, const char* what) {
    if (!PyCallable_Check(f.ptr()))
      throw std::invalid_argument(std::string(what) + ": expected a callable that returns a new cache policy (e.g. the class)");
    PyRefPtr ref = hold(std::move(f));
    return [ref]() -> std::unique_ptr<ps::ModelCachePolicy> {
      py::gil_scoped_acquire g;
      return std::make_unique<PyCache>(ref->get()());
    };
  };
  if (!memory_cache.is_none()) set.memory_cache = factory(memory_cache, "memory_cache");
  if (!disk_cache.is_none()) set.disk_cache = factory(disk_cache, "disk_cache");
}

void bind_serving(py::module_& m) {
  // ---- serving: observations and decisions (policy/serving.hpp) ----
  const ps::PoolObservation kPool;
  const ps::WorkerObservation kWorker;
  const ps::InstanceView kView;
  const ps::ScalingObservation kScaling;
  py::class_<ps::PoolObservation>(m, "PoolObservation",
                                  "A model's worker pool on one instance when a request arrives (times in ns).")
      .def(py::init([](ps::Nanos now, int min_workers, int max_workers, int workers_running, int workers_busy,
                       int workers_started, int queue_size, int queue_capacity, int batch_size, int free_cores) {
             ps::PoolObservation p;
             p.now = now;
             p.min_workers = min_workers;
             p.max_workers = max_workers;
             p.workers_running = workers_running;
             p.workers_busy = workers_busy;
             p.workers_started = workers_started;
             p.queue_size = queue_size;
             p.queue_capacity = queue_capacity;
             p.batch_size = batch_size;
             p.free_cores = free_cores;
             return p;
           }),
           // The defaults are the C++ struct's (one set: serving.hpp).
           py::arg("now") = kPool.now, py::arg("min_workers") = kPool.min_workers, py::arg("max_workers") = kPool.max_workers,
           py::arg("workers_running") = kPool.workers_running, py::arg("workers_busy") = kPool.workers_busy,
           py::arg("workers_started") = kPool.workers_started, py::arg("queue_size") = kPool.queue_size,
           py::arg("queue_capacity") = kPool.queue_capacity, py::arg("batch_size") = kPool.batch_size,
           py::arg("free_cores") = kPool.free_cores)
      .def_readwrite("now", &ps::PoolObservation::now, "simulated time, ns")
      .def_readwrite("min_workers", &ps::PoolObservation::min_workers, "DJL minWorkers - permanent workers")
      .def_readwrite("max_workers", &ps::PoolObservation::max_workers, "DJL maxWorkers")
      .def_readwrite("workers_running", &ps::PoolObservation::workers_running, "workers not stopped (starting ones included) - DJL getNumRunningWorkers")
      .def_readwrite("workers_busy", &ps::PoolObservation::workers_busy, "workers running a batch (DJL WORKER_BUSY)")
      .def_readwrite("workers_started", &ps::PoolObservation::workers_started, "workers waiting for or aggregating a batch (DJL WORKER_STARTED)")
      .def_readwrite("queue_size", &ps::PoolObservation::queue_size, "jobs in the job queue before this request")
      .def_readwrite("queue_capacity", &ps::PoolObservation::queue_capacity, "job_queue_size")
      .def_readwrite("batch_size", &ps::PoolObservation::batch_size, "batch_size")
      .def_readwrite("free_cores", &ps::PoolObservation::free_cores, "vCPUs of the instance not running a batch")
      .def("all_workers_busy", &ps::PoolObservation::all_workers_busy)
      .def("__repr__", [](const ps::PoolObservation& p) {
        return "PoolObservation(now=" + std::to_string(p.now) + ", workers_running=" + std::to_string(p.workers_running) +
               ", workers_busy=" + std::to_string(p.workers_busy) + ", queue_size=" + std::to_string(p.queue_size) + "/" +
               std::to_string(p.queue_capacity) + ")";
      });
  py::class_<PyAdmit>(m, "AdmitDecision", "admit (False: 503), add_worker, reason.")
      .def(py::init([](bool admit, bool add_worker, std::string reason) {
             PyAdmit d;
             d.admit = admit;
             d.add_worker = add_worker;
             d.set_reason(std::move(reason));
             return d;
           }),
           py::arg("admit") = true, py::arg("add_worker") = false, py::arg("reason") = "")
      .def_readwrite("admit", &ps::AdmitDecision::admit)
      .def_readwrite("add_worker", &ps::AdmitDecision::add_worker)
      .def_property("reason", [](const PyAdmit& d) { return d.text; }, &PyAdmit::set_reason)
      .def("__repr__", [](const PyAdmit& d) {
        return std::string("AdmitDecision(admit=") + (d.admit ? "True" : "False") + ", add_worker=" +
               (d.add_worker ? "True" : "False") + ", reason='" + d.text + "')";
      });
  py::class_<ps::WorkerObservation>(m, "WorkerObservation", "A worker free to take a job (times in ns).")
      .def(py::init([](ps::Nanos now, ps::Nanos idle_since, bool temporary, ps::Nanos max_idle_time, bool poll_timed_out) {
             ps::WorkerObservation w;
             w.now = now;
             w.idle_since = idle_since;
             w.temporary = temporary;
             w.max_idle_time = max_idle_time;
             w.poll_timed_out = poll_timed_out;
             return w;
           }),
           py::arg("now") = kWorker.now, py::arg("idle_since") = kWorker.idle_since, py::arg("temporary") = kWorker.temporary,
           py::arg("max_idle_time") = kWorker.max_idle_time, py::arg("poll_timed_out") = kWorker.poll_timed_out)
      .def("__repr__", [](const ps::WorkerObservation& w) {
        return "WorkerObservation(now=" + std::to_string(w.now) + ", idle_since=" + std::to_string(w.idle_since) +
               ", temporary=" + (w.temporary ? "True" : "False") + ", max_idle_time=" + std::to_string(w.max_idle_time) +
               ", poll_timed_out=" + (w.poll_timed_out ? "True" : "False") + ")";
      })
      .def_readwrite("now", &ps::WorkerObservation::now, "simulated time, ns")
      .def_readwrite("idle_since", &ps::WorkerObservation::idle_since, "when the worker last took a batch (or was created), ns")
      .def_readwrite("temporary", &ps::WorkerObservation::temporary, "added by the autoscaler (not one of the min_workers)")
      .def_readwrite("max_idle_time", &ps::WorkerObservation::max_idle_time, "max_idle_time, ns")
      .def_readwrite("poll_timed_out", &ps::WorkerObservation::poll_timed_out, "called because the previous poll_deadline passed with no job");
  py::class_<ps::WorkerDecision>(m, "WorkerDecision", "retire now, or poll for a job until poll_deadline (ns; None: forever).")
      .def(py::init([](bool retire, std::optional<ps::Nanos> deadline) {
             ps::WorkerDecision d;
             d.retire = retire;
             d.poll_deadline = deadline.value_or(ps::kNever);
             return d;
           }),
           py::arg("retire") = false, py::arg("poll_deadline") = py::none())
      .def_readwrite("retire", &ps::WorkerDecision::retire)
      .def_property("poll_deadline",
                    [](const ps::WorkerDecision& d) -> std::optional<ps::Nanos> {
                      if (d.poll_deadline == ps::kNever) return std::nullopt;
                      return d.poll_deadline;
                    },
                    [](ps::WorkerDecision& d, std::optional<ps::Nanos> v) { d.poll_deadline = v.value_or(ps::kNever); })
      .def("__repr__", [](const ps::WorkerDecision& d) {
        return std::string("WorkerDecision(retire=") + (d.retire ? "True" : "False") + ", poll_deadline=" +
               (d.poll_deadline == ps::kNever ? std::string("None") : std::to_string(d.poll_deadline)) + ")";
      });

  py::class_<ps::InstanceView>(m, "InstanceView", "One in-service instance as a router sees it for a request of one model.")
      .def(py::init([](std::uint32_t instance, bool model_present, int model_outstanding, int model_workers, int outstanding,
                       std::uint64_t memory_free, int models_loaded) {
             ps::InstanceView v;
             v.instance = instance;
             v.model_present = model_present;
             v.model_outstanding = model_outstanding;
             v.model_workers = model_workers;
             v.outstanding = outstanding;
             v.memory_free = memory_free;
             v.models_loaded = models_loaded;
             return v;
           }),
           py::arg("instance") = kView.instance, py::arg("model_present") = kView.model_present,
           py::arg("model_outstanding") = kView.model_outstanding, py::arg("model_workers") = kView.model_workers,
           py::arg("outstanding") = kView.outstanding, py::arg("memory_free") = kView.memory_free,
           py::arg("models_loaded") = kView.models_loaded)
      .def_readwrite("instance", &ps::InstanceView::instance, "instance id (stable for the instance's life)")
      .def_readwrite("model_present", &ps::InstanceView::model_present, "the model is loaded or being loaded here")
      .def_readwrite("model_outstanding", &ps::InstanceView::model_outstanding, "this model's requests queued or running here")
      .def_readwrite("model_workers", &ps::InstanceView::model_workers, "this model's running workers here")
      .def_readwrite("outstanding", &ps::InstanceView::outstanding, "all requests queued or running here")
      .def_readwrite("memory_free", &ps::InstanceView::memory_free, "bytes not held by loaded models")
      .def_readwrite("models_loaded", &ps::InstanceView::models_loaded)
      .def("__repr__", [](const ps::InstanceView& v) {
        return "InstanceView(instance=" + std::to_string(v.instance) + ", model_present=" + (v.model_present ? "True" : "False") +
               ", model_outstanding=" + std::to_string(v.model_outstanding) + ", model_workers=" + std::to_string(v.model_workers) +
               ", outstanding=" + std::to_string(v.outstanding) + ", memory_free=" + std::to_string(v.memory_free) +
               ", models_loaded=" + std::to_string(v.models_loaded) + ")";
      });
  py::class_<PyRoute>(m, "RouteDecision",
                      "The instance a request goes to (one of the views handed to route); new_copy is set by "
                      "mltwin from whether the model is there.")
      .def(py::init([](std::uint32_t instance, bool new_copy, std::string reason) {
             PyRoute d;
             d.instance = instance;
             d.new_copy = new_copy;
             d.set_reason(std::move(reason));
             return d;
           }),
           py::arg("instance"), py::arg("new_copy") = false, py::arg("reason") = "")
      .def_readwrite("instance", &ps::RouteDecision::instance)
      .def_readwrite("new_copy", &ps::RouteDecision::new_copy)
      .def_property("reason", [](const PyRoute& d) { return d.text; }, &PyRoute::set_reason)
      .def("__repr__", [](const PyRoute& d) {
        return "RouteDecision(instance=" + std::to_string(d.instance) + ", new_copy=" + (d.new_copy ? "True" : "False") +
               ", reason='" + d.text + "')";
      });
  py::class_<PyScalingObservation>(m, "ScalingObservation",
                                   "The endpoint once per completed metric minute (times in ns; None: never).")
      .def(py::init([](ps::Nanos now, int in_service, int desired, int min_i, int max_i, std::vector<double> ipi,
                       std::optional<ps::Nanos> last_out, std::optional<ps::Nanos> last_in, int scale_out_base) {
             PyScalingObservation o;
             o.now = now;
             o.instances_in_service = in_service;
             o.instances_desired = desired;
             o.min_instances = min_i;
             o.max_instances = max_i;
             o.invocations_per_instance = std::move(ipi);
             o.last_scale_out = last_out;
             o.last_scale_in = last_in;
             o.scale_out_base = scale_out_base;
             return o;
           }),
           py::arg("now") = kScaling.now, py::arg("instances_in_service") = kScaling.instances_in_service,
           py::arg("instances_desired") = kScaling.instances_desired, py::arg("min_instances") = kScaling.min_instances,
           py::arg("max_instances") = kScaling.max_instances, py::arg("invocations_per_instance") = std::vector<double>{},
           py::arg("last_scale_out") = py::none(), py::arg("last_scale_in") = py::none(),
           py::arg("scale_out_base") = kScaling.scale_out_base)
      .def_readwrite("now", &PyScalingObservation::now, "simulated time, ns")
      .def_readwrite("instances_in_service", &PyScalingObservation::instances_in_service)
      .def_readwrite("instances_desired", &PyScalingObservation::instances_desired, "current desired count (incl. instances still starting)")
      .def_readwrite("min_instances", &PyScalingObservation::min_instances)
      .def_readwrite("max_instances", &PyScalingObservation::max_instances)
      .def_readwrite("invocations_per_instance", &PyScalingObservation::invocations_per_instance,
                     "per-minute InvocationsPerInstance datapoints, oldest first (list of float)")
      .def_readwrite("last_scale_out", &PyScalingObservation::last_scale_out, "when the desired count last went up, ns (None: never)")
      .def_readwrite("last_scale_in", &PyScalingObservation::last_scale_in, "when it last went down, ns (None: never)")
      .def_readwrite("scale_out_base", &PyScalingObservation::scale_out_base,
                     "the desired count the scale-out cooldown begun at or before last_scale_out counts added capacity "
                     "from: the count before that scale-out, or the scale_out_base its decision returned (0: none yet)")
      .def("__repr__", [](const PyScalingObservation& o) {
        return "ScalingObservation(now=" + std::to_string(o.now) + ", instances_in_service=" + std::to_string(o.instances_in_service) +
               ", instances_desired=" + std::to_string(o.instances_desired) + ", datapoints=" +
               std::to_string(o.invocations_per_instance.size()) + ")";
      });
  py::class_<PyScale>(m, "ScalingDecision", "The desired instance count (unchanged: no action) and why.")
      .def(py::init([](int desired, std::string reason, int scale_out_base) {
             PyScale d;
             d.desired = desired;
             d.set_reason(std::move(reason));
             d.scale_out_base = scale_out_base;
             return d;
           }),
           py::arg("desired"), py::arg("reason") = "", py::arg("scale_out_base") = -1)
      .def_readwrite("desired", &ps::ScalingDecision::desired)
      .def_readwrite("scale_out_base", &ps::ScalingDecision::scale_out_base,
                     "a scale-out only: the desired count its scale-out cooldown counts added capacity from, handed "
                     "back as ScalingObservation.scale_out_base (-1: the count before this scale-out)")
      .def_property("reason", [](const PyScale& d) { return d.text; }, &PyScale::set_reason)
      .def("__repr__", [](const PyScale& d) {
        return "ScalingDecision(desired=" + std::to_string(d.desired) + ", reason='" + d.text + "')";
      });

  // The built-in policies, callable from Python (to test them offline or to delegate to them).
  py::class_<ps::AutoscalingPolicy>(m, "AutoscalingPolicyBase")
      .def_property_readonly("name", [](const ps::AutoscalingPolicy& p) { return std::string(p.name()); })
      .def("on_arrival", [](ps::AutoscalingPolicy& p, const ps::PoolObservation& o) { return PyAdmit(p.on_arrival(o)); },
           py::arg("pool"))
      .def("on_worker_free", &ps::AutoscalingPolicy::on_worker_free, py::arg("worker"));
  py::class_<ps::DjlWlmPolicy, ps::AutoscalingPolicy>(m, "DjlWlmPolicy",
                                                      "DJL Serving 0.23.0's WorkLoadManager rules (policy/serving.hpp).")
      .def(py::init<bool>(), py::arg("idle_from_batch_end") = false);
  py::class_<ps::MmsStaticPolicy, ps::AutoscalingPolicy>(m, "MmsStaticPolicy", "MMS v1.1.9's static worker pool.")
      .def(py::init<>());
  py::class_<ps::ModelCachePolicy>(m, "ModelCachePolicyBase")
      .def_property_readonly("name", [](const ps::ModelCachePolicy& p) { return std::string(p.name()); })
      .def("on_insert", &ps::ModelCachePolicy::on_insert, py::arg("model"), py::arg("bytes"), py::arg("now"))
      .def("on_access", &ps::ModelCachePolicy::on_access, py::arg("model"), py::arg("now"))
      .def("on_resize", &ps::ModelCachePolicy::on_resize, py::arg("model"), py::arg("bytes"))
      .def("on_remove", &ps::ModelCachePolicy::on_remove, py::arg("model"))
      .def("choose_victims",
           [](ps::ModelCachePolicy& p, std::uint64_t bytes_needed, ps::Nanos now, py::function evictable) -> py::object {
             struct Guard final : ps::EvictionGuard {
               py::function f;
               bool evictable(ps::ModelId m) const override { return f(m).cast<bool>(); }
             } g;
             g.f = std::move(evictable);
             std::vector<ps::ModelId> v;
             if (!p.choose_victims(bytes_needed, now, g, v)) return py::none();
             return py::cast(v);
           },
           py::arg("bytes_needed"), py::arg("now"), py::arg("evictable"));
  m.def("make_lru_cache_policy", &ps::make_lru_cache_policy, "The built-in LRU ModelCachePolicy (the MME default).");
  py::class_<ps::RoutingPolicy>(m, "RoutingPolicyBase")
      .def_property_readonly("name", [](const ps::RoutingPolicy& p) { return std::string(p.name()); })
      .def("route",
           [](ps::RoutingPolicy& p, ps::ModelId model, ps::Nanos now, std::vector<ps::InstanceView> holders,
              py::object everyone) {
             // everyone: a list of InstanceView, or a callable returning one (as a route() receives it).
             struct Fleet final : ps::InstanceList {
               std::vector<ps::InstanceView> v;
               std::span<const ps::InstanceView> all() const override { return v; }
             } fleet;
             py::object l = PyCallable_Check(everyone.ptr()) ? everyone() : everyone;
             fleet.v = l.cast<std::vector<ps::InstanceView>>();
             if (fleet.v.empty()) throw py::value_error("everyone: the in-service instances, never empty");
             return PyRoute(p.route(model, now, holders, fleet));
           },
           py::arg("model"), py::arg("now"), py::arg("holders"), py::arg("everyone"));
  py::class_<ps::InstanceScalingPolicy>(m, "InstanceScalingPolicyBase")
      .def_property_readonly("name", [](const ps::InstanceScalingPolicy& p) { return std::string(p.name()); })
      .def("evaluate", [](ps::InstanceScalingPolicy& p, const PyScalingObservation& o) { return PyScale(p.evaluate(o.view())); },
           py::arg("obs"));
  m.def("make_policy",
        [](const std::string& kind, const std::string& name, py::object arguments) -> py::object {
          if (kind == "autoscaling") return py::cast(make_named(ps::autoscaling_registry(), name, arguments));
          if (kind == "memory_cache" || kind == "disk_cache" || kind == "model_cache")
            return py::cast(make_named(ps::model_cache_registry(), name, arguments));
          if (kind == "routing") return py::cast(make_named(ps::routing_registry(), name, arguments));
          if (kind == "instance_scaling") return py::cast(make_named(ps::instance_scaling_registry(), name, arguments));
          throw py::value_error("kind: expected autoscaling, memory_cache, disk_cache, routing or instance_scaling, got '" + kind + "'");
        },
        py::arg("kind"), py::arg("name"), py::arg("arguments") = py::none(),
        "A serving policy from its registry by name, with its arguments (a dict); ValueError for an unknown name, "
        "an argument it does not read, a value of the wrong type or one it refuses.");
  m.def("parse_go_duration_ns", [](const std::string& s) { return policy::parse_go_duration(s); }, py::arg("text"),
        "A Go duration (time.ParseDuration: \"300s\", \"5m0s\", \"1h30m\") in integer ns, as policy arguments "
        "take them. Raises ValueError.");
  m.def("serving_policies",
        []() {
          py::dict d;
          d["autoscaling"] = registry_dict(ps::autoscaling_registry());
          d["model_cache"] = registry_dict(ps::model_cache_registry());
          d["routing"] = registry_dict(ps::routing_registry());
          d["instance_scaling"] = registry_dict(ps::instance_scaling_registry());
          return d;
        },
        "{kind: {name: {summary, builtin, arguments: [{key, type, default, source}]}}} of the serving policy registries.");
}

}  // namespace mltwin::bindings
