// mltwin/policy/resource.hpp — resources as Kubernetes and Volcano count them.
//
// A port of Volcano v1.12.1 pkg/scheduler/api/resource_info.go (cited below as
// resource_info.go:LINE). A Resource is what Volcano's api.Resource is:
//   - `milli_cpu`: cpu in millicores (Quantity.MilliValue());
//   - `memory`: bytes (Quantity.Value());
//   - `scalars`: every other resource by name — `pods` (a count, Quantity.Value()),
//     `ephemeral-storage`, `hugepages-*`, and every extended resource (`aws.amazon.com/neuron`,
//     `aws.amazon.com/neurondevice`, `aws.amazon.com/neuroncore`, `vpc.amazonaws.com/efa`,
//     `nvidia.com/gpu`, any `domain/name`) in milli-units (Quantity.MilliValue());
//   - `max_task_num`: the `pods` count of a node's allocatable, read by the predicates plugin only.
// Whether a scalar is *present* matters, as in Volcano's map: the comparisons take a
// DimensionDefault saying what an absent resource counts as (0 or +infinity,
// resource_info.go:42-50). mltwin treats an empty scalar map as Go's nil map.
//
// ## The three Neuron names
// The Neuron device plugin advertises the same silicon under three extended-resource names:
// `aws.amazon.com/neuron` and `aws.amazon.com/neurondevice` (whole Neuron devices) and
// `aws.amazon.com/neuroncore` (NeuronCores). Kubernetes and Volcano count them as three
// independent resources, so a node whose pods request two of the names can hand the same chip to
// two pods: mltwin counts them as upstream does and reports such a mix (see
// `neuron_names_mixed`); it never folds one name into another.
#pragma once

#include "mltwin/policy/export.hpp"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mltwin::policy {

/// A Kubernetes resource name (core/v1 ResourceName), interned: a 16-bit id into one
/// process-wide, append-only, thread-safe table. The names below have fixed ids; any other
/// name gets the next id the first time it is seen.
class MLTWIN_POLICY_EXPORT ResourceName {
 public:
  /// The well-known name with this id (ids below kWellKnown), or an id `intern` returned.
  constexpr explicit ResourceName(std::uint16_t id) : id_(id) {}
  /// Uninitialized (trivial, so that ScalarResources' inline storage costs nothing to create).
  ResourceName() = default;
  /// Interns `name`. Throws std::length_error past 65,535 distinct names.
  static ResourceName intern(std::string_view name);
  /// The name if it was interned before, else nullopt (no side effect).
  static std::optional<ResourceName> find(std::string_view name);
  std::string_view str() const;
  constexpr std::uint16_t id() const { return id_; }
  friend constexpr bool operator==(ResourceName, ResourceName) = default;
  friend constexpr auto operator<=>(ResourceName a, ResourceName b) { return a.id_ <=> b.id_; }

 private:
  std::uint16_t id_;
};

/// Well-known resource names (core/v1 types.go; device plugins' names).
namespace rn {
inline constexpr ResourceName kCpu{0};               ///< "cpu"
inline constexpr ResourceName kMemory{1};            ///< "memory"
inline constexpr ResourceName kPods{2};              ///< "pods"
inline constexpr ResourceName kEphemeralStorage{3};  ///< "ephemeral-storage"
inline constexpr ResourceName kNeuron{4};            ///< "aws.amazon.com/neuron" (Neuron devices)
inline constexpr ResourceName kNeuronDevice{5};      ///< "aws.amazon.com/neurondevice" (Neuron devices)
inline constexpr ResourceName kNeuronCore{6};        ///< "aws.amazon.com/neuroncore" (NeuronCores)
inline constexpr ResourceName kEfa{7};               ///< "vpc.amazonaws.com/efa" (EFA interfaces)
inline constexpr ResourceName kNvidiaGpu{8};         ///< "nvidia.com/gpu" (Volcano GPUResourceName)
inline constexpr std::uint16_t kWellKnown = 9;
}  // namespace rn

