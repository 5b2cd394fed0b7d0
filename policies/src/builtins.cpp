#include "builtins.hpp"

namespace mltwin::policy::detail {

void register_builtins(std::map<std::string, Registry<Plugin>::Entry>& plugins,
                       std::map<std::string, Registry<Action>::Entry>& actions) {
  // Arguments: priority, gang, conformance, drf, proportion and capacity read none (Volcano
  // v1.12.1 keeps their Arguments and never reads them): an empty list, so that any key is
  // reported as unknown.
  const std::vector<ArgSpec> none;
  plugins["priority"] = {make_priority, none, {}};
  plugins["gang"] = {make_gang, none, {}};
  plugins["conformance"] = {make_conformance, none, {}};
  plugins["drf"] = {make_drf, none, {}};
  plugins["proportion"] = {make_proportion, none, {}};
  plugins["capacity"] = {make_capacity, none, {}};
  plugins["predicates"] = {make_predicates, predicates_arguments(), {}};
  plugins["nodeorder"] = {make_nodeorder, nodeorder_arguments(), {}};
  plugins["overcommit"] = {make_overcommit, overcommit_arguments(), {}};
  plugins["binpack"] = {make_binpack, binpack_arguments(), {}};
  plugins["sla"] = {make_sla, sla_arguments(), {}};
  // Actions: no arguments declared (nullopt: none is checked).
  actions["enqueue"] = {make_enqueue, std::nullopt, {}};
  actions["allocate"] = {make_allocate, std::nullopt, {}};
  actions["backfill"] = {make_backfill, std::nullopt, {}};
  actions["preempt"] = {make_preempt, std::nullopt, {}};
  actions["reclaim"] = {make_reclaim, std::nullopt, {}};
}

}  // namespace mltwin::policy::detail
