// The cluster's network topology (see fabric.hpp).
//
// GCC 12 with -fsanitize=address,undefined reports a boost::optional member inside Boost.Graph's
// named-graph support (boost/graph/named_graph.hpp, instantiated by add_vertex) as used
// uninitialized; it is a false positive of the sanitizer build (the member is only read when
// engaged), so the warning is off for this file (GCC's: clang has no -Wmaybe-uninitialized).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "mltwin/models/fabric.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "mltwin/models/training.hpp"

namespace mltwin::models {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("Fabric: " + what); }

void check_gbps(double v, const std::string& what) {
  if (!std::isfinite(v) || !(v > 0)) bad(what + " must be a finite number of Gb/s > 0, got " + std::to_string(v));
}

// BFS visitor recording, for each vertex reached, the local edge index it was reached by.
struct PredecessorEdge : boost::default_bfs_visitor {
  std::vector<std::int64_t>* pred;
  template <class Edge, class G>
  void tree_edge(Edge e, const G& g) const {
    (*pred)[boost::target(e, g)] = static_cast<std::int64_t>(g[e]);
  }
};

}  // namespace

const char* medium_name(Medium m) {
  switch (m) {
    case Medium::Local: return "local";
    case Medium::NeuronLink: return "neuronlink";
    case Medium::Efa: return "efa";
  }
  return "?";
}

std::vector<FabricNode> fabric_nodes_of(const std::vector<NodeGroupSpec>& groups) {
  std::vector<FabricNode> out;
  for (const auto& g : groups)
    for (int i = 0; i < g.count; ++i)
      out.push_back({g.observed && i == 0 ? g.observed->name : g.name + "-" + std::to_string(i), g.instance_types.at(node_launch(g, i).type), g.availability_zone});
  return out;
}

// One instance type's 2D torus, and the BFS shortest path between every ordered chip pair.
Fabric::Torus Fabric::make_torus(const NeuronLinkSpec& spec, std::uint32_t chips) {
  const std::string where = "NeuronLink of " + spec.instance_type;
  if (spec.torus_rows < 1 || spec.torus_cols < 1 ||
      static_cast<std::int64_t>(spec.torus_rows) * spec.torus_cols != static_cast<std::int64_t>(chips))
    bad(where + ": a " + std::to_string(spec.torus_rows) + " x " + std::to_string(spec.torus_cols) +
        " torus does not hold the type's " + std::to_string(chips) + " Trainium chips");
  check_gbps(spec.gbps_per_link, where + ": gbps_per_link");
  if (spec.latency < core::Duration::ns(0)) bad(where + ": negative latency");
  Torus t;
  t.type = spec.instance_type;
  t.chips = chips;
  t.rows = static_cast<std::uint32_t>(spec.torus_rows);
  t.cols = static_cast<std::uint32_t>(spec.torus_cols);
  t.latency = spec.latency;
  const std::uint32_t rows = static_cast<std::uint32_t>(spec.torus_rows);
  const std::uint32_t cols = static_cast<std::uint32_t>(spec.torus_cols);
  // Local graph: chips as vertices, edge property = index into t.edges.
  using Local = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, std::uint32_t>;
  Local g(chips);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const std::uint32_t from = r * cols + c;
      const std::uint32_t nbr[4] = {r * cols + (c + 1) % cols, r * cols + (c + cols - 1) % cols,
                                    ((r + 1) % rows) * cols + c, ((r + rows - 1) % rows) * cols + c};
      for (const std::uint32_t to : nbr) {
        if (to == from) continue;  // a dimension of size 1
        bool dup = false;          // a dimension of size 2: +1 and -1 are the same chip
        for (const auto& e : t.edges)
          if (e.first == from && e.second == to) dup = true;
        if (dup) continue;
        boost::add_edge(from, to, static_cast<std::uint32_t>(t.edges.size()), g);
        t.edges.emplace_back(from, to);
      }
    }
  t.paths.assign(static_cast<std::size_t>(chips) * chips, {});
  std::vector<std::int64_t> pred(chips);
  for (std::uint32_t src = 0; src < chips; ++src) {
    std::fill(pred.begin(), pred.end(), -1);
    PredecessorEdge vis;
    vis.pred = &pred;
    boost::breadth_first_search(g, src, boost::visitor(vis));
    for (std::uint32_t dst = 0; dst < chips; ++dst) {
      if (dst == src) continue;
      std::vector<std::uint32_t>& path = t.paths[static_cast<std::size_t>(src) * chips + dst];
      for (std::uint32_t v = dst; v != src;) {
        if (pred[v] < 0) bad(where + ": chip " + std::to_string(dst) + " unreachable from chip " + std::to_string(src));
        const auto e = static_cast<std::uint32_t>(pred[v]);
        path.push_back(e);
        v = t.edges[e].first;
      }
      std::reverse(path.begin(), path.end());
    }
  }
  return t;
}

