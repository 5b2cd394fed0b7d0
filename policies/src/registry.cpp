// Plugin and action registries (Volcano framework.RegisterPluginBuilder / RegisterAction), on
// the one Registry mechanism (mltwin/policy/registry.hpp). Built-ins are added on first use, so
// a static library never drops them at link time.
#include "mltwin/policy/registry.hpp"

#include <map>
#include <stdexcept>

#include "builtins.hpp"
#include "mltwin/policy/session.hpp"

namespace mltwin::policy {

namespace {
struct Builtins {
  std::map<std::string, Registry<Plugin>::Entry> plugins;
  std::map<std::string, Registry<Action>::Entry> actions;
  Builtins() { detail::register_builtins(plugins, actions); }
};
const Builtins& builtins() {
  static const Builtins b;
  return b;
}
}  // namespace

Registry<Plugin>& plugin_registry() {
  static Registry<Plugin> r("plugin", builtins().plugins);
  return r;
}
Registry<Action>& action_registry() {
  static Registry<Action> r("action", builtins().actions);
  return r;
}

void register_plugin(const std::string& name, PluginFactory f) { plugin_registry().add(name, std::move(f)); }
void register_plugin(const std::string& name, PluginFactory f, std::vector<ArgSpec> arguments) {
  plugin_registry().add(name, std::move(f), std::move(arguments));
}
std::optional<std::vector<ArgSpec>> plugin_arguments(const std::string& name) { return plugin_registry().arguments(name); }
void register_action(const std::string& name, ActionFactory f) { action_registry().add(name, std::move(f)); }
bool unregister_plugin(const std::string& name) { return plugin_registry().remove(name); }
bool builtin_plugin(const std::string& name) { return plugin_registry().builtin(name); }
bool plugin_registered(const std::string& name) { return plugin_registry().has(name); }
bool action_registered(const std::string& name) { return action_registry().has(name); }
std::vector<std::string> registered_plugins() { return plugin_registry().names(); }
std::vector<std::string> registered_actions() { return action_registry().names(); }
std::unique_ptr<Plugin> make_plugin(const std::string& name, const Arguments& args) {
  return plugin_registry().make(name, args);
}
std::unique_ptr<Action> make_action(const std::string& name, const Arguments& args) {
  return action_registry().make(name, args);
}

}  // namespace mltwin::policy