/// How a comparison counts a scalar resource one side lacks (Volcano DimensionDefaultValue,
/// resource_info.go:42-50).
enum class DimensionDefault : std::uint8_t { Zero, Infinity };

/// Volcano's minResource: two quantities closer than this are equal (resource_info.go:39).
inline constexpr double kMinResource = 0.1;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
/// Go's math.MaxFloat64, which Volcano writes for "no limit" in a queue's cpu or memory.
inline constexpr double kMaxFloat64 = std::numeric_limits<double>::max();

/// A small map from resource name to value, sorted by name id: five entries inline (a Trn1 node
/// carries pods and four device resources, a pod fewer), in two arrays (ids, values) so that a
/// Resource stays small (80 bytes; a job holds four); more spill to the heap.
class MLTWIN_POLICY_EXPORT ScalarResources {
 public:
  struct Entry {
    ResourceName name;
    double value;
  };
  /// Iterates (name, value) pairs in name-id order; yields Entry values.
  class const_iterator {
   public:
    const_iterator(const ScalarResources* s, std::uint32_t i) : s_(s), i_(i) {}
    Entry operator*() const { return Entry{ResourceName(s_->ids()[i_]), s_->vals()[i_]}; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }

   private:
    const ScalarResources* s_;
    std::uint32_t i_;
  };

  // Zeroed inline storage: copies move it whole (fixed size, no branch on the count), which
  // must not read indeterminate bytes.
  ScalarResources() noexcept : ids_{}, vals_{} {}
  ScalarResources(const ScalarResources& o) {
    if (!o.spilled_) copy_inline(o);
    else assign_heap(o);
  }
  ScalarResources& operator=(const ScalarResources& o) {
    if (this == &o) return *this;
    if (!o.spilled_) {
      if (spilled_) release_heap();
      copy_inline(o);
    } else {
      assign_heap(o);
    }
    return *this;
  }
  ScalarResources(ScalarResources&& o) noexcept { take(o); }
  ScalarResources& operator=(ScalarResources&& o) noexcept {
    if (this != &o) {
      if (spilled_) release_heap();
      take(o);
    }
    return *this;
  }
  ~ScalarResources() {
    if (spilled_) release_heap();
  }
  /// Appends `name`, which must sort after every name present (builds a map in order).
  void append(ResourceName name, double v) {
    if (n_ == (spilled_ ? heap_->cap : kInline)) grow();
    ids()[n_] = name.id();
    vals()[n_] = v;
    ++n_;
  }
  /// Whether both maps hold the same names (in the same order, as they are sorted).
  bool same_names(const ScalarResources& o) const {
    if (n_ != o.n_) return false;
    const std::uint16_t *a = ids(), *b = o.ids();
    for (std::uint32_t i = 0; i < n_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, n_}; }
  ResourceName name_at(std::size_t i) const { return ResourceName(ids()[i]); }
  const double& value_at(std::size_t i) const { return vals()[i]; }
  double& value_at(std::size_t i) { return vals()[i]; }
  /// The index of `name`, or -1 when absent.
  int index_of(ResourceName name) const {
    const std::uint16_t* id = ids();
    for (std::uint32_t i = 0; i < n_; ++i)
      if (id[i] == name.id()) return static_cast<int>(i);
    return -1;
  }
  /// The value of `name`, or nullptr when absent.
  const double* find(ResourceName name) const {
    const int i = index_of(name);
    return i < 0 ? nullptr : &vals()[i];
  }
  double* find(ResourceName name) {
    const int i = index_of(name);
    return i < 0 ? nullptr : &vals()[i];
  }
  /// Go's map read: the value, 0 when absent.
  double get(ResourceName name) const {
    const int i = index_of(name);
    return i < 0 ? 0.0 : vals()[i];
  }
  /// The entry for `name`, inserted with value 0 if absent.
  double& at(ResourceName name);
  void set(ResourceName name, double v) { at(name) = v; }
  void clear() { n_ = 0; }
  /// Removes `name` if present.
  void erase(ResourceName name);
  /// Same names, equal values (Go's reflect.DeepEqual on the map: -0 equals 0, NaN nothing).
  friend MLTWIN_POLICY_EXPORT bool operator==(const ScalarResources& a, const ScalarResources& b);

