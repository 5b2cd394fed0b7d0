// py_common.hpp — what the Python adapters of the policy API share (internal to the module):
// Python objects C++ may drop without the GIL, names, and building a policy by name from a
// Python dict of arguments.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "mltwin/policy/registry.hpp"

namespace mltwin::bindings {

namespace py = pybind11;

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
inline PyRefPtr hold(py::object o) { return std::make_shared<PyRef>(std::move(o)); }

inline std::string name_of(const py::object& o) {
  if (py::hasattr(o, "name")) {
    py::object n = o.attr("name");
    if (PyCallable_Check(n.ptr())) n = n();
    return py::str(n);
  }
  return py::str(o.get_type().attr("__name__"));
}

/// Texts that must outlive a call, few and fixed (plugin names for error messages): interned
/// for the life of the process. (Reasons of serving decisions live in their Owned decision.)
inline std::string_view intern(std::string s) {
  static std::set<std::string, std::less<>> texts;
  if (auto it = texts.find(std::string_view(s)); it != texts.end()) return *it;
  return *texts.insert(std::move(s)).first;
}

/// A Python dict of arguments as policy::Arguments text: bool as true/false, int as digits,
/// float as its shortest repr, str as is.
inline policy::Arguments arguments_of(const py::handle& d, const std::string& what) {
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

}  // namespace mltwin::bindings
