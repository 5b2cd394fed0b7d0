#include "builtins.hpp"

namespace mltwin::policy::detail {

void register_builtins(std::map<std::string, PluginFactory>& plugins,
                       std::map<std::string, ActionFactory>& actions,
                       std::map<std::string, std::vector<ArgSpec>>& plugin_arguments) {
  // Arguments: the plugins without a list read none (Volcano v1.12.1: priority, gang,
  // conformance, drf, proportion and capacity keep their Arguments and never read them).
  for (const char* n : {"priority", "gang", "conformance", "drf", "proportion", "capacity"}) plugin_arguments[n] = {};
  plugin_arguments["nodeorder"] = nodeorder_arguments();
  plugin_arguments["predicates"] = predicates_arguments();
  plugin_arguments["binpack"] = binpack_arguments();
  plugin_arguments["overcommit"] = overcommit_arguments();
  plugin_arguments["sla"] = sla_arguments();
  plugins["priority"] = make_priority;
  plugins["gang"] = make_gang;
  plugins["conformance"] = make_conformance;
  plugins["drf"] = make_drf;
  plugins["proportion"] = make_proportion;
  plugins["capacity"] = make_capacity;
  plugins["predicates"] = make_predicates;
  plugins["nodeorder"] = make_nodeorder;
  plugins["overcommit"] = make_overcommit;
  plugins["binpack"] = make_binpack;
  plugins["sla"] = make_sla;
  actions["enqueue"] = make_enqueue;
  actions["allocate"] = make_allocate;
  actions["backfill"] = make_backfill;
  actions["preempt"] = make_preempt;
  actions["reclaim"] = make_reclaim;
}

}  // namespace mltwin::policy::detail
