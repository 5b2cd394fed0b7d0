// mltwin/models/fabric.hpp — the network of a Trn1 cluster: NeuronLink inside each instance,
// EFA between instances, as a Boost.Graph topology whose capacity-bearing edges are links of
// a core::FlowNetwork (max-min fair sharing, flow_network.hpp).
//
// Topology (docs/fabric.md has the figure sources; all figures come from FabricParams and the
// catalog, none is written here):
//   * per instance: one vertex per NeuronCore and per Trainium chip; core <-> its chip
//     (unconstrained: on-chip transfers are not modelled); chip <-> chip NeuronLink edges of a
//     rows x cols 2D torus (NeuronLinkSpec), one core::FlowNetwork link per direction; one NIC
//     vertex standing for the instance's EFA interfaces bundled together, chip <-> NIC
//     unconstrained (the PCIe path is not modelled);
//   * NIC -> switch and switch -> NIC: the NIC bundle's transmit and receive links,
//     efa_interfaces x gbps_per_interface each way;
//   * switches: by default one non-blocking switch per availability zone; with LeafSpineSpec,
//     per zone, leaves of nodes_per_leaf instances and one spine, each leaf <-> spine an
//     uplink and a downlink of (the leaf's NIC bandwidth / oversubscription);
//   * no edge joins two availability zones: EFA traffic does not cross them (the EC2 user
//     guide, "Elastic Fabric Adapter": EFA OS-bypass traffic stays within one subnet, and a
//     subnet lies in one zone). A job's pods must therefore share a zone; route() says so.
//
// Routes (deterministic):
//   * same chip: no link (Medium::Local), latency 0;
//   * same instance, other chip: a shortest path on the torus (Medium::NeuronLink; Boost's
//     breadth-first search over the torus, neighbours tried in the order +col, -col, +row,
//     -row), latency NeuronLinkSpec::latency once;
//   * other instance, same zone: NIC tx [, leaf up, leaf down if the leaves differ], NIC rx
//     (Medium::Efa), latency EfaSpec::latency once; the chips' NeuronLinks are not crossed;
//   * other zone, or an instance without EFA interfaces: no route (NoRouteError / nullopt
//     with the reason).
#pragma once
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/catalog.hpp"
#include "mltwin/models/fabric_params.hpp"
#include "mltwin/core/flow_network.hpp"

namespace mltwin::models {

struct NodeGroupSpec;  // training.hpp

/// One instance of the cluster, as the fabric sees it.
struct FabricNode {
  std::string name;               ///< e.g. "trn1-32xl-0" (TrainingCluster's node name)
  std::string instance_type;      ///< a catalog name
  std::string availability_zone;  ///< "" = unspecified (all such nodes form one zone)
};

/// The nodes of `groups` in the training model's order and names (group by group,
/// "<group>-<i>").
std::vector<FabricNode> fabric_nodes_of(const std::vector<NodeGroupSpec>& groups);

/// A NeuronCore of an instance: the end of a transfer.
struct Endpoint {
  std::uint32_t node = 0;        ///< index into the fabric's nodes
  std::uint32_t neuroncore = 0;  ///< 0 .. neuroncores()-1; core c is on chip c / neuroncores_per_chip
};

enum class Medium { Local, NeuronLink, Efa };
const char* medium_name(Medium m);

struct Route {
  Medium medium = Medium::Local;
  std::vector<core::LinkId> links;        ///< in order from source to destination
  core::Duration latency;           ///< charged once before the transfer shares bandwidth
};

/// There is no route between two endpoints (different availability zones, or an instance
/// without EFA interfaces). what() names the nodes and the reason.
class NoRouteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Fabric {
 public:
  enum class VertexKind { NeuronCore, Chip, Nic, Leaf, Spine };
  struct VertexProps {
    VertexKind kind = VertexKind::Chip;
    std::uint32_t node = UINT32_MAX;  ///< the instance (cores, chips, NIC); UINT32_MAX otherwise
    std::uint32_t index = 0;          ///< core or chip number within the instance; leaf number
  };
  static constexpr core::LinkId kUnconstrained = std::numeric_limits<core::LinkId>::max();
  struct EdgeProps {
    core::LinkId link = kUnconstrained;  ///< the core::FlowNetwork link carrying this edge's traffic
  };
  /// Directed: each direction of a full-duplex connection is its own edge (and link).
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, VertexProps, EdgeProps>;
  using Vertex = Graph::vertex_descriptor;

  /// Builds the topology and adds its links to `net` (which must outlive the fabric). The
  /// catalog is copied (the fabric does not refer to the caller's).
  /// Throws std::invalid_argument naming the problem: an instance type not in `catalog`, a
  /// multi-chip type without a NeuronLink entry, a torus whose rows x cols is not the chip
  /// count, a non-positive bandwidth, a leaf size < 1 or an oversubscription < 1.
  Fabric(const Catalog& catalog, std::vector<FabricNode> nodes, const FabricParams& params, core::FlowNetwork& net);

