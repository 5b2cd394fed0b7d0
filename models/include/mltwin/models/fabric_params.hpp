// mltwin/models/fabric_params.hpp — the scenario parameters of the EFA / NeuronLink fabric.
//
// What the instance catalog (catalog.hpp) does not say about the network, each figure with
// its source, read from the training scenario's optional "fabric" object (schema:
// scenarios/schema/scenario.schema.json, /fabric; docs/fabric.md lists the figures and
// their sources). No figure has a default in code: a scenario without "fabric" has no
// fabric model (the training model's behaviour before the fabric existed).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"

namespace mltwin::models {

/// The NeuronLink chip-to-chip interconnect inside one instance type.
struct NeuronLinkSpec {
  std::string instance_type;   ///< a catalog name, e.g. "trn1.32xlarge"
  /// The chips form a rows x cols 2D torus (rows * cols = the type's trainium_chips): chip
  /// (r, c) = chip r * cols + c links to (r, c±1 mod cols) and (r±1 mod rows, c). Neuron docs,
  /// "Trn1/Trn1n Architecture": "the Trainium chips are connected in a 2D Torus topology".
  int torus_rows = 0;
  int torus_cols = 0;
  double gbps_per_link = 0;    ///< one NeuronLink, one direction, Gb/s
  core::Duration latency;      ///< added once per NeuronLink transfer (whatever its hop count)
  std::string source;
};

/// The instances' EFA interfaces.
struct EfaSpec {
  /// One EFA interface, one direction, Gb/s. An instance's NIC bundle carries
  /// efa_interfaces x this, each way.
  double gbps_per_interface = 0;
  core::Duration latency;      ///< added once per EFA transfer (one way, end to end)
  std::string source;
};

/// An oversubscribed two-tier (leaf/spine) EFA network. Absent: the fabric is non-blocking
/// (only the instances' own NICs limit a transfer), as AWS describes the UltraCluster
/// ("non-blocking petabit-scale EFA networking", Neuron docs "Trn1/Trn1n Architecture").
struct LeafSpineSpec {
  /// Instances per leaf switch: the nodes of each availability zone, in node order, are
  /// cut into leaves of this many (the last one may be smaller). >= 1.
  int nodes_per_leaf = 0;
  /// A leaf's uplink (and downlink) carries (sum of its nodes' NIC bandwidth) / this, each
  /// way. 1 = non-blocking leaf/spine; > 1 oversubscribed. >= 1.
  double oversubscription = 1;
  std::string source;
};

struct FabricParams {
  EfaSpec efa;
  std::vector<NeuronLinkSpec> neuronlink;  ///< one per multi-chip instance type used
  std::optional<LeafSpineSpec> leaf_spine;

  /// The NeuronLink entry of `instance_type`, or nullptr.
  const NeuronLinkSpec* neuronlink_for(const std::string& instance_type) const {
    for (const auto& n : neuronlink)
      if (n.instance_type == instance_type) return &n;
    return nullptr;
  }
};

}  // namespace mltwin::models
