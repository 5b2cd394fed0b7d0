// Internal: the built-in plugins and actions, and helpers they share.
#pragma once
#include <algorithm>
#include <map>
#include <vector>
#include <memory>
#include <string>

#include "mltwin/policy/session.hpp"

namespace mltwin::policy::detail {

void register_builtins(std::map<std::string, PluginFactory>& plugins,
                       std::map<std::string, ActionFactory>& actions);

std::unique_ptr<Plugin> make_priority(const Arguments&);
std::unique_ptr<Plugin> make_gang(const Arguments&);
std::unique_ptr<Plugin> make_conformance(const Arguments&);
std::unique_ptr<Plugin> make_drf(const Arguments&);
std::unique_ptr<Plugin> make_proportion(const Arguments&);
std::unique_ptr<Plugin> make_predicates(const Arguments&);
std::unique_ptr<Plugin> make_nodeorder(const Arguments&);
std::unique_ptr<Plugin> make_overcommit(const Arguments&);
std::unique_ptr<Action> make_enqueue(const Arguments&);
std::unique_ptr<Action> make_allocate(const Arguments&);
std::unique_ptr<Action> make_backfill(const Arguments&);

/// Volcano's util.PriorityQueue over a less-than function, as a binary heap; pops in the
/// comparator's order. All comparators used with it are strict total orders (they end in a
/// UID tiebreak), so the pop sequence does not depend on insertion order.
template <class T, class Less>
class PriorityQueue {
 public:
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}
  void push(T x) {
    v_.push_back(std::move(x));
    std::push_heap(v_.begin(), v_.end(), greater());
  }
  /// Add many, then heapify once (O(n)).
  void assign(std::vector<T> xs) {
    v_ = std::move(xs);
    std::make_heap(v_.begin(), v_.end(), greater());
  }
  T pop() {
    std::pop_heap(v_.begin(), v_.end(), greater());
    T x = std::move(v_.back());
    v_.pop_back();
    return x;
  }
  const T& top() const { return v_.front(); }
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }

 private:
  auto greater() const {
    return [this](const T& a, const T& b) { return less_(b, a); };
  }
  Less less_;
  std::vector<T> v_;
};

}  // namespace mltwin::policy::detail
