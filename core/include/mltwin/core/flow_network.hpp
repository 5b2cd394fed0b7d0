// mltwin/core/flow_network.hpp — max-min fair bandwidth sharing of transfers over links, as
// a fluid model of the event kernel (core::FluidModel).
//
// The sharing rule. Every active flow crosses a fixed list of links (its route). Each link has
// a capacity in Gb/s (one direction; a full-duplex cable is two links). Rates are the max-min
// fair allocation: no link carries more than its capacity, and no flow's rate can be raised
// without lowering the rate of a flow whose rate is already no larger. It is computed by
// progressive filling (water-filling): raise every unfixed flow's rate together; when a link
// fills, its unfixed flows are fixed at that link's fair share (remaining capacity / unfixed
// flows) and leave the filling; repeat. This is the rule SimGrid's lmm solver
// (src/kernel/lmm/) applies with every sharing weight 1 and no per-flow bound (no SimGrid code
// here; bench/fabric_simgrid.cpp checks the completion times against SimGrid 3.32's); Bertsekas & Gallager, "Data Networks", §6.5.2 give the algorithm and
// prove the allocation unique.
//
// Incremental. Flows that share no link, directly or through other flows, do not influence
// each other's rates: the allocation decomposes over the connected components of the
// flow-link graph. When a flow starts, ends or is cancelled, only the component(s) it touches
// are recomputed (from scratch, in a canonical order, so that the result is bit-identical to
// recomputing the whole network: recompute_all() exists to test exactly that), and only the
// flows whose rate changed get a new completion time.
//
// Time. A flow's bytes are kept lazily: (remaining at t_ref, rate since t_ref). advance() is
// O(1) (it only records the kernel's clock); the bytes are brought up to date when the rate
// changes. Completion times are integer ns, rounded UP:
//     t_done = t_ref + ceil(remaining_bytes * 8 / rate_bits_per_ns)
// so a flow never completes before its bytes have moved at the rates in force; when the kernel
// reaches t_done the flow completes whatever fraction of a byte floating-point rounding left,
// so no flow can linger with a residue that rounds to "0 ns to go" and never fire. A flow whose
// remaining bytes are positive always gets t_done >= t_ref + 1 ns. Flows due at the same ns
// complete in flow-id (start) order.
//
// Latency. start() may give a latency (e.g. the fabric's one-way latency): the flow then joins
// the sharing `latency` after start (a kernel event), as SimGrid's network model charges the
// latency before the bandwidth phase. A flow with an empty route has no link to limit it and
// completes as soon as it is active.
//
// Determinism: integer-ns times, no unordered containers, ties by flow id; the allocation of a
// component does not depend on the order its flows were discovered in (see flow_network.cpp).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mltwin/core/simulator.hpp"
#include "mltwin/core/time.hpp"

namespace mltwin::core {

/// Index of a link in a FlowNetwork (dense, from 0, in add_link order).
using LinkId = std::uint32_t;

/// Handle of a flow: valid until it completes or is cancelled (a generation count detects a
/// stale handle, as core::EventId does).
struct FlowId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  constexpr bool valid() const { return slot != UINT32_MAX; }
  friend constexpr bool operator==(FlowId, FlowId) = default;
};

class FlowNetwork;

/// Told when a flow it started has moved all its bytes. Model objects implement it; they must
/// outlive their flows (or cancel them).
class FlowOwner {
 public:
  virtual ~FlowOwner() = default;
  /// Called at the completion time (sim.now()), after the flow has left the network and the
  /// other flows' rates have been recomputed. `flow` is already stale. The owner may start
  /// or cancel flows from here.
  virtual void on_flow_done(core::Simulator& sim, FlowNetwork& net, FlowId flow, std::uint64_t payload) = 0;
  /// Called when a standing flow's (start_standing) max-min rate changes, including its first
  /// rate when it starts, from inside the network's update after a start, end or cancel in
  /// its component: the owner may read the network
  /// (rate_gbps) but must not start or cancel flows here. Default: nothing.
  virtual void on_rate_change(FlowNetwork& net, FlowId flow, std::uint64_t payload) {
    (void)net, (void)flow, (void)payload;
  }
};

/// Counters for benchmarks and tests.
struct FlowNetworkStats {
  std::uint64_t flows_started = 0;
  std::uint64_t flows_completed = 0;
  std::uint64_t flows_cancelled = 0;
  std::uint64_t recomputations = 0;     ///< component recomputations (one per start/end batch)
  std::uint64_t flows_recomputed = 0;   ///< flows whose rate was recomputed, summed
  std::uint64_t flows_retimed = 0;      ///< flows whose rate (hence completion time) changed
};

