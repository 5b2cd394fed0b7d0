// scheduling_plugins.cpp — Volcano-style scheduling plugins written in Python: the session's
// objects as Python sees them, valid during one callback, and register_plugin (policies.hpp).
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

#include "mltwin/policy/session.hpp"
#include "policies.hpp"
#include "py_common.hpp"

namespace mltwin::bindings {
namespace {

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

void bind_scheduling(py::module_& m) {
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
