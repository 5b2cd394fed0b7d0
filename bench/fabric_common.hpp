// bench/fabric_common.hpp — the workload of the fabric benchmark, shared by mltwin's
// (fabric_bench.cpp) and the SimGrid peer's (fabric_simgrid.cpp) drivers so that both run the
// same flows: N trn1.32xlarge nodes cut into jobs of 4..64 contiguous nodes; every job runs R
// parallel rings (as a collective library runs several channels), each ring a transfer from
// every node of the job to the next one (ring-neighbour, inter-node over EFA). N x R flows
// in all. When a transfer ends its ring hop starts the next one (new size), so the number of
// concurrent flows stays N x R.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace fabric_bench {

struct RingFlow {
  std::uint32_t src, dst;  // node indices
  std::uint32_t ring;      // 0..R-1
};

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Size of the k-th transfer of flow f: 64 MiB + uniform [0, 192 MiB), whole bytes.
inline std::uint64_t transfer_bytes(std::uint64_t f, std::uint64_t k) {
  constexpr std::uint64_t MiB = 1024 * 1024;
  return 64 * MiB + splitmix64((f << 24) ^ k) % (192 * MiB);
}

/// Job sizes drawn from {4, 8, 16, 32, 64} until `nodes` are used (a remainder < 2 joins the
/// last job); flows in job order, ring by ring, node by node. A job holds contiguous nodes,
/// or with `scatter` the nodes at those positions of a seeded random permutation (a
/// fragmented cluster: a job's ring then crosses many leaves).
inline std::vector<RingFlow> ring_flows(std::uint32_t nodes, std::uint32_t rings, std::uint64_t seed, bool scatter) {
  std::vector<std::uint32_t> perm(nodes);
  for (std::uint32_t i = 0; i < nodes; ++i) perm[i] = i;
  if (scatter)
    for (std::uint32_t i = nodes; i > 1; --i) std::swap(perm[i - 1], perm[splitmix64(seed ^ (0x5bd1e995ULL * i)) % i]);
  static constexpr std::uint32_t kSizes[] = {4, 8, 16, 32, 64};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> jobs;  // (first node, size)
  std::uint32_t next = 0;
  for (std::uint64_t i = 0; next < nodes; ++i) {
    std::uint32_t k = kSizes[splitmix64(seed * 1000003 + i) % 5];
    if (next + k > nodes) k = nodes - next;
    if (k < 2 && !jobs.empty()) {
      jobs.back().second += k;
      break;
    }
    jobs.emplace_back(next, k);
    next += k;
  }
  std::vector<RingFlow> out;
  for (const auto& [first, k] : jobs)
    for (std::uint32_t r = 0; r < rings; ++r)
      for (std::uint32_t i = 0; i < k; ++i) out.push_back({perm[first + i], perm[first + (i + 1) % k], r});
  return out;
}

}  // namespace fabric_bench