/// Max-min fair fluid sharing of links among flows, plugged into a core::Simulator as a fluid
/// model. Not copyable (the simulator holds a pointer to it).
class FlowNetwork final : public core::FluidModel, private core::EventHandler {
 public:
  /// Registers itself with `sim` (add_fluid_model); `sim` must outlive it and it must outlive
  /// every run of `sim`.
  explicit FlowNetwork(core::Simulator& sim);
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;
  ~FlowNetwork() override;

  /// Adds a link of capacity `gbps` (Gb/s = 1e9 bit/s, one direction). Throws
  /// std::invalid_argument if gbps is not finite and > 0.
  LinkId add_link(double gbps, std::string name = {});
  std::size_t link_count() const { return links_.size(); }
  const std::string& link_name(LinkId l) const { return link_names_.at(l); }
  double link_capacity_gbps(LinkId l) const { return links_.at(l).capacity_gbps; }

  /// Starts a transfer of `bytes` (> 0, finite) over `route` (link ids; a link may not repeat),
  /// joining the sharing at now() + latency (latency >= 0). `owner` (not null) is called back
  /// with `payload` when it completes. Throws std::invalid_argument on bad arguments.
  FlowId start(std::vector<LinkId> route, double bytes, FlowOwner* owner, std::uint64_t payload = 0,
               core::Duration latency = core::Duration::ns(0));
  /// Starts a standing flow: one that takes its max-min share of `route` (non-empty) until it
  /// is cancelled and never completes (remaining_bytes() is +inf). It stands for traffic
  /// that recurs for as long as its owner runs, such as a training job's all-reduce; the
  /// owner reads its rate (and on_rate_change tells it when that changes). Throws
  /// std::invalid_argument on an empty route or a bad link, as start() does.
  FlowId start_standing(std::vector<LinkId> route, FlowOwner* owner, std::uint64_t payload = 0);
  /// Removes a flow without calling its owner (e.g. its job was killed). Returns false if the
  /// handle is stale (completed or cancelled).
  bool cancel(FlowId f);

  /// True while the flow exists (in its latency phase or active).
  bool alive(FlowId f) const;
  /// The flow's current rate in Gb/s (0 while in its latency phase). Throws
  /// std::invalid_argument for a stale handle.
  double rate_gbps(FlowId f) const;
  /// Bytes still to move at the simulator's now(). Throws std::invalid_argument if stale.
  double remaining_bytes(FlowId f) const;
  /// When the flow will complete at the current rates (integer ns, rounded up; Time::max()
  /// while in its latency phase). Throws std::invalid_argument if stale.
  core::Time completion_time(FlowId f) const;
  /// Number of flows in the network (latency phase included).
  std::size_t flow_count() const { return live_flows_; }

  /// Sum of the rates of the flows crossing `l`, Gb/s (<= capacity up to rounding).
  double link_load_gbps(LinkId l) const { return links_.at(l).load * 8.0; }
  /// Bytes carried by `l` from the start of the run to the simulator's now() (integral of its
  /// load): link utilisation over an interval is the difference of two readings divided by
  /// capacity x interval.
  double link_bytes(LinkId l) const;

  /// Recomputes every component from scratch (same result, bit for bit, as the incremental
  /// updates: tests and debugging). Re-times flows whose rate changed, as an update does.
  void recompute_all();

  const FlowNetworkStats& stats() const { return stats_; }

  // core::FluidModel
  core::Time next_event_time(core::Time now) override;
  void advance(core::Time from, core::Time to) override;
  void on_due(core::Simulator& sim) override;