Fabric::Fabric(const Catalog& catalog, std::vector<FabricNode> nodes, const FabricParams& params, core::FlowNetwork& net)
    : net_(net), catalog_(catalog), nodes_(std::move(nodes)), efa_latency_(params.efa.latency) {
  check_gbps(params.efa.gbps_per_interface, "efa.gbps_per_interface");
  if (params.efa.latency < core::Duration::ns(0)) bad("efa.latency is negative");
  if (params.leaf_spine) {
    if (params.leaf_spine->nodes_per_leaf < 1) bad("leaf_spine.nodes_per_leaf must be >= 1");
    if (!std::isfinite(params.leaf_spine->oversubscription) || params.leaf_spine->oversubscription < 1)
      bad("leaf_spine.oversubscription must be a finite number >= 1");
  }
  // Instance types and their tori, all built before any pointer into tori_ is taken.
  node_info_.resize(nodes_.size());
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const InstanceType* it = catalog_.find(nodes_[n].instance_type);
    if (it == nullptr) bad("node " + nodes_[n].name + ": instance type '" + nodes_[n].instance_type + "' is not in the catalog");
    node_info_[n].type = it;
    if (it->trainium_chips <= 1) continue;
    bool have = false;
    for (const auto& t : tori_) have = have || t.type == it->name;
    if (have) continue;
    const NeuronLinkSpec* spec = params.neuronlink_for(it->name);
    if (spec == nullptr)
      bad("instance type '" + it->name + "' has " + std::to_string(it->trainium_chips) +
          " Trainium chips but the fabric parameters give no NeuronLink entry for it");
    tori_.push_back(make_torus(*spec, static_cast<std::uint32_t>(it->trainium_chips)));
  }
  std::map<std::string, std::uint32_t> zone_index;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    NodeInfo& ni = node_info_[n];
    for (const auto& t : tori_)
      if (t.type == ni.type->name) ni.torus = &t;
    const auto [z, fresh] = zone_index.emplace(nodes_[n].availability_zone, static_cast<std::uint32_t>(zones_.size()));
    if (fresh) zones_.push_back(nodes_[n].availability_zone);
    ni.zone = z->second;
  }

  // Per instance: cores, chips, NIC; NeuronLinks; the NIC bundle's links.
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    NodeInfo& ni = node_info_[n];
    const auto node = static_cast<std::uint32_t>(n);
    const std::string& name = nodes_[n].name;
    const auto chips = static_cast<std::uint32_t>(ni.type->trainium_chips);
    const auto per_chip = static_cast<std::uint32_t>(ni.type->neuroncores_per_chip);
    const std::uint32_t cores = chips * per_chip;
    ni.first_core = boost::num_vertices(graph_);
    for (std::uint32_t c = 0; c < cores; ++c) boost::add_vertex(VertexProps{VertexKind::NeuronCore, node, c}, graph_);
    ni.first_chip = boost::num_vertices(graph_);
    for (std::uint32_t c = 0; c < chips; ++c) boost::add_vertex(VertexProps{VertexKind::Chip, node, c}, graph_);
    ni.nic = boost::add_vertex(VertexProps{VertexKind::Nic, node, 0}, graph_);
    for (std::uint32_t c = 0; c < cores; ++c) {
      boost::add_edge(ni.first_core + c, ni.first_chip + c / per_chip, EdgeProps{}, graph_);
      boost::add_edge(ni.first_chip + c / per_chip, ni.first_core + c, EdgeProps{}, graph_);
    }
    if (ni.torus != nullptr) {
      const NeuronLinkSpec* spec = params.neuronlink_for(ni.type->name);
      ni.first_neuronlink = static_cast<core::LinkId>(net_.link_count());
      for (const auto& [a, b] : ni.torus->edges) {
        const core::LinkId l = net_.add_link(spec->gbps_per_link,
                                       name + "/neuronlink/" + std::to_string(a) + "->" + std::to_string(b));
        boost::add_edge(ni.first_chip + a, ni.first_chip + b, EdgeProps{l}, graph_);
      }
    }
    for (std::uint32_t c = 0; c < chips; ++c) {
      boost::add_edge(ni.first_chip + c, ni.nic, EdgeProps{}, graph_);
      boost::add_edge(ni.nic, ni.first_chip + c, EdgeProps{}, graph_);
    }
    if (ni.type->efa_interfaces > 0) {
      const double gbps = ni.type->efa_interfaces * params.efa.gbps_per_interface;
      ni.tx = net_.add_link(gbps, name + "/efa-tx");
      ni.rx = net_.add_link(gbps, name + "/efa-rx");
    }
  }

  // Switches, zone by zone. Nodes without EFA interfaces are not attached.
  for (std::uint32_t z = 0; z < zones_.size(); ++z) {
    if (!params.leaf_spine) {
      const Vertex sw = boost::add_vertex(VertexProps{VertexKind::Leaf, UINT32_MAX, z}, graph_);
      for (std::size_t n = 0; n < nodes_.size(); ++n) {
        const NodeInfo& ni = node_info_[n];
        if (ni.zone != z || ni.tx == kUnconstrained) continue;
        boost::add_edge(ni.nic, sw, EdgeProps{ni.tx}, graph_);
        boost::add_edge(sw, ni.nic, EdgeProps{ni.rx}, graph_);
      }
      continue;
    }
    const LeafSpineSpec& ls = *params.leaf_spine;
    const Vertex spine = boost::add_vertex(VertexProps{VertexKind::Spine, UINT32_MAX, z}, graph_);
    std::vector<std::uint32_t> members;
    auto close_leaf = [&]() {
      if (members.empty()) return;
      const auto leaf = static_cast<std::uint32_t>(leaves_.size());
      const Vertex lv = boost::add_vertex(VertexProps{VertexKind::Leaf, UINT32_MAX, leaf}, graph_);
      double nic_gbps = 0;
      for (const std::uint32_t n : members) nic_gbps += net_.link_capacity_gbps(node_info_[n].tx);
      const std::string lname = "leaf" + std::to_string(leaf);
      Leaf l;
      l.up = net_.add_link(nic_gbps / ls.oversubscription, lname + "/up");
      l.down = net_.add_link(nic_gbps / ls.oversubscription, lname + "/down");
      leaves_.push_back(l);
      boost::add_edge(lv, spine, EdgeProps{l.up}, graph_);
      boost::add_edge(spine, lv, EdgeProps{l.down}, graph_);
      for (const std::uint32_t n : members) {
        NodeInfo& ni = node_info_[n];
        ni.leaf = static_cast<int>(leaf);
        boost::add_edge(ni.nic, lv, EdgeProps{ni.tx}, graph_);
        boost::add_edge(lv, ni.nic, EdgeProps{ni.rx}, graph_);
      }
      members.clear();
    };
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      const NodeInfo& ni = node_info_[n];
      if (ni.zone != z || ni.tx == kUnconstrained) continue;
      members.push_back(static_cast<std::uint32_t>(n));
      if (members.size() == static_cast<std::size_t>(ls.nodes_per_leaf)) close_leaf();
    }
    close_leaf();
  }
}

