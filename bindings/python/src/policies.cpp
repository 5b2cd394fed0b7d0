// policies.cpp — see policies.hpp.
//
// GIL: the simulator runs with the GIL released (PyRun::run_until); every call into Python
// below takes it back first, and every Python object a C++ policy keeps is released under the
// GIL (PyRef), because C++ may destroy a policy or a session's callbacks while the GIL is not
// held. A Python exception propagates out of the adapter as pybind11::error_already_set and
// crosses the simulator to the caller of run_until, which re-raises it with its traceback.
#include "policies.hpp"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/session.hpp"
#include "mltwin/policy/serving.hpp"

namespace py = pybind11;

namespace mltwin::bindings {
namespace {

namespace ps = policy::serving;

/// A Python object that C++ may drop without holding the GIL.
class PyRef {
 public:
  explicit PyRef(py::object o) : o_(std::move(o)) {}
  ~PyRef() {
    py::gil_scoped_acquire gil;
    o_ = py::object();
  }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  const py::object& get() const { return o_; }

 private:
  py::object o_;
};
using PyRefPtr = std::shared_ptr<PyRef>;
PyRefPtr hold(py::object o) { return std::make_shared<PyRef>(std::move(o)); }

std::string name_of(const py::object& o) {
  if (py::hasattr(o, "name")) {
    py::object n = o.attr("name");
    if (PyCallable_Check(n.ptr())) n = n();
    return py::str(n);
  }
  return py::str(o.get_type().attr("__name__"));
}

/// Texts that must outlive a call, few and fixed (plugin names for error messages): interned
/// for the life of the process. (Reasons of serving decisions live in their Owned decision.)
std::string_view intern(std::string s) {
  static std::set<std::string, std::less<>> texts;
  if (auto it = texts.find(std::string_view(s)); it != texts.end()) return *it;
  return *texts.insert(std::move(s)).first;
}

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

/// A Python dict of arguments as policy::Arguments text: bool as true/false, int as digits,
/// float as its shortest repr, str as is.
policy::Arguments arguments_of(const py::handle& d, const std::string& what) {
  policy::Arguments a;
  if (d.is_none()) return a;
  if (!py::isinstance<py::dict>(d)) throw py::value_error(what + ": arguments must be a dict, got " + std::string(py::str(d.get_type().attr("__name__"))));
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(d)) {
    const std::string key = py::str(k);
    if (PyBool_Check(v.ptr())) a.set(key, v.ptr() == Py_True ? "true" : "false");
    else if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v) || py::isinstance<py::str>(v))
      a.set(key, py::str(py::isinstance<py::float_>(v) ? py::repr(v) : py::str(v)));
    else
      throw py::value_error(what + ": argument '" + key + "' must be a bool, int, float or str, got " +
                            std::string(py::str(v.get_type().attr("__name__"))));
  }
  return a;
}

/// Registry::make for Python: unknown names, undeclared keys and wrong types raise ValueError.
template <class Product>
std::unique_ptr<Product> make_named(const policy::Registry<Product>& r, const std::string& name, const py::handle& args) {
  const policy::Arguments a = arguments_of(args, r.kind() + " '" + name + "'");
  if (!r.has(name)) throw py::value_error(r.unknown_message(name));
  // A declared number or boolean must be given as one (not as its text), as in a scenario
  // (policy::arg_kind_problem).
  if (const auto specs = r.arguments(name); specs && !args.is_none())
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(args))
      for (const policy::ArgSpec& spec : *specs) {
        if (spec.key != std::string(py::str(k))) continue;
        const policy::ValueKind kind = PyBool_Check(v.ptr())           ? policy::ValueKind::Bool
                                       : py::isinstance<py::int_>(v)   ? policy::ValueKind::Int
                                       : py::isinstance<py::float_>(v) ? policy::ValueKind::Float
                                       : py::isinstance<py::str>(v)    ? policy::ValueKind::String
                                                                       : policy::ValueKind::Other;
        if (const std::string problem = policy::arg_kind_problem(spec.type, kind); !problem.empty())
          throw py::value_error("arguments." + spec.key + ": " + problem + ", got " +
                                std::string(py::str(v.get_type().attr("__name__"))) + " " + std::string(py::repr(v)));
      }
  for (const policy::ArgIssue& i : r.check(name, a, "arguments."))
    if (i.severity == policy::ArgIssue::Severity::Error) throw py::value_error(i.where + ": " + i.message);
  try {
    return r.make(name, a);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(r.kind() + " '" + name + "': " + e.what());
  }
}

