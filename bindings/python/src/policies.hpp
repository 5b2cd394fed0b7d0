// policies.hpp — policies written in Python, run by the simulator: the adapters ("trampolines")
// between the C++ policy API (policies/include/mltwin/policy/) and Python objects.
#pragma once
#include <pybind11/pybind11.h>

#include "mltwin/models/inference.hpp"

namespace mltwin::bindings {

/// Replaces the built-in serving policies of `set` by Python objects where given (not None):
/// `autoscaling` an object with on_arrival / on_worker_free; `memory_cache` / `disk_cache`
/// callables returning a fresh cache policy object per instance. `routing` and
/// `instance_scaling` must be None (not supported from Python yet: ValueError).
void install_python_serving_policies(models::inference::PolicySet& set, pybind11::object autoscaling,
                                     pybind11::object memory_cache, pybind11::object disk_cache,
                                     pybind11::object routing, pybind11::object instance_scaling);

/// Binds the policy API's observation and decision types, the built-in serving policies, and
/// the scheduling plugin registry (register_plugin) into module `m`: bind_serving, then
/// bind_scheduling.
void bind_policies(pybind11::module_& m);
/// The serving policies' observations, decisions and built-ins, make_policy, serving_policies.
void bind_serving(pybind11::module_& m);
/// Resource, TaskInfo, JobInfo, NodeInfo, QueueInfo, Session, register_plugin and friends.
void bind_scheduling(pybind11::module_& m);

}  // namespace mltwin::bindings
