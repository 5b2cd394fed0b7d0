// mltwin/policy/chunked_vector.hpp — a vector whose elements never move: ClusterState's tasks
// and jobs, read by index on every hot path of a session.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace mltwin::policy {

/// Elements in chunks of 2^kChunkBits, each chunk allocated once and never moved: references to
/// elements stay valid as elements are added (what std::deque gives), and `v[i]` is a shift, a
/// mask and two loads, inline. (libstdc++'s deque indexes through an iterator step that GCC
/// leaves out of line, a call per `task(id)`; and its 512-byte buffers hold one element each when
/// the element is over 256 bytes, as TaskInfo, 344, and JobInfo, 560, are.) Only what
/// ClusterState needs: add at the end, index, iterate, copy.
template <class T, unsigned kChunkBits = 6>
class ChunkedVector {
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;
  static constexpr std::size_t kMask = kChunk - 1;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using reference = T&;
  using const_reference = const T&;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)) {
    o.chunks_.clear();
  }
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      o.chunks_.clear();
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ChunkedVector(const ChunkedVector& o) {
    chunks_.reserve(o.chunks_.size());
    try {
      for (const T& x : o) push_back(x);
    } catch (...) {
      clear();
      throw;
    }
  }
  ChunkedVector& operator=(const ChunkedVector& o) {
    if (this != &o) {
      ChunkedVector copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  ~ChunkedVector() { clear(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return slot(i); }
  const T& operator[](std::size_t i) const { return slot(i); }
  T& back() { return slot(size_ - 1); }
  const T& back() const { return slot(size_ - 1); }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if ((size_ & kMask) == 0 && (size_ >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::unique_ptr<Raw[]>(new Raw[kChunk]));
    T* p = ::new (static_cast<void*>(&slot_raw(size_))) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }
  /// Destroys every element; the chunks are kept for the next elements.
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) slot(i).~T();
    size_ = 0;
  }

  template <bool kConst>
  class Iter {
    using Owner = std::conditional_t<kConst, const ChunkedVector, ChunkedVector>;

   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using reference = std::conditional_t<kConst, const T&, T&>;
    Iter() = default;
    Iter(Owner* v, std::size_t i) : v_(v), i_(i) {}
    template <bool kOther, class = std::enable_if_t<kConst && !kOther>>
    Iter(const Iter<kOther>& o) : v_(o.v_), i_(o.i_) {}  // iterator to const_iterator
    reference operator*() const { return (*v_)[i_]; }
    pointer operator->() const { return &(*v_)[i_]; }
    reference operator[](difference_type n) const { return (*v_)[i_ + n]; }
    Iter& operator++() { ++i_; return *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { --i_; return *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type n) { i_ += n; return *this; }
    Iter& operator-=(difference_type n) { i_ -= n; return *this; }
    friend Iter operator+(Iter a, difference_type n) { return a += n; }
    friend Iter operator+(difference_type n, Iter a) { return a += n; }
    friend Iter operator-(Iter a, difference_type n) { return a -= n; }
    friend difference_type operator-(const Iter& a, const Iter& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iter& a, const Iter& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iter& a, const Iter& b) { return a.i_ <=> b.i_; }

   private:
    template <bool>
    friend class Iter;
    Owner* v_ = nullptr;
    std::size_t i_ = 0;
  };
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Raw {
    alignas(T) unsigned char bytes[sizeof(T)];
  };
  Raw& slot_raw(std::size_t i) const { return chunks_[i >> kChunkBits][i & kMask]; }
  T& slot(std::size_t i) const { return *std::launder(reinterpret_cast<T*>(slot_raw(i).bytes)); }

  std::vector<std::unique_ptr<Raw[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace mltwin::policy
