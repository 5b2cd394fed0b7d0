// mltwin/policy/registry.hpp — policies chosen by name: one registry mechanism for every kind
// of policy (Volcano plugins and actions, the serving policies, and whatever kind comes next).
//
// A Registry<Product> maps a name to a factory that builds a Product from its Arguments, the
// arguments the product declares it reads (ArgSpec: key, type, default, source) and a one-line
// summary. Volcano keeps such registries process-wide (framework.RegisterPluginBuilder), and
// so does mltwin: each kind has one Registry, reached through an accessor
// (e.g. serving::routing_registry(), plugin_registry()). Every member function takes the registry's lock, so
// components on several threads may register and build concurrently; the factories themselves
// run outside it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/policy/config.hpp"
#include "mltwin/policy/export.hpp"
#include "mltwin/policy/spelling.hpp"

namespace mltwin::policy {

/// How an argument key that a product does not read is reported by check_argument_keys.
struct MLTWIN_POLICY_EXPORT UnknownKeyRule {
  ArgIssue::Severity severity = ArgIssue::Severity::Error;
  /// Appended to "… reads no argument 'k'": e.g. ": Volcano ignores it" (empty: nothing).
  std::string consequence;
};

/// Checks `args` against what `owner` (e.g. "plugin 'nodeorder'", "routing policy
/// 'cache-aware'") declares: a key it does not read gets `unknown`'s severity, the nearest
/// declared key ("did you mean") and the list of keys it reads; a value of the wrong type is an
/// Error naming the declared source; a key read upstream but not modelled is a Warning. Each
/// issue's `where` is `at` + the key. In key order.
MLTWIN_POLICY_EXPORT std::vector<ArgIssue> check_argument_keys(const std::string& owner, const std::vector<ArgSpec>& specs,
                                                             const Arguments& args, const std::string& at,
                                                             const UnknownKeyRule& unknown);

template <class Product>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Product>(const Arguments&)>;
  struct Entry {
    Factory factory;
    /// The arguments the product reads; nullopt: not declared (nothing is checked).
    std::optional<std::vector<ArgSpec>> arguments;
    std::string summary;  ///< one line for listings (`mltwin policies`)
  };

  /// `kind` names a product in messages ("routing policy"); `builtins` are registered from the
  /// start and come back when a user's registration of the same name is removed.
  Registry(std::string kind, std::map<std::string, Entry> builtins)
      : kind_(std::move(kind)), builtins_(std::move(builtins)), entries_(builtins_) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  const std::string& kind() const { return kind_; }

  /// Registers `name`, replacing an earlier registration (a built-in one too).
  void add(const std::string& name, Factory f, std::optional<std::vector<ArgSpec>> arguments = std::nullopt,
           std::string summary = {}) {
    std::lock_guard lk(mu_);
    entries_[name] = Entry{std::move(f), std::move(arguments), std::move(summary)};
  }
  /// Removes `name`; a built-in name gets its built-in entry back. False if it was not registered.
  bool remove(const std::string& name) {
    std::lock_guard lk(mu_);
    if (auto it = builtins_.find(name); it != builtins_.end()) {
      entries_[name] = it->second;
      return true;
    }
    return entries_.erase(name) != 0;
  }
  bool has(const std::string& name) const {
    std::lock_guard lk(mu_);
    return entries_.count(name) != 0;
  }
  bool builtin(const std::string& name) const { return builtins_.count(name) != 0; }
  /// Registered names, sorted.
  std::vector<std::string> names() const {
    std::lock_guard lk(mu_);
    std::vector<std::string> v;
    for (const auto& [k, e] : entries_) v.push_back(k);
    return v;
  }
  /// A copy of `name`'s entry, or nullopt.
  std::optional<Entry> find(const std::string& name) const {
    std::lock_guard lk(mu_);
    if (auto it = entries_.find(name); it != entries_.end()) return it->second;
    return std::nullopt;
  }
  /// The arguments `name` declared, or nullopt (not registered, or registered without them).
  std::optional<std::vector<ArgSpec>> arguments(const std::string& name) const {
    std::lock_guard lk(mu_);
    if (auto it = entries_.find(name); it != entries_.end()) return it->second.arguments;
    return std::nullopt;
  }
  /// "unknown routing policy 'x' (known: a, b)", with the nearest name when one is close.
  std::string unknown_message(const std::string& name) const {
    const std::vector<std::string> known = names();
    std::string msg = "unknown " + kind_ + " '" + name + "'";
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return msg + did_you_mean(name, known) + " (known: " + list + ")";
  }
  /// Builds `name` with `args`. Throws std::invalid_argument for an unknown name
  /// (unknown_message), and whatever the factory throws (std::invalid_argument for a value it
  /// refuses, by convention "argument 'key': why").
  std::unique_ptr<Product> make(const std::string& name, const Arguments& args) const {
    Factory f;
    {
      std::lock_guard lk(mu_);
      auto it = entries_.find(name);
      if (it != entries_.end()) f = it->second.factory;
    }
    if (!f) throw std::invalid_argument(unknown_message(name));
    return f(args);
  }
  /// check_argument_keys against `name`'s declared arguments (none checked if it declared none;
  /// an unknown name gives no issue: make() reports it).
  std::vector<ArgIssue> check(const std::string& name, const Arguments& args, const std::string& at,
                              const UnknownKeyRule& unknown = {}) const {
    const std::optional<std::vector<ArgSpec>> specs = arguments(name);
    if (!specs) return {};
    return check_argument_keys(kind_ + " '" + name + "'", *specs, args, at, unknown);
  }

 private:
  std::string kind_;
  std::map<std::string, Entry> builtins_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace mltwin::policy
