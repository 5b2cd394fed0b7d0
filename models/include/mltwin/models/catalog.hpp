// mltwin/models/catalog.hpp — instance types, as the scenario's catalog states them.
//
// No hardware figure lives in code: every number comes from the scenario file, which cites
// its source (AWS instance-type and pricing pages) next to it.
#pragma once
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
  std::string region_of_price;       ///< the region the price is for
  std::string source;                ///< where these figures come from

  int neuroncores() const { return trainium_chips * neuroncores_per_chip; }
};

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
