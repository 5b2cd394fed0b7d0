// Internal: orders applied with algorithms that stay in bounds whatever the comparator answers.
//
// The job, queue, task and victim orders come from plugins (session.hpp), some written in
// Python. std::sort, std::inplace_merge and the std heap functions require a strict weak order;
// with any other comparator their behaviour is undefined (libstdc++'s unguarded insertion sort
// walks off the range: a Python comparator answering at random ended in "free(): invalid
// pointer"). The algorithms here move only indices that their loop conditions keep inside the
// range, whatever the comparator answers; if it throws, the range is left a permutation of its
// elements. With a strict weak order they give std::stable_sort's result; the orders the
// actions use are total (they end in a creation-time / UID tiebreak), so the result is also
// std::sort's.
//
// After a sort or a heap build, one linear pass checks the result against the order (for a
// strict weak order, no element goes before the one placed ahead of it); a failure calls the
// comparator's violated(first, second), which raises an error naming the plugin (Session::
// *_order_violated). Heaps are checked when built, not after each push or pop: between those
// the actions change the objects they order (a job popped, given pods and pushed back), so an
// order may move under a heap without being wrong (Volcano's heaps behave the same).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace mltwin::policy::detail {

/// Merges the sorted runs [a, a_end) and [b, b_end) into out, stably (a's elements first among
/// equals). Every pointer stays within its run: the loop ends when either run is used up.
template <class T, class Less>
T* merge_runs(const T* a, const T* a_end, const T* b, const T* b_end, T* out, Less& less) {
  // Runs already in order (common: a list that was sorted before) cost one comparison.
  if (a != a_end && b != b_end && !less(*b, *(a_end - 1))) {
    out = std::copy(a, a_end, out);
    return std::copy(b, b_end, out);
  }
  while (a != a_end && b != b_end) *out++ = less(*b, *a) ? *b++ : *a++;
  out = std::copy(a, a_end, out);
  return std::copy(b, b_end, out);
}

/// Stable bottom-up merge sort. The elements are sorted in scratch buffers and copied back at
/// the end, so if `less` throws, `v` is unchanged.
template <class T, class Less>
void merge_sort(std::vector<T>& v, Less&& less) {
  const std::size_t n = v.size();
  if (n < 2) return;
  std::vector<T> from(v.begin(), v.end()), to(n);
  for (std::size_t width = 1; width < n; width *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * width) {
      const std::size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      merge_runs(from.data() + lo, from.data() + mid, from.data() + mid, from.data() + hi, to.data() + lo, less);
    }
    from.swap(to);
  }
  std::copy(from.begin(), from.end(), v.begin());
}

/// Index i of the first adjacent pair with less(v[i], v[i - 1]) — out of order — or 0 if there
/// is none. One comparison per pair.
template <class T, class Less>
std::size_t first_disorder(const std::vector<T>& v, Less&& less, std::size_t from = 1) {
  for (std::size_t i = std::max<std::size_t>(from, 1); i < v.size(); ++i)
    if (less(v[i], v[i - 1])) return i;
  return 0;
}

/// Sorts v by `less` (merge_sort), then checks the result pair by pair; if some pair is out of
/// order — `less` is not a strict weak order — calls less.violated(first, second) for the first
/// such pair (it is expected to throw).
template <class T, class Less>
void sort_checked(std::vector<T>& v, Less&& less) {
  merge_sort(v, less);
  if (const std::size_t i = first_disorder(v, less)) less.violated(v[i - 1], v[i]);
}

