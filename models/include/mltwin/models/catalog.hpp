// mltwin/models/catalog.hpp — instance types, as the scenario's catalog states them.
//
// No hardware figure lives in code: every number comes from the scenario file, which cites
// its source (AWS instance-type and pricing pages) next to it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mltwin::models {

struct InstanceType {
  std::string name;                  ///< e.g. "trn1.32xlarge"
  int trainium_chips = 0;            ///< Neuron devices (aws.amazon.com/neuron)
  int neuroncores_per_chip = 0;      ///< NeuronCore-v2 per Trainium chip
  double device_memory_gib = 0;      ///< accelerator memory, GiB (whole instance)
  int vcpu = 0;
  double memory_gib = 0;             ///< host memory, GiB
  int efa_interfaces = 0;            ///< EFA network interfaces (vpc.amazonaws.com/efa)
  double network_gbps = 0;           ///< network bandwidth, Gb/s
  double on_demand_usd_per_hour = 0; ///< on-demand price, USD per hour
  int max_pods = 0;                  ///< the kubelet's maxPods on the EKS AMI (eni-max-pods.txt); 0: not given
  std::string region_of_price;       ///< the region the price is for
  std::string source;                ///< where these figures come from

  int neuroncores() const { return trainium_chips * neuroncores_per_chip; }
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