  std::size_t node_count() const { return nodes_.size(); }
  const FabricNode& node(std::uint32_t n) const { return nodes_.at(n); }
  const InstanceType& instance_type(std::uint32_t n) const { return *node_info_.at(n).type; }

  /// True if nodes a and b can exchange data: the same node (NeuronLink), or two nodes of
  /// one availability zone that both have EFA interfaces. The caller makes this a placement
  /// constraint. Throws std::out_of_range for a node that does not exist.
  bool reachable(std::uint32_t a, std::uint32_t b) const { return why_unreachable(a, b).empty(); }
  /// "" if reachable(a, b), else why not, e.g. "nodes g-0 (us-east-1a) and g-5 (us-east-1b)
  /// are in different availability zones: EFA traffic does not cross zones".
  std::string why_unreachable(std::uint32_t a, std::uint32_t b) const;

  /// The route between two NeuronCores, or nullopt (and the reason in *why) if there is none.
  /// Throws std::out_of_range for a node or core that does not exist.
  std::optional<Route> try_route(Endpoint src, Endpoint dst, std::string* why = nullptr) const;
  /// The same; throws NoRouteError with the reason if there is none.
  Route route(Endpoint src, Endpoint dst) const;
  /// Starts a transfer of `bytes` from src to dst on the network: route(), then
  /// core::FlowNetwork::start with the route's latency. Throws NoRouteError as route() does.
  core::FlowId transfer(Endpoint src, Endpoint dst, double bytes, core::FlowOwner* owner, std::uint64_t payload = 0);

  core::FlowNetwork& network() { return net_; }
  const Graph& graph() const { return graph_; }
  Vertex core_vertex(std::uint32_t node, std::uint32_t core) const;
  Vertex chip_vertex(std::uint32_t node, std::uint32_t chip) const;
  Vertex nic_vertex(std::uint32_t node) const { return node_info_.at(node).nic; }
  /// The NIC bundle's transmit (node -> switch) and receive (switch -> node) links.
  core::LinkId nic_tx(std::uint32_t node) const { return node_info_.at(node).tx; }
  core::LinkId nic_rx(std::uint32_t node) const { return node_info_.at(node).rx; }
  /// The leaf switch of a node (0-based over the whole fabric), or -1 without leaf/spine.
  int leaf_of(std::uint32_t node) const { return node_info_.at(node).leaf; }
  std::size_t leaf_count() const { return leaves_.size(); }
  core::LinkId leaf_uplink(std::size_t leaf) const { return leaves_.at(leaf).up; }
  core::LinkId leaf_downlink(std::size_t leaf) const { return leaves_.at(leaf).down; }
  /// The NeuronLink from chip `from` to chip `to` of a node; throws std::out_of_range if the
  /// torus does not join them.
  core::LinkId neuronlink(std::uint32_t node, std::uint32_t from, std::uint32_t to) const;
  /// {rows, cols} of a node's NeuronLink torus (chip r * cols + c); {1, 1} for a one-chip
  /// instance. Throws std::out_of_range for a node that does not exist.
  std::pair<std::uint32_t, std::uint32_t> torus_shape(std::uint32_t node) const;

 private:
  // The torus of one instance type: directed chip-to-chip edges and, for every ordered chip
  // pair, the shortest path as indices into `edges`.
  struct Torus {
    std::string type;
    std::uint32_t chips = 0, rows = 1, cols = 1;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (from, to)
    std::vector<std::vector<std::uint32_t>> paths;                // [from * chips + to]
    core::Duration latency;
  };
  struct NodeInfo {
    const InstanceType* type = nullptr;
    const Torus* torus = nullptr;     // into tori_ (built in full first); null for one chip
    std::uint32_t zone = 0;
    int leaf = -1;
    Vertex first_core = 0, first_chip = 0, nic = 0;
    core::LinkId first_neuronlink = 0;      // link of torus edge e = first_neuronlink + e
    core::LinkId tx = kUnconstrained, rx = kUnconstrained;
  };
  struct Leaf {
    core::LinkId up = kUnconstrained, down = kUnconstrained;
  };
  static Torus make_torus(const NeuronLinkSpec& spec, std::uint32_t chips);
  std::uint32_t core_count(std::uint32_t node) const;

  core::FlowNetwork& net_;
  Catalog catalog_;  // a copy: NodeInfo::type points into it
  std::vector<FabricNode> nodes_;
  std::vector<NodeInfo> node_info_;
  std::vector<Torus> tori_;
  std::vector<std::string> zones_;
  std::vector<Leaf> leaves_;
  Graph graph_;
  core::Duration efa_latency_;
};

}  // namespace mltwin::models