/// v = [sorted A | sorted B), B = v[mid, end): merges B into A in place, stably, walking from
/// the back (B's elements are copied aside first), so a B that goes at the end costs one
/// comparison per element. The pairs where the merged list switches between A and B are the
/// new neighbours: each is then checked as sort_checked does (A's and B's own pairs are the
/// caller's to have checked), calling less.violated(first, second) on the first out of order.
/// If `less` throws, v is left a permutation of its elements. Returns the first index whose
/// element may have changed (v[0, that) are A's first elements, untouched).
template <class T, class Less>
std::size_t merge_tail_checked(std::vector<T>& v, std::size_t mid, Less&& less) {
  if (mid >= v.size() || mid == 0) return mid;
  std::vector<T> b(v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  std::size_t i = mid, j = b.size(), k = v.size();  // v[0, i) and b[0, j) remain; v[k, end) is merged
  std::vector<std::size_t> switches;                // p: v[p] and v[p + 1] came from different runs
  int last = -1;                                    // run of v[k]: 0 A, 1 B
  try {
    while (i > 0 && j > 0) {
      const int from = less(b[j - 1], v[i - 1]) ? 0 : 1;
      v[--k] = from == 0 ? v[--i] : b[--j];
      if (last >= 0 && last != from) switches.push_back(k);
      last = from;
    }
  } catch (...) {
    std::copy(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(j), v.begin() + static_cast<std::ptrdiff_t>(i));
    throw;
  }
  std::copy(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(j), v.begin());
  if (j > 0 && last == 0) switches.push_back(j - 1);  // B's smallest ahead of A's first
  if (i > 0 && last == 1) switches.push_back(i - 1);  // A's smallest ahead of B's first
  for (auto it = switches.rbegin(); it != switches.rend(); ++it)
    if (less(v[*it + 1], v[*it])) less.violated(v[*it], v[*it + 1]);
  return j > 0 ? 0 : i;  // B used up: A's first i elements never moved
}

/// Volcano's util.PriorityQueue over a less-than function, as a binary heap: pops in the
/// comparator's order. The sift loops are the classic ones (Floyd's: down to a leaf along the
/// better children, then up), with every index bounded by the heap's size whatever the
/// comparator answers. All comparators used with it are strict total orders (they end in a
/// UID tiebreak), so the pop sequence does not depend on insertion order. `Less` provides
/// violated(first, second), called when a heap built by assign() / heapify() is found out of
/// order.
template <class T, class Less>
class PriorityQueue {
 public:
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}
  void push(T x) {
    v_.push_back(x);
    std::size_t hole = v_.size() - 1;
    sift_up(hole, 0, x);
  }
  /// Add many, then heapify once (O(n)).
  void assign(std::vector<T> xs) {
    v_ = std::move(xs);
    heapify();
  }
  T pop() {
    const T top = v_.front();
    const T last = v_.back();
    v_.pop_back();
    if (!v_.empty()) {
      try {
        adjust(0, last);
      } catch (...) {
        v_.push_back(top);  // every element stays in the heap
        throw;
      }
    }
    return top;
  }
  /// Empty it and take a new comparator, keeping the storage (for scratch queues reused from
  /// one session to the next).
  void reset(Less less) {
    less_ = std::move(less);
    v_.clear();
  }
  /// Add many without ordering them, then heapify() once.
  void push_unordered(T x) { v_.push_back(std::move(x)); }
  /// Orders the elements into a heap, then checks every parent against its children (n - 1
  /// comparisons): a child that goes before its parent means `less` is not a strict weak order.
  void heapify() {
    const std::size_t n = v_.size();
    if (n < 2) return;
    for (std::size_t parent = (n - 2) / 2;; --parent) {
      adjust(parent, v_[parent]);
      if (parent == 0) break;
    }
    for (std::size_t i = 1; i < n; ++i)
      if (less_(v_[i], v_[(i - 1) / 2])) less_.violated(v_[(i - 1) / 2], v_[i]);
  }
  /// Puts x in the top's place and moves it down while a child goes before it: for an element
  /// just read with top() and handled (its place in the order may have changed), the pops that
  /// follow are those of pop() then push(x) — the order is a strict total order, so any heap
  /// of the same elements pops the same sequence — at two comparisons when x still goes first
  /// (pop and push cost about two per level).
  void replace_top(T x) {
    const std::size_t n = v_.size();
    std::size_t hole = 0;
    try {
      for (;;) {
        std::size_t child = 2 * hole + 1;
        if (child >= n) break;
        if (child + 1 < n && less_(v_[child + 1], v_[child])) ++child;
        if (!less_(v_[child], x)) break;
        v_[hole] = v_[child];
        hole = child;
      }
    } catch (...) {
      v_[hole] = x;
      throw;
    }
    v_[hole] = x;
  }
  const T& top() const { return v_.front(); }
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }

 private:
  /// Places x at `hole` (whose element is x or a copy of another slot) and moves it up while it
  /// goes before its parent, no higher than `top`.
  void sift_up(std::size_t hole, std::size_t top, const T& x) {
    try {
      while (hole > top) {
        const std::size_t parent = (hole - 1) / 2;
        if (!less_(x, v_[parent])) break;
        v_[hole] = v_[parent];
        hole = parent;
      }
    } catch (...) {
      v_[hole] = x;
      throw;
    }
    v_[hole] = x;
  }
  /// The subtree at `hole` without its root, plus x: moves the better child up level by level
  /// down to a leaf (one comparison per level), then x up from there.
  void adjust(std::size_t hole, T x) {
    const std::size_t len = v_.size(), top = hole;
    std::size_t child = hole;
    try {
      while (child < (len - 1) / 2) {  // both children exist: 2 * (child + 1) <= len - 1
        child = 2 * (child + 1);
        if (less_(v_[child - 1], v_[child])) --child;
        v_[hole] = v_[child];
        hole = child;
      }
    } catch (...) {
      v_[hole] = x;
      throw;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {  // one child only: the last element
      child = 2 * (child + 1);
      v_[hole] = v_[child - 1];
      hole = child - 1;
    }
    sift_up(hole, top, x);
  }
  Less less_;
  std::vector<T> v_;
};

}  // namespace mltwin::policy::detail
