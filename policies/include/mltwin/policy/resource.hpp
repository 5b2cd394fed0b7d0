// mltwin/policy/resource.hpp — resource vectors with Volcano's arithmetic.
//
// Follows Volcano v1.12.1 pkg/scheduler/api/resource_info.go: cpu in millicores, memory in
// bytes, extended resources in milli-units (Volcano stores every scalar resource as its
// Quantity.MilliValue()), and comparisons tolerant to minResource = 0.1 of a unit.
//
// Dimensions are fixed (a dense array, not a map): cpu, memory, NeuronCores, EFA interfaces.
// Where Volcano distinguishes "dimension absent" from zero (Infinity-default comparisons, queue
// capability), mltwin writes +infinity explicitly — a queue capability that does not name a
// resource is +inf in that dimension.
//
// ## The Neuron accounting rule (one rule for three names)
// The Neuron device plugin advertises the same silicon under three extended-resource names:
// `aws.amazon.com/neuron` and `aws.amazon.com/neurondevice` (whole Neuron devices, i.e. Trainium
// chips) and `aws.amazon.com/neuroncore` (NeuronCores). Kubernetes would count them as three
// independent resources and could hand the same chip to two pods. mltwin accounts all three in a
// single dimension, NeuronCores: a request of n devices (under either device name) consumes
// n × neuroncores_per_device cores, a request of n cores consumes n. On Trn1 a device is one
// Trainium chip with 2 NeuronCores (AWS Neuron docs, "Trainium architecture"); the factor comes
// from the instance catalog of the scenario. Reports show devices = cores / cores_per_device.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace mltwin::policy {

enum class Dim : std::uint8_t { Cpu = 0, Memory = 1, NeuronCore = 2, Efa = 3 };
inline constexpr std::size_t kDims = 4;

/// Kubernetes name of a dimension as the scheduler reports it.
constexpr std::string_view dim_name(Dim d) {
  switch (d) {
    case Dim::Cpu: return "cpu";
    case Dim::Memory: return "memory";
    case Dim::NeuronCore: return "aws.amazon.com/neuroncore";
    case Dim::Efa: return "vpc.amazonaws.com/efa";
  }
  return "?";
}

/// Volcano's minResource: two quantities closer than this are equal (resource_info.go).
inline constexpr double kMinResource = 0.1;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

struct Resource {
  std::array<double, kDims> v{};  // cpu milli, memory bytes, NeuronCores milli, EFA milli

  static Resource zero() { return {}; }
  static Resource infinite() {
    Resource r;
    r.v.fill(kInf);
    return r;
  }
  /// From human units: cpu cores, memory bytes, NeuronCores, EFA interfaces.
  static Resource make(double cpu_cores, double mem_bytes, double neuroncores = 0, double efa = 0) {
    Resource r;
    r.v = {cpu_cores * 1000.0, mem_bytes, neuroncores * 1000.0, efa * 1000.0};
    return r;
  }

  double& operator[](Dim d) { return v[static_cast<std::size_t>(d)]; }
  double operator[](Dim d) const { return v[static_cast<std::size_t>(d)]; }

  Resource& add(const Resource& o) {
    for (std::size_t i = 0; i < kDims; ++i) v[i] += o.v[i];
    return *this;
  }
  /// Subtract without the assertion Volcano's Sub makes (SubWithoutAssert).
  Resource& sub(const Resource& o) {
    for (std::size_t i = 0; i < kDims; ++i) v[i] -= o.v[i];
    return *this;
  }
  Resource& multi(double k) {
    for (auto& x : v) x *= k;
    return *this;
  }
  friend Resource operator+(Resource a, const Resource& b) { return a.add(b); }
  friend Resource operator-(Resource a, const Resource& b) { return a.sub(b); }
  friend bool operator==(const Resource&, const Resource&) = default;

  /// Volcano IsEmpty: every dimension below minResource.
  bool is_empty() const {
    for (double x : v)
      if (x >= kMinResource) return false;
    return true;
  }
  /// Volcano LessEqual(rr, Zero): every dimension l < r or |l - r| < minResource.
  bool less_equal(const Resource& rr) const {
    for (std::size_t i = 0; i < kDims; ++i)
      if (!(v[i] < rr.v[i] || std::fabs(v[i] - rr.v[i]) < kMinResource)) return false;
    return true;
  }
  /// Index of the first dimension that does not satisfy less_equal, or -1.
  int first_insufficient(const Resource& rr) const {
    for (std::size_t i = 0; i < kDims; ++i)
      if (!(v[i] < rr.v[i] || std::fabs(v[i] - rr.v[i]) < kMinResource)) return static_cast<int>(i);
    return -1;
  }
  /// Volcano LessEqualWithDimension(rr, req): compares only the dimensions req requests
  /// (req > 0), strictly (no tolerance).
  bool less_equal_with_dimension(const Resource& rr, const Resource& req) const {
    for (std::size_t i = 0; i < kDims; ++i)
      if (req.v[i] > 0 && v[i] > rr.v[i]) return false;
    return true;
  }
  /// Volcano MinDimensionResource: per-dimension minimum, in place.
  Resource& min_dimension(const Resource& rr) {
    for (std::size_t i = 0; i < kDims; ++i) v[i] = std::fmin(v[i], rr.v[i]);
    return *this;
  }
  /// Per-dimension maximum (Volcano helpers.Max).
  static Resource max(const Resource& a, const Resource& b) {
    Resource r;
    for (std::size_t i = 0; i < kDims; ++i) r.v[i] = std::fmax(a.v[i], b.v[i]);
    return r;
  }
  /// Volcano ExceededPart(left, right): the part of left above right, per dimension, >= 0.
  static Resource exceeded_part(const Resource& left, const Resource& right) {
    Resource r;
    for (std::size_t i = 0; i < kDims; ++i) r.v[i] = left.v[i] > right.v[i] ? left.v[i] - right.v[i] : 0.0;
    return r;
  }
  /// Human-readable, in Kubernetes units: "cpu 8, memory 32Gi, neuroncore 2, efa 0".
  std::string to_string() const;
};

/// Volcano helpers.Share(l, r): l/r, with 0/0 = 0 and x/0 = 1.
inline double share(double l, double r) {
  if (r == 0) return l == 0 ? 0.0 : 1.0;
  return l / r;
}

/// A Kubernetes resource name mapped to mltwin's dimensions; see the Neuron rule above.
struct ResourceNameMapping {
  Dim dim;
  double scale;  ///< multiply the Kubernetes quantity by this to get mltwin units
};
/// Maps `cpu`, `memory`, `aws.amazon.com/neuron`, `aws.amazon.com/neurondevice`,
/// `aws.amazon.com/neuroncore`, `vpc.amazonaws.com/efa` (quantities in Kubernetes units: cores,
/// bytes, devices, cores, interfaces). Returns nullopt for any other name.
std::optional<ResourceNameMapping> map_resource_name(std::string_view k8s_name,
                                                     double neuroncores_per_device);

}  // namespace mltwin::policy
