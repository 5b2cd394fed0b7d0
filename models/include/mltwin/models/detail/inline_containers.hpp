// mltwin/models/detail/inline_containers.hpp — two small containers that keep their first N
// elements inside the object, for the inference model's hot per-pool and per-worker state.
//
// Why: a DJL pool's job queue and poll queue, a worker's batch and a model's list of holders
// hold one or two entries almost always, and std::deque / std::vector put even one entry in a
// separate heap block: one more cache miss per request on a 1,000-model endpoint, where the
// blog scenario serves 5.4 M requests (bench/README.md, "Inference benchmarks"). These keep
// up to N entries in place and move to one heap array, doubled as needed, beyond that.
//
// Only trivially copyable element types (indexes, pairs of indexes): elements are moved with
// plain assignment and never destroyed one by one.
#pragma once
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace mltwin::models::detail {

/// A FIFO ring buffer (push_back, front, pop_front) with N slots inline; N a power of two.
template <class T, std::uint32_t N>
class InlineRing {
  static_assert(std::is_trivially_copyable_v<T>);
  static_assert(N > 0 && (N & (N - 1)) == 0, "N must be a power of two");

 public:
  InlineRing() = default;
  InlineRing(const InlineRing& o) { *this = o; }
  InlineRing& operator=(const InlineRing& o) {
    if (this == &o) return *this;
    clear();
    for (std::uint32_t i = 0; i < o.size_; ++i) push_back(o[i]);
    return *this;
  }
  InlineRing(InlineRing&& o) noexcept { *this = std::move(o); }
  InlineRing& operator=(InlineRing&& o) noexcept {
    if (this == &o) return *this;
    heap_ = std::move(o.heap_);
    o.heap_.clear();
    std::copy(o.inline_, o.inline_ + N, inline_);
    cap_ = o.cap_; head_ = o.head_; size_ = o.size_;
    o.cap_ = N; o.head_ = 0; o.size_ = 0;
    return *this;
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  /// The i-th element from the front.
  const T& operator[](std::size_t i) const noexcept {
    assert(i < size_);
    return data()[(head_ + i) & (cap_ - 1)];
  }
  const T& front() const noexcept { return (*this)[0]; }
  void pop_front() noexcept {
    assert(size_ > 0);
    head_ = (head_ + 1) & (cap_ - 1);
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == cap_) grow();
    data()[(head_ + size_) & (cap_ - 1)] = v;
    ++size_;
  }
  template <class... A>
  void emplace_back(A&&... a) { push_back(T{std::forward<A>(a)...}); }
  /// Empties the ring; a heap array, once grown, is kept.
  void clear() noexcept { head_ = 0; size_ = 0; }

 private:
  T* data() noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  const T* data() const noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  void grow() {
    const std::uint32_t cap = cap_ * 2;
    std::vector<T> h(cap);
    for (std::uint32_t i = 0; i < size_; ++i) h[i] = (*this)[i];
    heap_.swap(h);
    cap_ = cap;
    head_ = 0;
  }

  T inline_[N]{};
  std::vector<T> heap_;  // empty while the elements fit inline
  std::uint32_t cap_ = N, head_ = 0, size_ = 0;
};

/// A vector with N elements inline (push_back, insert, erase, iteration).
template <class T, std::uint32_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVec() = default;
  SmallVec(const SmallVec& o) { *this = o; }
  SmallVec& operator=(const SmallVec& o) {
    if (this == &o) return *this;
    clear();
    for (const T& v : o) push_back(v);
    return *this;
  }
  SmallVec(SmallVec&& o) noexcept { *this = std::move(o); }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this == &o) return *this;
    heap_ = std::move(o.heap_);
    o.heap_.clear();
    std::copy(o.inline_, o.inline_ + N, inline_);
    cap_ = o.cap_; size_ = o.size_;
    o.cap_ = N; o.size_ = 0;
    return *this;
  }

  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { assert(i < size_); return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { assert(i < size_); return data()[i]; }
  T& back() noexcept { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == cap_) grow();
    data()[size_++] = v;
  }
  /// Inserts v before `at`; returns where it went.
  T* insert(const T* at, const T& v) {
    const auto i = static_cast<std::size_t>(at - begin());
    if (size_ == cap_) grow();
    T* d = data();
    std::copy_backward(d + i, d + size_, d + size_ + 1);
    d[i] = v;
    ++size_;
    return d + i;
  }
  void erase(const T* at) noexcept {
    const auto i = static_cast<std::size_t>(at - begin());
    T* d = data();
    std::copy(d + i + 1, d + size_, d + i);
    --size_;
  }
  void pop_back() noexcept { assert(size_ > 0); --size_; }
  /// Empties the vector; a heap array, once grown, is kept.
  void clear() noexcept { size_ = 0; }

 private:
  T* data() noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  const T* data() const noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  void grow() {
    const std::uint32_t cap = cap_ * 2;
    std::vector<T> h(cap);
    std::copy(data(), data() + size_, h.begin());
    heap_.swap(h);
    cap_ = cap;
  }

  T inline_[N]{};
  std::vector<T> heap_;  // empty while the elements fit inline
  std::uint32_t cap_ = N, size_ = 0;
};

}  // namespace mltwin::models::detail