 private:
  static constexpr std::uint16_t kInline = 5;
  struct Heap {
    std::uint32_t cap;
    std::unique_ptr<std::uint16_t[]> ids;
    std::unique_ptr<double[]> vals;
  };
  void copy_inline(const ScalarResources& o) {
    // Fixed sizes: a few vector moves (entries past n_ are copied but never read).
    std::memcpy(ids_, o.ids_, sizeof ids_);
    std::memcpy(vals_, o.vals_, sizeof vals_);
    n_ = o.n_;
    spilled_ = false;
  }
  void take(ScalarResources& o) noexcept {
    if (o.spilled_) {
      heap_ = o.heap_;
      spilled_ = true;
      n_ = o.n_;
      o.spilled_ = false;
    } else {
      copy_inline(o);
    }
    o.n_ = 0;
  }
  void assign_heap(const ScalarResources& o);
  void release_heap() noexcept;
  void grow();
  std::uint16_t* ids() { return spilled_ ? heap_->ids.get() : ids_; }
  const std::uint16_t* ids() const { return spilled_ ? heap_->ids.get() : ids_; }
  double* vals() { return spilled_ ? heap_->vals.get() : vals_; }
  const double* vals() const { return spilled_ ? heap_->vals.get() : vals_; }
  std::uint16_t ids_[kInline];
  std::uint16_t n_ = 0;
  bool spilled_ = false;
  union {
    double vals_[kInline];
    Heap* heap_;
  };
};

/// Reads a ScalarResources by names asked in increasing id order, in one pass overall.
class MLTWIN_POLICY_EXPORT ScalarCursor {
 public:
  explicit ScalarCursor(const ScalarResources& s) : s_(s) {}
  /// The value of `name` (>= every name asked before), or nullptr when absent.
  const double* find(ResourceName name) {
    while (i_ < s_.size() && s_.name_at(i_) < name) ++i_;
    return i_ < s_.size() && s_.name_at(i_) == name ? &s_.value_at(i_) : nullptr;
  }

 private:
  const ScalarResources& s_;
  std::size_t i_ = 0;
};

/// Volcano api.Resource (resource_info.go:53-63) with its operations, named as upstream.
struct MLTWIN_POLICY_EXPORT Resource {
  double milli_cpu = 0;    ///< cpu, millicores
  double memory = 0;       ///< bytes
  ScalarResources scalars; ///< pods (count); everything else in milli-units
  int max_task_num = 0;    ///< a node's allocatable pods; not touched by add/sub (resource_info.go:59-62)

  /// From human units: cpu cores, memory bytes; scalars added with `with`.
  static Resource make(double cpu_cores, double mem_bytes) {
    Resource r;
    r.milli_cpu = cpu_cores * 1000.0;
    r.memory = mem_bytes;
    return r;
  }
  /// Adds a scalar in Kubernetes units (a count of devices, bytes of ephemeral storage): stored
  /// in milli-units, `pods` as a count (NewResource, resource_info.go:71-107).
  Resource& with(ResourceName name, double k8s_units) {
    add_scalar(name, name == rn::kPods ? k8s_units : k8s_units * 1000.0);
    if (name == rn::kPods) max_task_num += static_cast<int>(k8s_units);  // NewResource
    return *this;
  }

  /// Volcano Get (resource_info.go:184-197): cpu, memory or the scalar; 0 when absent.
  double get(ResourceName name) const {
    if (name == rn::kCpu) return milli_cpu;
    if (name == rn::kMemory) return memory;
    return scalars.get(name);
  }
  /// Volcano AddScalar / SetScalar (resource_info.go:641-655).
  void add_scalar(ResourceName name, double v) { scalars.at(name) += v; }
  void set_scalar(ResourceName name, double v) { scalars.set(name, v); }

