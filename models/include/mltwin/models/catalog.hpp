// mltwin/models/catalog.hpp — instance types: the catalog that ships with mltwin
// (catalog/aws-instance-types.json, read by mltwin/io/catalog.hpp) and the rows a scenario adds
// or replaces.
//
// No hardware figure lives in code: every number comes from a catalog file, whose rows cite
// their source (docs/catalog.md says what each field means and where it comes from).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mltwin::models {

/// A spot price observed at a date (catalog row "spot").
struct SpotPrice {
  double usd_per_hour = 0;
  std::string region;
  std::string date;    ///< YYYY-MM-DD
  std::string source;
};

struct InstanceType {
  std::string name;                  ///< e.g. "trn1.32xlarge", "ml.c5d.18xlarge"
  int trainium_chips = 0;            ///< Neuron devices: Trainium or Inferentia chips (aws.amazon.com/neuron); 0 for others
  int neuroncores_per_chip = 0;      ///< NeuronCores per Neuron device as the runtime and the device plugin count them
                                     ///< (logical cores under the default LNC: Trainium2 4); 0 without Neuron devices
  double device_memory_gib = 0;      ///< accelerator memory, GiB (whole instance)
  int vcpu = 0;
  double memory_gib = 0;             ///< host memory, GiB
  int efa_interfaces = 0;            ///< EFA network interfaces (vpc.amazonaws.com/efa)
  double network_gbps = 0;           ///< network bandwidth, Gb/s (the burst figure of an "up to" type)
  double on_demand_usd_per_hour = 0; ///< on-demand price, USD per hour; 0 when has_on_demand_price is false
  int max_pods = 0;                  ///< the kubelet's maxPods on the EKS AMI (eni-max-pods.txt); 0: not given
  std::string region_of_price;       ///< the region the price is for
  std::string source;                ///< where these figures come from

  std::string accelerator;           ///< the accelerator as AWS names it ("AWS Trainium", "NVIDIA A100"); empty: none
  int nvidia_gpus = 0;               ///< NVIDIA GPUs (nvidia.com/gpu)
  int physical_neuroncores_per_chip = 0;  ///< physical NeuronCores per device when they differ from neuroncores_per_chip
                                          ///< (Trainium2 under LNC=2: 8); 0: the same
  double network_baseline_gbps = 0;  ///< baseline bandwidth of an "up to" type, Gb/s; 0: not given
  double instance_storage_gb = 0;    ///< local NVMe instance store, GB (10^9 bytes); 0: EBS only
  bool has_on_demand_price = false;  ///< false: the catalog has no sourced on-demand price for the type
  std::optional<SpotPrice> spot;     ///< a spot price with its date, when the catalog has one
  /// The extended resources the node's device plugins advertise, by Kubernetes resource name
  /// ("aws.amazon.com/neuron", "vpc.amazonaws.com/efa", ...), sorted by name; counts.
  std::vector<std::pair<std::string, std::int64_t>> extended_resources;
  std::string assumptions;           ///< which figures are assumptions or missing, and why; empty: none

  int neuroncores() const { return trainium_chips * neuroncores_per_chip; }
  /// Host memory in bytes (memory_gib × 2^30, rounded to a byte).
  std::uint64_t memory_bytes() const;
  /// Instance store in bytes (instance_storage_gb × 10^9, rounded to a byte).
  std::uint64_t instance_storage_bytes() const;
  /// The count the device plugins advertise for `resource` (a Kubernetes resource name); 0 if none.
  std::int64_t extended_resource(std::string_view resource) const;
};

/// The kube-reserved the EKS AMI gives the kubelet (amazon-eks-ami
/// nodeadm/internal/kubelet/config.go, the same rule as the AL2 bootstrap.sh): cpu, in
/// millicores, 6% of the first core, 1% of the second, 0.5% of the third and fourth and 0.25% of
/// every further core, each range rounded down to a millicore (getCPUMillicoresToReserve);
/// memory, in MiB, 11 × maxPods + 255 (getMemoryMebibytesToReserve). E.g. trn1.32xlarge
/// (128 vCPU, maxPods 247): 60 + 10 + 10 + 310 = 390m and 2,972 MiB.
struct KubeReserved {
  std::int64_t cpu_millicores = 0;
  std::int64_t memory_mib = 0;
};
KubeReserved eks_ami_kube_reserved(int vcpu, int max_pods);

struct Catalog {
  std::vector<InstanceType> types;
  /// The type named `name`, or nullptr.
  const InstanceType* find(const std::string& name) const {
    for (const auto& t : types)
      if (t.name == name) return &t;
    return nullptr;
  }
};

}  // namespace mltwin::models
