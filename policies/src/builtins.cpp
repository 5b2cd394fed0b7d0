#include "builtins.hpp"

namespace mltwin::policy::detail {

void register_builtins(std::map<std::string, PluginFactory>& plugins,
                       std::map<std::string, ActionFactory>& actions) {
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
