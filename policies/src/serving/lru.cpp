// The LRU model cache policy: an intrusive doubly linked recency list over dense model ids.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mltwin/policy/serving.hpp"

namespace mltwin::policy::serving {
namespace {

class LruCachePolicy final : public ModelCachePolicy {
 public:
  std::string_view name() const override { return "lru"; }

  void on_insert(ModelId m, std::uint64_t bytes, Nanos) override {
    grow(m);
    Node& n = nodes_[m];
    if (n.present) throw std::logic_error("lru: model inserted twice");
    n.present = true;
    n.bytes = bytes;
    push_front(m);
  }
  void on_access(ModelId m, Nanos) override {
    if (m >= nodes_.size() || !nodes_[m].present) return;  // not cached here: nothing to order
    unlink(m);
    push_front(m);
  }
  void on_resize(ModelId m, std::uint64_t bytes) override {
    if (m < nodes_.size() && nodes_[m].present) nodes_[m].bytes = bytes;
  }
  void on_remove(ModelId m) override {
    if (m >= nodes_.size() || !nodes_[m].present) return;
    unlink(m);
    nodes_[m].present = false;
  }
  bool choose_victims(std::uint64_t needed, Nanos, const EvictionGuard& guard,
                      std::vector<ModelId>& victims) override {
    const std::size_t first = victims.size();
    std::uint64_t freed = 0;
    for (std::uint32_t m = tail_; m != kNil && freed < needed; m = nodes_[m].prev) {
      if (!guard.evictable(m)) continue;
      victims.push_back(m);
      freed += nodes_[m].bytes;
    }
    if (freed >= needed) return true;
    victims.resize(first);
    return false;
  }

 private:
  static constexpr std::uint32_t kNil = UINT32_MAX;
  struct Node {
    std::uint32_t prev = kNil, next = kNil;  // prev: towards most recent; next: towards least
    std::uint64_t bytes = 0;
    bool present = false;
  };
  void grow(ModelId m) {
    if (m >= nodes_.size()) nodes_.resize(static_cast<std::size_t>(m) + 1);
  }
  void push_front(ModelId m) {
    Node& n = nodes_[m];
    n.prev = kNil;
    n.next = head_;
    if (head_ != kNil) nodes_[head_].prev = m;
    head_ = m;
    if (tail_ == kNil) tail_ = m;
  }
  void unlink(ModelId m) {
    Node& n = nodes_[m];
    if (n.prev != kNil) nodes_[n.prev].next = n.next; else head_ = n.next;
    if (n.next != kNil) nodes_[n.next].prev = n.prev; else tail_ = n.prev;
    n.prev = n.next = kNil;
  }
  std::vector<Node> nodes_;
  std::uint32_t head_ = kNil, tail_ = kNil;  // head: most recently used
};

}  // namespace

std::unique_ptr<ModelCachePolicy> make_lru_cache_policy() { return std::make_unique<LruCachePolicy>(); }

}  // namespace mltwin::policy::serving
