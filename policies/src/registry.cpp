// Plugin and action registries (Volcano framework.RegisterPluginBuilder / RegisterAction).
// Built-ins are added on first use, so a static library never drops them at link time.
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "builtins.hpp"
#include "mltwin/policy/session.hpp"

namespace mltwin::policy {

namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, PluginFactory> plugins;
  std::map<std::string, ActionFactory> actions;
  std::map<std::string, std::vector<ArgSpec>> arguments;  ///< plugins that declared theirs
  Registry() { detail::register_builtins(plugins, actions, arguments); }
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_plugin(const std::string& name, PluginFactory f) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  r.plugins[name] = std::move(f);
  r.arguments.erase(name);
}
void register_plugin(const std::string& name, PluginFactory f, std::vector<ArgSpec> arguments) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  r.plugins[name] = std::move(f);
  r.arguments[name] = std::move(arguments);
}
std::optional<std::vector<ArgSpec>> plugin_arguments(const std::string& name) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  if (auto it = r.arguments.find(name); it != r.arguments.end()) return it->second;
  return std::nullopt;
}
void register_action(const std::string& name, ActionFactory f) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  r.actions[name] = std::move(f);
}
bool unregister_plugin(const std::string& name) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  std::map<std::string, PluginFactory> builtins;
  std::map<std::string, ActionFactory> unused;
  std::map<std::string, std::vector<ArgSpec>> builtin_arguments;
  detail::register_builtins(builtins, unused, builtin_arguments);
  if (auto it = builtins.find(name); it != builtins.end()) {
    r.plugins[name] = it->second;
    r.arguments[name] = builtin_arguments[name];
    return true;
  }
  r.arguments.erase(name);
  return r.plugins.erase(name) != 0;
}
bool builtin_plugin(const std::string& name) {
  std::map<std::string, PluginFactory> builtins;
  std::map<std::string, ActionFactory> unused;
  std::map<std::string, std::vector<ArgSpec>> unused_arguments;
  detail::register_builtins(builtins, unused, unused_arguments);
  return builtins.count(name) != 0;
}
bool plugin_registered(const std::string& name) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  return r.plugins.count(name) != 0;
}
bool action_registered(const std::string& name) {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  return r.actions.count(name) != 0;
}
std::vector<std::string> registered_plugins() {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  std::vector<std::string> v;
  for (const auto& [k, f] : r.plugins) v.push_back(k);
  return v;
}
std::vector<std::string> registered_actions() {
  auto& r = registry();
  std::lock_guard lk(r.mu);
  std::vector<std::string> v;
  for (const auto& [k, f] : r.actions) v.push_back(k);
  return v;
}
std::unique_ptr<Plugin> make_plugin(const std::string& name, const Arguments& args) {
  PluginFactory f;
  {
    auto& r = registry();
    std::lock_guard lk(r.mu);
    auto it = r.plugins.find(name);
    if (it == r.plugins.end()) throw std::invalid_argument("unknown plugin '" + name + "'");
    f = it->second;
  }
  return f(args);
}
std::unique_ptr<Action> make_action(const std::string& name, const Arguments& args) {
  ActionFactory f;
  {
    auto& r = registry();
    std::lock_guard lk(r.mu);
    auto it = r.actions.find(name);
    if (it == r.actions.end()) throw std::invalid_argument("unknown action '" + name + "'");
    f = it->second;
  }
  return f(args);
}

}  // namespace mltwin::policy