 private:
  // Rates and capacities are kept in bytes per ns (1 Gb/s = 0.125 B/ns), so that bytes and
  // integer-ns times meet without a unit factor.
  struct Link {
    double capacity = 0;        // B/ns
    double capacity_gbps = 0;
    std::vector<std::uint32_t> flows;  // slots of the active flows crossing it (unordered)
    double load = 0;                   // sum of those flows' rates, B/ns
    double bytes_acc = 0;              // bytes carried up to load_since
    std::int64_t load_since = 0;       // ns
    std::uint64_t mark = 0;            // BFS / scratch epoch
    // Progressive-filling scratch (valid while mark == the current epoch).
    double rem = 0;  // B/ns not yet given to a fixed flow
    std::uint32_t unfixed = 0;
    std::uint32_t version = 0;
  };
  enum class State : std::uint8_t { Free, Latent, Active };
  // Routes up to kInline links (every route of the Trn1 fabric: EFA 2-4 links, NeuronLink at
  // most 4 hops on a 4 x 4 torus) live inside the flow; longer ones in route_big/pos_big.
  static constexpr std::uint32_t kInline = 8;
  // One cache line of what the solver reads per flow, then the rest.
  struct alignas(64) Flow {
    LinkId route_in[kInline];
    std::uint32_t route_len = 0;
    std::uint32_t heap_pos = UINT32_MAX;  // index in done_heap_, UINT32_MAX if not in it
    std::uint64_t mark = 0;
    std::uint32_t pos_in[kInline];        // index of this flow in links_[route[k]].flows
    double remaining = 0;                 // bytes at t_ref
    double rate = 0;                      // B/ns (+inf for an empty route)
    std::int64_t t_ref = 0;               // ns
    std::int64_t t_done = 0;              // ns; INT64_MAX while latent
    std::uint64_t seq = 0;                // start order: the flow id used for ties
    FlowOwner* owner = nullptr;
    std::uint64_t payload = 0;
    core::EventId activation;             // pending kernel event while latent
    std::uint32_t generation = 0;
    std::uint32_t next_free = UINT32_MAX;
    State state = State::Free;
    std::vector<LinkId> route_big;
    std::vector<std::uint32_t> pos_big;

    const LinkId* route() const { return route_len <= kInline ? route_in : route_big.data(); }
    std::uint32_t* pos() { return route_len <= kInline ? pos_in : pos_big.data(); }
    std::span<const LinkId> links() const { return {route(), route_len}; }
  };

  void on_event(core::Simulator& sim, std::uint64_t payload) override;
  const Flow& flow_of(FlowId f, const char* what) const;
  bool live(FlowId f) const {
    return f.slot < flows_.size() && flows_[f.slot].generation == f.generation &&
           flows_[f.slot].state != State::Free;
  }
  FlowId start_impl(std::vector<LinkId> route, double bytes, FlowOwner* owner, std::uint64_t payload,
                    core::Duration latency);
  std::uint32_t alloc_flow();
  void free_flow(std::uint32_t s);
  void activate(std::uint32_t s);
  void detach(std::uint32_t s);        // off its links (active flows)
  // Recomputes the component(s) reachable from the links `seeds` (flow-link graph) and
  // re-times the flows whose rate changed.
  void recompute_from(std::span<const LinkId> seeds);
  void solve();  // progressive filling over comp_flows_ / comp_links_
  void retime(std::uint32_t s, double new_rate, std::int64_t now);
  std::int64_t now_ns() const { return sim_.now().ns(); }

  core::Simulator& sim_;
  std::vector<Link> links_;
  std::vector<std::string> link_names_;
  std::vector<Flow> flows_;
  // The solver's per-flow scratch rate (B/ns, -1 = not fixed yet), apart from flows_ so that
  // the passes over links' flow lists read 8 bytes per flow, not a 256-byte Flow.
  std::vector<double> new_rate_;
  std::uint32_t free_head_ = UINT32_MAX;
  std::size_t live_flows_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t epoch_ = 0;
  // Completion order: an indexed 4-ary min-heap of (t_done ns, seq, slot) entries; seq is
  // unique, so ties go by flow id and the slot only rides along. Flow::heap_pos finds a
  // flow's entry, so re-timing is one sift, O(log n), with no allocation.
  struct DoneKey {
    std::int64_t t;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  static bool earlier(const DoneKey& a, const DoneKey& b) { return a.t != b.t ? a.t < b.t : a.seq < b.seq; }
  void done_place(std::uint32_t i, const DoneKey& k) {
    done_heap_[i] = k;
    flows_[k.slot].heap_pos = i;
  }
  void done_sift_up(std::uint32_t i, DoneKey k);
  void done_sift_down(std::uint32_t i, DoneKey k);
  void done_push(std::uint32_t slot);    // the flow's t_done and seq must be set
  void done_remove(std::uint32_t slot);  // the flow must be in the heap
  void done_update(std::uint32_t slot);  // after its t_done changed
  std::vector<DoneKey> done_heap_;
  FlowNetworkStats stats_;
  // Scratch buffers reused across updates (no allocation per update in steady state).
  std::vector<std::uint32_t> comp_flows_;
  std::vector<LinkId> comp_links_;
  std::vector<LinkId> stack_;
  std::vector<LinkId> seed_buf_;
  struct HeapEntry {
    double share;  // B/ns
    LinkId link;
    std::uint32_t version;
  };
  std::vector<HeapEntry> heap_;
  std::vector<LinkId> touched_;
  struct Done {
    std::uint32_t slot, generation;
    FlowOwner* owner;
    std::uint64_t payload;
  };
  std::vector<Done> done_batch_;
};

}  // namespace mltwin::core