std::uint32_t Fabric::core_count(std::uint32_t node) const {
  const InstanceType& t = *node_info_.at(node).type;
  return static_cast<std::uint32_t>(t.trainium_chips * t.neuroncores_per_chip);
}

Fabric::Vertex Fabric::core_vertex(std::uint32_t node, std::uint32_t core) const {
  if (core >= core_count(node)) throw std::out_of_range("Fabric: node " + nodes_.at(node).name + " has no NeuronCore " + std::to_string(core));
  return node_info_[node].first_core + core;
}

Fabric::Vertex Fabric::chip_vertex(std::uint32_t node, std::uint32_t chip) const {
  if (chip >= static_cast<std::uint32_t>(node_info_.at(node).type->trainium_chips))
    throw std::out_of_range("Fabric: node " + nodes_.at(node).name + " has no chip " + std::to_string(chip));
  return node_info_[node].first_chip + chip;
}

core::LinkId Fabric::neuronlink(std::uint32_t node, std::uint32_t from, std::uint32_t to) const {
  const NodeInfo& ni = node_info_.at(node);
  if (ni.torus != nullptr)
    for (std::size_t e = 0; e < ni.torus->edges.size(); ++e)
      if (ni.torus->edges[e] == std::make_pair(from, to)) return ni.first_neuronlink + static_cast<core::LinkId>(e);
  throw std::out_of_range("Fabric: node " + nodes_.at(node).name + " has no NeuronLink from chip " + std::to_string(from) +
                          " to chip " + std::to_string(to));
}