  /// Volcano Add (resource_info.go:244-256): scalars of rr are added (inserted if absent).
  Resource& add(const Resource& rr) {
    milli_cpu += rr.milli_cpu;
    memory += rr.memory;
    if (scalars.same_names(rr.scalars)) {  // the usual case: one pass, no search
      for (std::size_t i = 0; i < rr.scalars.size(); ++i) scalars.value_at(i) += rr.scalars.value_at(i);
      return *this;
    }
    if (rr.scalars.empty()) return *this;  // e.g. a job with nothing allocated
    return add_slow(rr);
  }
  /// Volcano sub / SubWithoutAssert (resource_info.go:266-287): a Resource with no scalars
  /// stays without (Go's nil map), else rr's scalars are subtracted, inserted if absent.
  Resource& sub(const Resource& rr) {
    milli_cpu -= rr.milli_cpu;
    memory -= rr.memory;
    if (scalars.empty()) return *this;  // Go: a nil map is left alone
    if (scalars.same_names(rr.scalars)) {
      for (std::size_t i = 0; i < rr.scalars.size(); ++i) scalars.value_at(i) -= rr.scalars.value_at(i);
      return *this;
    }
    return sub_slow(rr);
  }
  /// Volcano Multi (resource_info.go:290-297).
  Resource& multi(double ratio);
  friend Resource operator+(Resource a, const Resource& b) { return a.add(b); }
  friend Resource operator-(Resource a, const Resource& b) { return a.sub(b); }
  /// Equality of every field but max_task_num (reflect.DeepEqual on the quantities).
  friend bool operator==(const Resource& a, const Resource& b) {
    return a.milli_cpu == b.milli_cpu && a.memory == b.memory && a.scalars == b.scalars;
  }

  /// Volcano IsEmpty (resource_info.go:207-222): every resource but pods below minResource.
  bool is_empty() const;
  /// Volcano IsZero (resource_info.go:225-241); an absent scalar counts as zero.
  bool is_zero(ResourceName name) const;
  /// Volcano Less (resource_info.go:360-391).
  bool less(const Resource& rr, DimensionDefault dv) const;
  /// Volcano LessEqual (resource_info.go:396-430): every resource l < r or |l - r| < minResource.
  bool less_equal(const Resource& rr, DimensionDefault dv = DimensionDefault::Zero) const;
  /// Volcano LessEqualWithDimension (resource_info.go:435-470): only the resources `req`
  /// requests (> 0), strictly, pods ignored.
  bool less_equal_with_dimension(const Resource& rr, const Resource& req) const;
  /// Volcano LessEqualWithResourcesName (resource_info.go:475-505): the first resource that
  /// is not less-or-equal (cpu, memory, then scalars by name id; Go ranges over its map in
  /// random order), or nullopt when all are.
  std::optional<ResourceName> first_insufficient(const Resource& rr,
                                                 DimensionDefault dv = DimensionDefault::Zero) const;
  /// first_insufficient(a + b - c, Zero) without building the sum (a node's FutureIdle =
  /// Idle + Releasing - Pipelined, per node per task in allocate): the same values, as the sum
  /// is computed in the same order.
  std::optional<ResourceName> first_insufficient_of_sum(const Resource& a, const Resource& b, const Resource& c) const;
  /// Volcano LessPartly / LessEqualPartly (resource_info.go:510-574).
  bool less_partly(const Resource& rr, DimensionDefault dv) const;
  bool less_equal_partly(const Resource& rr, DimensionDefault dv) const;
  /// Volcano Equal (resource_info.go:579-594): within minResource, over cpu, memory and this
  /// side's scalars (an absent right-hand scalar reads 0).
  bool equal(const Resource& rr) const;
  /// Volcano MinDimensionResource (resource_info.go:659-696), in place.
  Resource& min_dimension_resource(const Resource& rr, DimensionDefault dv);
  /// Volcano SetMaxResource (resource_info.go:300-325).
  void set_max_resource(const Resource& rr);
  /// Volcano Diff (resource_info.go:599-638): (increased, decreased) of this against rr.
  std::pair<Resource, Resource> diff(const Resource& rr, DimensionDefault dv) const;
  /// Volcano ExceededPart(left, right) (resource_info.go:776-787): Diff(right, Zero).increased.
  static Resource exceeded_part(const Resource& left, const Resource& right);
  /// add(exceeded_part(left, right)) without building the part (per job per session in
  /// proportion and overcommit): the same names gained and the same sums, in the same order.
  Resource& add_exceeded_part(const Resource& left, const Resource& right);
  /// Volcano helpers.Max (pkg/scheduler/api/helpers/helpers.go:47-73): per-resource maximum of
  /// cpu and memory; a scalar is kept only where one side has it above 0.
  static Resource max(const Resource& l, const Resource& r);
  /// Volcano ResourceNames (resource_info.go:163-181): the resources at or above minResource,
  /// cpu and memory first, then scalars by name id.
  std::vector<ResourceName> resource_names() const;
  /// Calls f(name, value) for cpu, memory, then every scalar (absent ones skipped).
  template <class F>
  void for_each(F&& f) const {
    f(rn::kCpu, milli_cpu);
    f(rn::kMemory, memory);
    for (const auto& e : scalars) f(e.name, e.value);
  }
  Resource& add_slow(const Resource& rr);  ///< add() when the names differ
  Resource& sub_slow(const Resource& rr);  ///< sub() when the names differ
  /// Human-readable, in Kubernetes units: "cpu 8, memory 32Gi, pods 1, aws.amazon.com/neuron 16".
  std::string to_string() const;
};

