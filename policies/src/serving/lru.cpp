// The LRU model cache policy: an intrusive doubly linked recency list over dense model ids.
// on_access runs once per request (5.4 M times in the blog scenario), so the links are kept
// apart from the sizes and flags — 8 bytes a model — and an access to the most recent model
// touches nothing.
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
    if (present_[m]) throw std::logic_error("lru: model inserted twice");
    present_[m] = 1;
    bytes_[m] = bytes;
    push_front(m);
  }
  void on_access(ModelId m, Nanos) override {
    if (m >= present_.size() || !present_[m] || m == head_) return;  // not cached, or already first
    unlink(m);
    push_front(m);
  }
  void on_resize(ModelId m, std::uint64_t bytes) override {
    if (m < present_.size() && present_[m]) bytes_[m] = bytes;
  }
  void on_remove(ModelId m) override {
    if (m >= present_.size() || !present_[m]) return;
    unlink(m);
    present_[m] = 0;
  }
  bool choose_victims(std::uint64_t needed, Nanos, const EvictionGuard& guard,
                      std::vector<ModelId>& victims) override {
    const std::size_t first = victims.size();
    std::uint64_t freed = 0;
    for (std::uint32_t m = tail_; m != kNil && freed < needed; m = links_[m].prev) {
      if (!guard.evictable(m)) continue;
      victims.push_back(m);
      freed += bytes_[m];
    }
    if (freed >= needed) return true;
    victims.resize(first);
    return false;
  }

 private:
  static constexpr std::uint32_t kNil = UINT32_MAX;
  struct Link {
    std::uint32_t prev = kNil, next = kNil;  // prev: towards most recent; next: towards least
  };
  void grow(ModelId m) {
    if (m >= present_.size()) {
      const std::size_t n = static_cast<std::size_t>(m) + 1;
      links_.resize(n);
      bytes_.resize(n);
      present_.resize(n);
    }
  }
  void push_front(ModelId m) {
    Link& n = links_[m];
    n.prev = kNil;
    n.next = head_;
    if (head_ != kNil) links_[head_].prev = m;
    head_ = m;
    if (tail_ == kNil) tail_ = m;
  }
  void unlink(ModelId m) {
    Link& n = links_[m];
    if (n.prev != kNil) links_[n.prev].next = n.next; else head_ = n.next;
    if (n.next != kNil) links_[n.next].prev = n.prev; else tail_ = n.prev;
    n.prev = n.next = kNil;
  }
  std::vector<Link> links_;
  std::vector<std::uint64_t> bytes_;
  std::vector<std::uint8_t> present_;
  std::uint32_t head_ = kNil, tail_ = kNil;  // head: most recently used
};

}  // namespace

std::unique_ptr<ModelCachePolicy> make_lru_cache_policy() { return std::make_unique<LruCachePolicy>(); }

}  // namespace mltwin::policy::serving