std::string Fabric::why_unreachable(std::uint32_t a, std::uint32_t b) const {
  const NodeInfo& na = node_info_.at(a);
  const NodeInfo& nb = node_info_.at(b);
  if (a == b) return {};
  auto label = [this](std::uint32_t n) {
    const std::string& z = nodes_[n].availability_zone;
    return nodes_[n].name + " (" + (z.empty() ? std::string("no zone given") : z) + ")";
  };
  if (na.zone != nb.zone)
    return "nodes " + label(a) + " and " + label(b) +
           " are in different availability zones: EFA traffic does not cross zones, so a job's pods must share one";
  for (const std::uint32_t n : {a, b})
    if (node_info_[n].tx == kUnconstrained)
      return "node " + nodes_[n].name + " (" + node_info_[n].type->name +
             ") has no EFA interface: it cannot exchange data with another instance over EFA";
  return {};
}

std::optional<Route> Fabric::try_route(Endpoint src, Endpoint dst, std::string* why) const {
  if (src.node >= nodes_.size() || dst.node >= nodes_.size())
    throw std::out_of_range("Fabric: node " + std::to_string(std::max(src.node, dst.node)) + " does not exist (" +
                            std::to_string(nodes_.size()) + " nodes)");
  for (const Endpoint& e : {src, dst})
    if (e.neuroncore >= core_count(e.node))
      throw std::out_of_range("Fabric: node " + nodes_[e.node].name + " has no NeuronCore " + std::to_string(e.neuroncore));
  Route r;
  if (src.node == dst.node) {
    const NodeInfo& ni = node_info_[src.node];
    const auto per_chip = static_cast<std::uint32_t>(ni.type->neuroncores_per_chip);
    const std::uint32_t ca = src.neuroncore / per_chip, cb = dst.neuroncore / per_chip;
    if (ca == cb) return r;  // Local: no link, no latency
    r.medium = Medium::NeuronLink;
    r.latency = ni.torus->latency;
    for (const std::uint32_t e : ni.torus->paths[static_cast<std::size_t>(ca) * ni.torus->chips + cb])
      r.links.push_back(ni.first_neuronlink + e);
    return r;
  }
  std::string reason = why_unreachable(src.node, dst.node);
  if (!reason.empty()) {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  }
  const NodeInfo& na = node_info_[src.node];
  const NodeInfo& nb = node_info_[dst.node];
  r.medium = Medium::Efa;
  r.latency = efa_latency_;
  r.links.push_back(na.tx);
  if (na.leaf >= 0 && na.leaf != nb.leaf) {
    r.links.push_back(leaves_[static_cast<std::size_t>(na.leaf)].up);
    r.links.push_back(leaves_[static_cast<std::size_t>(nb.leaf)].down);
  }
  r.links.push_back(nb.rx);
  return r;
}

Route Fabric::route(Endpoint src, Endpoint dst) const {
  std::string why;
  std::optional<Route> r = try_route(src, dst, &why);
  if (!r) throw NoRouteError("Fabric: no route from " + nodes_[src.node].name + " core " + std::to_string(src.neuroncore) +
                             " to " + nodes_[dst.node].name + " core " + std::to_string(dst.neuroncore) + ": " + why);
  return std::move(*r);
}

core::FlowId Fabric::transfer(Endpoint src, Endpoint dst, double bytes, core::FlowOwner* owner, std::uint64_t payload) {
  Route r = route(src, dst);
  return net_.start(std::move(r.links), bytes, owner, payload, r.latency);
}

std::pair<std::uint32_t, std::uint32_t> Fabric::torus_shape(std::uint32_t node) const {
  const NodeInfo& ni = node_info_.at(node);
  if (ni.torus == nullptr) return {1, 1};
  return {ni.torus->rows, ni.torus->cols};
}

}  // namespace mltwin::models