/// A task's Resreq from its pod's requests: Volcano GetPodResourceRequest adds one `pods`
/// (pkg/scheduler/api/pod_info.go:84), so `pods` is counted like any scalar resource.
inline Resource task_resreq(Resource pod_requests) {
  pod_requests.add_scalar(rn::kPods, 1);
  return pod_requests;
}

/// Volcano helpers.Share(l, r): l/r, with 0/0 = 0 and x/0 = 1.
inline double share(double l, double r) {
  if (r == 0) return l == 0 ? 0.0 : 1.0;
  return l / r;
}

/// Whether Volcano counts `name` as a scalar resource: k8s scheduler util IsScalarResourceName —
/// an extended resource (a qualified `domain/name`: a DNS-1123 subdomain, '/', a name of at most
/// 63 characters; not `requests.*`), `hugepages-*`, a prefixed native resource
/// (`kubernetes.io/...`), an attachable-volume (`attachable-volumes-*`) — plus `pods` and
/// `ephemeral-storage` (NewResource, resource_info.go:71-107). `cpu` and `memory` are not
/// scalars. Volcano skips `count/*` quota names before asking (so must callers); any other name is
/// ignored by Volcano (and refused by mltwin's loaders).
MLTWIN_POLICY_EXPORT bool is_scalar_resource_name(std::string_view name);

/// k8s.io/apimachinery validation.IsDNS1123Subdomain: at most 253 characters of lower-case
/// letters, digits, '-' and '.', each dot-separated label starting and ending alphanumeric.
MLTWIN_POLICY_EXPORT bool is_dns1123_subdomain(std::string_view s);
/// validation.IsQualifiedName's name part: 1 to 63 characters, alphanumeric at both ends, '-',
/// '_' and '.' inside.
MLTWIN_POLICY_EXPORT bool is_qualified_name_part(std::string_view s);

/// True when the resources name two or more of the three Neuron names with a positive amount:
/// Kubernetes and Volcano count them independently, so pods requesting different names on one
/// node can be given the same Neuron device.
MLTWIN_POLICY_EXPORT bool neuron_names_mixed(const Resource& r);

}  // namespace mltwin::policy
