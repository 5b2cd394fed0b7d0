// policies.cpp — see policies.hpp: the serving side (serving_policies.cpp) and the scheduling
// side (scheduling_plugins.cpp) of the policy API, bound into the module.
#include "policies.hpp"

namespace mltwin::bindings {

void bind_policies(pybind11::module_& m) {
  bind_serving(m);
  bind_scheduling(m);
}

}  // namespace mltwin::bindings