template <class Product>
py::dict registry_dict(const policy::Registry<Product>& r) {
  py::dict out;
  for (const std::string& name : r.names()) {
    const auto e = r.find(name);
    if (!e) continue;
    py::list args;
    if (e->arguments)
      for (const policy::ArgSpec& s : *e->arguments) {
        py::dict d;
        d["key"] = s.key;
        d["type"] = policy::to_string(s.type);
        d["default"] = s.default_value.empty() ? py::object(py::none()) : py::object(py::str(s.default_value));
        d["source"] = s.source;
        args.append(d);
      }
    py::dict d;
    d["summary"] = e->summary;
    d["builtin"] = r.builtin(name);
    d["arguments"] = args;
    out[py::str(name)] = d;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scheduling plugins

/// Python scheduling plugins by name; the C++ registry's factories look them up here, so that
/// the registry (which outlives the interpreter) holds no Python object.
py::dict& python_plugins() {
  static auto* d = new py::dict();  // leaked on purpose: never destroyed after Py_Finalize
  return *d;
}

py::dict arguments_dict(const policy::Arguments& a) {
  py::dict d;
  for (const auto& [k, v] : a.all()) d[py::str(k)] = py::str(v);
  return d;
}

// ---- objects valid during one callback ----
//
// The Session, JobInfo, TaskInfo, NodeInfo and QueueInfo a plugin receives point into the
// simulator's state, which moves on once the callback returns (and is gone with its Run). Each
// is handed out as a Ref: the pointer plus the token of the call it was handed out in. The
// tokens of the calls in progress are kept in a list (touched only under the GIL); a Ref
// whose call has returned raises ReferenceError instead of reading freed memory. Tokens are
// never reused, so a Ref cannot come back to life in a later call.

/// The plugin and the callback an object was handed to, for the error message.
struct Origin {
  std::string_view plugin;  // interned: outlives every Ref
  const char* callback;     // e.g. "job order function (add_job_order_fn)"
};

std::vector<std::uint64_t>& open_calls() {
  static auto* v = new std::vector<std::uint64_t>();  // under the GIL; leaked like python_plugins()
  return *v;
}
std::uint64_t last_token = 0;

/// One callback in progress (construct it with the GIL held). Refs made with its token are
/// valid until it is destroyed.
class CallScope {
 public:
  CallScope() : token_(++last_token) { open_calls().push_back(token_); }
  ~CallScope() {
    auto& v = open_calls();
    for (auto it = v.end(); it != v.begin();)
      if (*--it == token_) {
        v.erase(it);
        break;
      }
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  std::uint64_t token() const { return token_; }

 private:
  std::uint64_t token_;
};

bool call_open(std::uint64_t token) {
  const auto& v = open_calls();
  return std::find(v.rbegin(), v.rend(), token) != v.rend();
}

[[noreturn]] void expired(const char* kind, const Origin& o) {
  const std::string msg = std::string(kind) + " used after the call it was handed to returned: it was valid only during plugin '" +
                          std::string(o.plugin) + "''s " + o.callback +
                          " (and never after its Run); keep what you need from it (e.g. its id or name) instead";
  PyErr_SetString(PyExc_ReferenceError, msg.c_str());
  throw py::error_already_set();
}

template <class T> constexpr const char* kind_of = "";
template <> constexpr const char* kind_of<policy::JobInfo> = "JobInfo";
template <> constexpr const char* kind_of<policy::TaskInfo> = "TaskInfo";
template <> constexpr const char* kind_of<policy::NodeInfo> = "NodeInfo";
template <> constexpr const char* kind_of<policy::QueueInfo> = "QueueInfo";

/// A JobInfo, TaskInfo, NodeInfo or QueueInfo as Python holds it.
template <class T>
struct Ref {
  const T* p;
  std::uint64_t token;
  Origin origin;
  const T& get() const {
    if (!call_open(token)) expired(kind_of<T>, origin);
    return *p;
  }
};

/// A field of T read through a Ref (a copy of it).
template <class T, class M>
auto field(M T::*member) {
  return [member](const Ref<T>& r) -> M { return r.get().*member; };
}

template <class T>
py::object ref(const T& x, std::uint64_t token, const Origin& o) {
  return py::cast(Ref<T>{&x, token, o});
}

/// The session as a plugin sees it in on_session_open / on_session_close (Volcano
/// framework.Session): registration of callbacks, and read access to the snapshot.
struct PySession {
  policy::Session* ssn;
  std::uint64_t token;
  Origin origin;  // origin.plugin: the plugin being opened
  policy::Session& s() const {
    if (!call_open(token)) expired("Session", origin);
    return *ssn;
  }
  template <class T>
  py::object ref(const T& x) const {
    return bindings::ref(x, token, origin);
  }
};

// ---- what a callback returns, checked ----

std::string shown(const py::handle& r) {
  std::string s = py::str(py::repr(r));
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return std::string(Py_TYPE(r.ptr())->tp_name) + " " + s;
}

[[noreturn]] void wrong_type(const Origin& o, const char* expected, const py::handle& r) {
  throw py::type_error("plugin '" + std::string(o.plugin) + "': its " + o.callback + " must return " + expected + ", got " +
                       shown(r));
}

bool is_bool(const py::handle& r) {
  if (PyBool_Check(r.ptr())) return true;
  const std::string_view t = Py_TYPE(r.ptr())->tp_name;
  return t == "numpy.bool_" || t == "numpy.bool";
}

/// An order: an int (bool and NumPy integers too), taken by its sign.
int order_answer(const py::object& r, const Origin& o) {
  if (!PyIndex_Check(r.ptr()))
    wrong_type(o, "an int (negative: the first argument goes first, positive: the second, 0: no preference)", r);
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(r.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0) return overflow;
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return (v > 0) - (v < 0);
}

/// A score: a finite int or float (NumPy's too).
double score_answer(const py::object& r, const Origin& o) {
  const char* expected = "a finite number (int or float; higher is better)";
  if (is_bool(r) || PyUnicode_Check(r.ptr()) || PyBytes_Check(r.ptr()) || PyComplex_Check(r.ptr()) ||
      !PyNumber_Check(r.ptr()))
    wrong_type(o, expected, r);
  const double v = PyFloat_AsDouble(r.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    wrong_type(o, expected, r);
  }
  if (!std::isfinite(v))
    throw py::value_error("plugin '" + std::string(o.plugin) + "': its " + o.callback + " must return " + expected + ", got " +
                          shown(r));
  return v;
}

bool bool_answer(const py::object& r, const Origin& o) {
  if (!is_bool(r)) wrong_type(o, "a bool", r);
  return PyObject_IsTrue(r.ptr()) == 1;
}

/// Calls a Python callback with Refs to `args`, valid during the call.
template <class... A>
py::object call(const PyRefPtr& f, const Origin& o, const A&... args) {
  CallScope scope;
  return f->get()(ref(args, scope.token(), o)...);
}

/// Callbacks taking policy objects and answering R, as the Session stores them.
template <class R, class... A>
std::function<R(const A&...)> wrap(const py::function& f, Origin o, R (*answer)(const py::object&, const Origin&)) {
  PyRefPtr fn = hold(f);
  return [fn, o, answer](const A&... a) -> R {
    py::gil_scoped_acquire gil;
    return answer(call(fn, o, a...), o);
  };
}

class PyPlugin final : public policy::Plugin {
 public:
  PyPlugin(std::string name, py::object o) : name_(std::move(name)), o_(hold(std::move(o))) {}
  std::string_view name() const override { return name_; }
  void on_session_open(policy::Session& ssn) override { call_with_session(ssn, "on_session_open"); }
  void on_session_close(policy::Session& ssn) override {
    py::gil_scoped_acquire gil;
    if (py::hasattr(o_->get(), "on_session_close")) call_with_session(ssn, "on_session_close");
  }

 private:
  void call_with_session(policy::Session& ssn, const char* method) {
    py::gil_scoped_acquire gil;
    CallScope scope;
    PySession view{&ssn, scope.token(), Origin{intern(name_), method}};
    o_->get().attr(method)(py::cast(view));
  }
  std::string name_;
  PyRefPtr o_;
};

double cores(const policy::Resource& r) { return r.milli_cpu / 1000.0; }

/// A resource in Kubernetes units: cpu in cores, memory in bytes, pods as a count, every other
/// (scalar) resource in its own unit (devices, interfaces, bytes): Volcano's milli-units / 1000.
double k8s_units(policy::ResourceName name, double v) {
  if (name == policy::rn::kMemory || name == policy::rn::kPods) return v;
  return v / 1000.0;
}

py::dict resource_dict(const policy::Resource& r) {
  py::dict d;
  r.for_each([&](policy::ResourceName name, double v) { d[py::str(std::string(name.str()))] = k8s_units(name, v); });
  return d;
}

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

void bind_policies(py::module_& m) {
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
                       std::optional<ps::Nanos> last_out, std::optional<ps::Nanos> last_in) {
             PyScalingObservation o;
             o.now = now;
             o.instances_in_service = in_service;
             o.instances_desired = desired;
             o.min_instances = min_i;
             o.max_instances = max_i;
             o.invocations_per_instance = std::move(ipi);
             o.last_scale_out = last_out;
             o.last_scale_in = last_in;
             return o;
           }),
           py::arg("now") = kScaling.now, py::arg("instances_in_service") = kScaling.instances_in_service,
           py::arg("instances_desired") = kScaling.instances_desired, py::arg("min_instances") = kScaling.min_instances,
           py::arg("max_instances") = kScaling.max_instances, py::arg("invocations_per_instance") = std::vector<double>{},
           py::arg("last_scale_out") = py::none(), py::arg("last_scale_in") = py::none())
      .def_readwrite("now", &PyScalingObservation::now, "simulated time, ns")
      .def_readwrite("instances_in_service", &PyScalingObservation::instances_in_service)
      .def_readwrite("instances_desired", &PyScalingObservation::instances_desired, "current desired count (incl. instances still starting)")
      .def_readwrite("min_instances", &PyScalingObservation::min_instances)
      .def_readwrite("max_instances", &PyScalingObservation::max_instances)
      .def_readwrite("invocations_per_instance", &PyScalingObservation::invocations_per_instance,
                     "per-minute InvocationsPerInstance datapoints, oldest first (list of float)")
      .def_readwrite("last_scale_out", &PyScalingObservation::last_scale_out, "when the desired count last went up, ns (None: never)")
      .def_readwrite("last_scale_in", &PyScalingObservation::last_scale_in, "when it last went down, ns (None: never)")
      .def("__repr__", [](const PyScalingObservation& o) {
        return "ScalingObservation(now=" + std::to_string(o.now) + ", instances_in_service=" + std::to_string(o.instances_in_service) +
               ", instances_desired=" + std::to_string(o.instances_desired) + ", datapoints=" +
               std::to_string(o.invocations_per_instance.size()) + ")";
      });
  py::class_<PyScale>(m, "ScalingDecision", "The desired instance count (unchanged: no action) and why.")
      .def(py::init([](int desired, std::string reason) {
             PyScale d;
             d.desired = desired;
             d.set_reason(std::move(reason));
             return d;
           }),
           py::arg("desired"), py::arg("reason") = "")
      .def_readwrite("desired", &ps::ScalingDecision::desired)
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

  // ---- scheduling: the plugin API (policy/session.hpp) ----
  // JobInfo, TaskInfo, NodeInfo and QueueInfo are Refs (valid during the callback they were
  // handed to: ReferenceError after); what they return is a copy (Resource, lists, dicts).
  py::class_<policy::Resource>(m, "Resource",
                                "Resources by Kubernetes name, as Volcano counts them (policy/resource.hpp), in Kubernetes "
                                "units: cpu in cores, memory in bytes, pods as a count, other resources in their own unit "
                                "(aws.amazon.com/neurondevice: devices, vpc.amazonaws.com/efa: interfaces, ...).")
      .def_property_readonly("cpu", [](const policy::Resource& r) { return cores(r); }, "CPU, cores (float)")
      .def_property_readonly("memory", [](const policy::Resource& r) { return r.memory; }, "memory, bytes")
      .def("get", [](const policy::Resource& r, const std::string& name) {
             const auto n = policy::ResourceName::find(name);
             return n ? k8s_units(*n, r.get(*n)) : 0.0;
           }, py::arg("name"), "The amount of the resource `name` (e.g. 'aws.amazon.com/neurondevice'), in Kubernetes units; 0 when absent.")
      .def("names", [](const policy::Resource& r) {
             std::vector<std::string> v;
             r.for_each([&](policy::ResourceName name, double) { v.emplace_back(name.str()); });
             return v;
           }, "The resource names present: cpu, memory, then the scalar resources.")
      .def("as_dict", &resource_dict, "{name: amount in Kubernetes units}")
      .def("__repr__", [](const policy::Resource& r) { return std::string(py::str(resource_dict(r))); });

  using TaskRef = Ref<policy::TaskInfo>;
  using JobRef = Ref<policy::JobInfo>;
  using NodeRef = Ref<policy::NodeInfo>;
  using QueueRef = Ref<policy::QueueInfo>;
  py::class_<TaskRef>(m, "TaskInfo", "A pod (Volcano TaskInfo); valid during the callback it was handed to only (then ReferenceError).")
      .def_property_readonly("id", [](const TaskRef& r) { return r.get().id; }, "task id (int), stable for the run")
      .def_property_readonly("job", [](const TaskRef& r) { return r.get().job; }, "id of the task's job (Session.job(id))")
      .def_property_readonly("name", [](const TaskRef& r) { return r.get().name; }, "pod name")
      .def_property_readonly("index", [](const TaskRef& r) { return r.get().index; }, "replica index within the job (TorchX replica id)")
      .def_property_readonly("resreq", field(&policy::TaskInfo::resreq), "resources the pod requests (Resource)")
      .def_property_readonly("status", [](const TaskRef& r) { return policy::to_string(r.get().status); }, "Volcano TaskStatus - Pending, Allocated, Pipelined, Binding, Bound, Running, Releasing, Succeeded, Failed, Unknown")
      .def_property_readonly("node", [](const TaskRef& r) -> std::optional<std::uint32_t> {
        const policy::TaskInfo& t = r.get();
        if (t.node == policy::kNone) return std::nullopt;
        return static_cast<std::uint32_t>(t.node);
      }, "id of the node the pod is on or allocated to (Session.node(id)); None if none")
      .def_property_readonly("priority", [](const TaskRef& r) { return r.get().priority; }, "pod priority (PriorityClass value)")
      .def_property_readonly("creation_ns", [](const TaskRef& r) { return r.get().creation; }, "pod creation time, ns")
      .def_property_readonly("node_selector", [](const TaskRef& r) {
        py::dict d;
        for (const auto& [k, v] : r.get().node_selector) d[py::str(k)] = py::str(v);
        return d;
      }, "spec.nodeSelector (dict str -> str)")
      .def_property_readonly("tolerations", [](const TaskRef& r) {
        py::list l;
        for (const auto& x : r.get().tolerations) {
          py::dict d;
          d["key"] = x.key;
          d["operator"] = x.op == policy::Toleration::Op::Exists ? "Exists" : "Equal";
          d["value"] = x.value;
          d["effect"] = x.any_effect ? std::string() : std::string(policy::to_string(x.effect));
          l.append(d);
        }
        return l;
      }, "spec.tolerations (list of dicts: key, operator, value, effect; effect '' tolerates every effect)");
  py::class_<JobRef>(m, "JobInfo", "A Volcano job with its PodGroup; valid during the callback it was handed to only (then ReferenceError).")
      .def_property_readonly("id", [](const JobRef& r) { return r.get().id; }, "job id (int)")
      .def_property_readonly("name", [](const JobRef& r) { return r.get().name; }, "Volcano job name")
      .def_property_readonly("queue", [](const JobRef& r) { return r.get().queue; }, "id of the job's queue (Session.queue(id))")
      .def_property_readonly("min_available", [](const JobRef& r) { return r.get().min_available; }, "PodGroup minAvailable - pods that must be placed together")
      .def_property_readonly("priority", [](const JobRef& r) { return r.get().priority; }, "job priority (PriorityClass value)")
      .def_property_readonly("creation_ns", [](const JobRef& r) { return r.get().creation; }, "PodGroup creation time, ns")
      .def_property_readonly("sla_waiting_time_ns", [](const JobRef& r) { return r.get().sla_waiting_time; },
                    "PodGroup annotation sla-waiting-time, ns (0: none; the sla plugin reads it)")
      .def_property_readonly("phase", [](const JobRef& r) { return policy::to_string(r.get().phase); }, "PodGroup phase - Pending, Inqueue, Running, Unknown")
      .def_property_readonly("min_resources", field(&policy::JobInfo::min_resources), "PodGroup minResources (Resource)")
      .def_property_readonly("allocated", field(&policy::JobInfo::allocated), "resources of the job's allocated pods (Resource)")
      .def_property_readonly("tasks", field(&policy::JobInfo::tasks), "ids of the job's tasks (list of int; Session.task(id))")
      .def("ready_task_num", [](const JobRef& r) { return r.get().ready_task_num(); }, "pods Allocated, Binding, Bound, Running or Succeeded (Volcano ReadyTaskNum)");
  py::class_<NodeRef>(m, "NodeInfo", "A Kubernetes node; valid during the callback it was handed to only (then ReferenceError).")
      .def_property_readonly("id", [](const NodeRef& r) { return r.get().id; }, "node id (int)")
      .def_property_readonly("name", [](const NodeRef& r) { return r.get().name; }, "node name")
      .def_property_readonly("instance_type", [](const NodeRef& r) { return r.get().instance_type; }, "EC2 instance type, e.g. trn1.32xlarge")
      .def_property_readonly("labels", [](const NodeRef& r) {
        py::dict d;
        for (const auto& [k, v] : r.get().labels) d[py::str(k)] = py::str(v);
        return d;
      }, "node labels (dict str -> str)")
      .def_property_readonly("taints", [](const NodeRef& r) {
        py::list l;
        for (const auto& t : r.get().taints) {
          py::dict d;
          d["key"] = t.key;
          d["value"] = t.value;
          d["effect"] = policy::to_string(t.effect);
          l.append(d);
        }
        return l;
      }, "spec.taints (list of dicts: key, value, effect)")
      .def_property_readonly("capacity", field(&policy::NodeInfo::capacity), "the instance type's capacity (Resource)")
      .def_property_readonly("allocatable", field(&policy::NodeInfo::allocatable), "node allocatable, the capacity less the kubelet's reservation (Resource)")
      .def_property_readonly("daemonset_used", field(&policy::NodeInfo::daemonset_used), "requests of the DaemonSet pods on the node, part of used (Resource)")
      .def_property_readonly("idle", field(&policy::NodeInfo::idle), "allocatable minus used (Resource)")
      .def_property_readonly("used", field(&policy::NodeInfo::used), "requests of the pods holding the node (Volcano NodeInfo.Used; Resource)")
      .def_property_readonly("future_idle", [](const NodeRef& r) { return r.get().future_idle(); }, "idle + releasing - pipelined (Volcano NodeInfo.FutureIdle; Resource)")
      .def_property_readonly("task_count", [](const NodeRef& r) { return r.get().task_count; }, "pods on the node");
  py::class_<QueueRef>(m, "QueueInfo", "A Volcano queue; valid during the callback it was handed to only (then ReferenceError).")
      .def_property_readonly("id", [](const QueueRef& r) { return r.get().id; }, "queue id (int)")
      .def_property_readonly("name", [](const QueueRef& r) { return r.get().name; }, "queue name")
      .def_property_readonly("weight", [](const QueueRef& r) { return r.get().weight; }, "the Queue's spec.weight")
      .def_property_readonly("priority", [](const QueueRef& r) { return r.get().priority; }, "the Queue's spec.priority")
      .def_property_readonly("reclaimable", [](const QueueRef& r) { return r.get().reclaimable; }, "whether other queues may reclaim its resources (the Queue's spec.reclaimable)")
      .def_property_readonly("capability", field(&policy::QueueInfo::capability), "the Queue's spec.capability (Resource with the resources it names, or None when it sets none)")
      .def_property_readonly("guarantee", field(&policy::QueueInfo::guarantee), "the Queue's spec.guarantee.resource (Resource; zero if unset)")
      .def_property_readonly("deserved", field(&policy::QueueInfo::deserved), "the Queue's spec.deserved (Resource with the resources it names), read by the capacity plugin")
      .def_property_readonly(
          "parent", [](const QueueRef& r) -> py::object {
            const policy::QueueInfo& q = r.get();
            if (q.parent == policy::kNone) return py::none();
            return py::int_(q.parent);
          },
          "the id of the Queue's spec.parent (capacity plugin with enableHierarchy), or None for a queue under the root");

  // Each add_*_fn names its callback in errors: "plugin 'p': its job order function (add_job_order_fn) ...".
  auto origin = [](const PySession& v, const char* callback) { return Origin{v.origin.plugin, callback}; };
  py::class_<PySession>(m, "Session",
                        "One scheduling cycle's session as a plugin sees it in on_session_open / on_session_close "
                        "(Volcano framework.Session); valid during that call only (then ReferenceError). The callbacks "
                        "it registers live as long as the session. Each callback's answer is checked: a wrong type is "
                        "a TypeError, a NaN or infinite score a ValueError, both naming the plugin and the callback.")
      .def_property_readonly("now_ns", [](const PySession& v) { return v.s().now(); }, "simulated time, ns")
      .def_property_readonly("plugin", [](const PySession& v) { v.s(); return std::string(v.origin.plugin); }, "the plugin's name")
      .def_property_readonly("arguments", [](const PySession& v) { return arguments_dict(v.s().current_plugin().arguments); },
                             "the plugin's arguments from the scenario (dict str -> str)")
      .def("jobs", [](const PySession& v) {
        py::list l;
        for (const auto& j : v.s().state().jobs())
          if (j.live) l.append(v.ref(j));
        return l;
      }, "every live job (list of JobInfo)")
      .def("nodes", [](const PySession& v) {
        py::list l;
        for (const auto& n : v.s().state().nodes()) l.append(v.ref(n));
        return l;
      }, "every node (list of NodeInfo)")
      .def("queues", [](const PySession& v) {
        py::list l;
        for (const auto& q : v.s().state().queues()) l.append(v.ref(q));
        return l;
      }, "every queue (list of QueueInfo)")
      .def("job", [](const PySession& v, policy::JobId j) { return v.ref(v.s().state().job(j)); }, py::arg("id"))
      .def("task", [](const PySession& v, policy::TaskId t) { return v.ref(v.s().state().task(t)); }, py::arg("id"))
      .def("node", [](const PySession& v, policy::NodeId n) { return v.ref(v.s().state().node(n)); }, py::arg("id"))
      .def("queue", [](const PySession& v, policy::QueueId q) { return v.ref(v.s().state().queue(q)); }, py::arg("id"))
      .def("add_job_order_fn", [origin](PySession& v, py::function f) {
             v.s().add_job_order_fn(wrap<int, policy::JobInfo, policy::JobInfo>(f, origin(v, "job order function (add_job_order_fn)"), order_answer));
           }, py::arg("fn"),
           "fn(l: JobInfo, r: JobInfo) -> int: negative puts job l first, positive r, 0 abstains. Must be a strict weak "
           "order (consistent both ways, transitive): the actions check every order they sort or heap and stop the run "
           "with a RuntimeError naming the plugin otherwise.")
      .def("add_queue_order_fn", [origin](PySession& v, py::function f) {
             v.s().add_queue_order_fn(wrap<int, policy::QueueInfo, policy::QueueInfo>(f, origin(v, "queue order function (add_queue_order_fn)"), order_answer));
           }, py::arg("fn"), "fn(l: QueueInfo, r: QueueInfo) -> int, as add_job_order_fn.")
      .def("add_task_order_fn", [origin](PySession& v, py::function f) {
             v.s().add_task_order_fn(wrap<int, policy::TaskInfo, policy::TaskInfo>(f, origin(v, "task order function (add_task_order_fn)"), order_answer));
           }, py::arg("fn"), "fn(l: TaskInfo, r: TaskInfo) -> int, as add_job_order_fn.")
      .def("add_node_order_fn", [origin](PySession& v, py::function f) {
             v.s().add_node_order_fn(wrap<double, policy::TaskInfo, policy::NodeInfo>(f, origin(v, "node order function (add_node_order_fn)"), score_answer));
           }, py::arg("fn"), "fn(task, node) -> float: a finite score, summed over plugins (higher is better).")
      .def("add_predicate_fn",
           [origin](PySession& v, py::function f) {
             PyRefPtr fn = hold(f);
             const Origin o = origin(v, "predicate function (add_predicate_fn)");
             v.s().add_predicate_fn([fn, o](const policy::TaskInfo& t, const policy::NodeInfo& n) -> policy::Status {
               py::gil_scoped_acquire gil;
               py::object r = call(fn, o, t, n);
               const std::string plugin(o.plugin);
               if (r.is_none()) return policy::Status::success();
               if (is_bool(r))
                 return PyObject_IsTrue(r.ptr()) == 1 ? policy::Status::success()
                                                      : policy::Status::unschedulable(plugin, "node(s) rejected by " + plugin);
               if (py::isinstance<py::str>(r)) return policy::Status::unschedulable(plugin, r.cast<std::string>());
               wrong_type(o, "None or True (the node fits), False or a str (why it does not)", r);
             });
           },
           py::arg("fn"), "fn(task, node) -> None/True (fits) | False | str (the reason it does not: Unschedulable).")
      .def("add_job_ready_fn", [origin](PySession& v, py::function f) {
             v.s().add_job_ready_fn(wrap<bool, policy::JobInfo>(f, origin(v, "job ready function (add_job_ready_fn)"), bool_answer));
           }, py::arg("fn"), "fn(job) -> bool")
      .def("add_job_starving_fn", [origin](PySession& v, py::function f) {
             v.s().add_job_starving_fn(wrap<bool, policy::JobInfo>(f, origin(v, "job starving function (add_job_starving_fn)"), bool_answer));
           }, py::arg("fn"), "fn(job) -> bool")
      .def("add_overused_fn", [origin](PySession& v, py::function f) {
             v.s().add_overused_fn(wrap<bool, policy::QueueInfo>(f, origin(v, "overused function (add_overused_fn)"), bool_answer));
           }, py::arg("fn"), "fn(queue) -> bool")
      .def("add_allocatable_fn", [origin](PySession& v, py::function f) {
             v.s().add_allocatable_fn(wrap<bool, policy::QueueInfo, policy::TaskInfo>(f, origin(v, "allocatable function (add_allocatable_fn)"), bool_answer));
           }, py::arg("fn"), "fn(queue, task) -> bool")
      .def("add_job_enqueueable_fn",
           [origin](PySession& v, py::function f) {
             PyRefPtr fn = hold(f);
             policy::Session* ssn = &v.s();
             const Origin o = origin(v, "job enqueueable function (add_job_enqueueable_fn)");
             v.s().add_job_enqueueable_fn([fn, ssn, o](const policy::JobInfo& j, std::string_view& reason) -> int {
               py::gil_scoped_acquire gil;
               py::object r = call(fn, o, j);
               const char* expected = "1 (permit), 0 (abstain), -1 (reject) or a tuple (vote, reason: str)";
               py::object vote = r;
               if (py::isinstance<py::tuple>(r)) {
                 auto t = r.cast<py::tuple>();
                 if (t.size() < 1 || t.size() > 2 || (t.size() == 2 && !py::isinstance<py::str>(t[1]))) wrong_type(o, expected, r);
                 vote = t[0];
                 if (t.size() == 2) reason = ssn->keep(t[1].cast<std::string>());
               }
               if (!PyIndex_Check(vote.ptr())) wrong_type(o, expected, r);
               int overflow = 0;
               const long long answer = PyLong_AsLongLongAndOverflow(py::int_(vote).ptr(), &overflow);
               if (overflow != 0 || answer < -1 || answer > 1)  // only -1, 0 and 1 are votes
                 throw py::value_error("plugin '" + std::string(o.plugin) + "': its " + o.callback + " must return " +
                                       expected + ", got " + shown(r));
               return static_cast<int>(answer);
             });
           },
           py::arg("fn"), "fn(job) -> 1 (permit) | 0 (abstain) | -1 (reject) | (vote, reason).");

  m.def("register_plugin",
        [](const std::string& name, py::object factory, bool replace) {
          if (!PyCallable_Check(factory.ptr()))
            throw std::invalid_argument("register_plugin('" + name + "'): expected a callable factory(arguments: dict) -> plugin");
          if (policy::builtin_plugin(name) && !replace)
            throw std::invalid_argument("register_plugin('" + name + "'): '" + name +
                                        "' is a built-in plugin; pass replace=True to shadow it in every later session "
                                        "of this process (unregister_plugin('" + name + "') brings the built-in back)");
          python_plugins()[py::str(name)] = factory;
          policy::register_plugin(name, [name](const policy::Arguments& args) -> std::unique_ptr<policy::Plugin> {
            py::gil_scoped_acquire gil;
            py::object f = python_plugins()[py::str(name)];
            return std::make_unique<PyPlugin>(name, f(arguments_dict(args)));
          });
        },
        py::arg("name"), py::arg("factory"), py::kw_only(), py::arg("replace") = false,
        "Registers a scheduling plugin written in Python under `name` (usable in a scenario's Volcano tiers). "
        "factory(arguments: dict[str, str]) -> an object with on_session_open(session) (and optionally "
        "on_session_close(session)); a fresh one is made every session, as Volcano does. The registry is "
        "process-wide, as Volcano's: registering a name again replaces the earlier plugin, but a built-in name "
        "(gang, priority, drf, ...) raises ValueError unless replace=True.");
  m.def("unregister_plugin",
        [](const std::string& name) {
          if (python_plugins().contains(py::str(name))) PyDict_DelItemString(python_plugins().ptr(), name.c_str());
          if (!policy::unregister_plugin(name))
            throw std::invalid_argument("unregister_plugin('" + name + "'): no plugin of that name is registered");
        },
        py::arg("name"),
        "Removes a plugin registered with register_plugin; for a built-in name it shadowed, the built-in is back. "
        "Raises ValueError for a name that is not registered.");
  m.def("registered_plugins", &policy::registered_plugins, "Names of every scheduling plugin, built-in and registered.");
}

}  // namespace mltwin::bindings
