#include "mltwin/io/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace mltwin::io {

namespace {
// The nodes of group `g` at t = 0 (slots 0..count-1) by instance type and purchase option, in
// the order the pools first occur.
std::vector<std::pair<models::NodeLaunch, int>> t0_pools(const models::NodeGroupSpec& g) {
  std::vector<std::pair<models::NodeLaunch, int>> out;
  for (int i = 0; i < g.count; ++i) {
    const models::NodeLaunch l = models::node_launch(g, i);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first.type == l.type && p.first.capacity == l.capacity; });
    if (it == out.end()) out.emplace_back(l, 1);
    else ++it->second;
  }
  return out;
}
}  // namespace

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

Distribution Distribution::of(std::vector<double> v) {
  Distribution d;
  d.n = v.size();
  if (v.empty()) return d;
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  d.p50 = quantile(v, 0.50);
  d.p95 = quantile(v, 0.95);
  d.p99 = quantile(v, 0.99);
  d.max = v.back();
  return d;
}

// The queue share flag reads proportion's water-filling; a configuration without proportion
// (capacity: deserved set by hand) has no such share.
static bool proportion_configured(const policy::SchedulerConfig& cfg) {
  for (const auto& t : cfg.tiers)
    for (const auto& p : t.plugins)
      if (p.name == "proportion") return true;
  return false;
}

Starvation find_starvation(const std::vector<WaitRecord>& jobs, double wait_factor, std::int64_t end_ns) {
  Starvation out;
  out.wait_factor = wait_factor;
  std::map<std::string, std::vector<std::size_t>> by_queue;  // ordered: deterministic
  for (std::size_t i = 0; i < jobs.size(); ++i) by_queue[jobs[i].queue].push_back(i);
  std::vector<StarvedJob> flagged;
  for (auto& [queue, idx] : by_queue) {
    // Ranks of sizes and of placement times within the queue.
    std::vector<double> sizes;
    std::vector<std::int64_t> placed;
    for (std::size_t i : idx) {
      sizes.push_back(jobs[i].size);
      if (jobs[i].placed_ns != INT64_MAX) placed.push_back(jobs[i].placed_ns);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::sort(placed.begin(), placed.end());
    placed.erase(std::unique(placed.begin(), placed.end()), placed.end());
    const std::size_t np = placed.size();
    // One Fenwick tree per size over placement-time ranks: jobs submitted later than the one
    // being asked about (the walk goes from the last submission back).
    std::vector<std::vector<std::uint32_t>> fen(sizes.size(), std::vector<std::uint32_t>(np + 1, 0));
    auto size_rank = [&](double z) {
      return static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), z) - sizes.begin());
    };
    // Later jobs placed strictly before t, of sizes ranked below r.
    auto count_before = [&](std::size_t r, std::int64_t t) {
      const std::size_t k = static_cast<std::size_t>(std::lower_bound(placed.begin(), placed.end(), t) - placed.begin());
      std::size_t n = 0;
      for (std::size_t z = 0; z < r; ++z)
        for (std::size_t i = k; i > 0; i -= i & (~i + 1)) n += fen[z][i];
      return n;
    };
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return jobs[a].submit_ns != jobs[b].submit_ns ? jobs[a].submit_ns > jobs[b].submit_ns : a < b;
    });
    for (std::size_t g = 0; g < idx.size();) {
      std::size_t h = g;
      while (h < idx.size() && jobs[idx[h]].submit_ns == jobs[idx[g]].submit_ns) ++h;
      // Ask for the whole group of equal submission times before adding it: "later" is strict.
      for (std::size_t k = g; k < h; ++k) {
        const WaitRecord& j = jobs[idx[k]];
        const bool was_placed = j.placed_ns != INT64_MAX;
        const double waited = static_cast<double>((was_placed ? j.placed_ns : end_ns) - j.submit_ns);
        if (!(waited > wait_factor * static_cast<double>(j.run_ns))) continue;
        const std::size_t n = count_before(size_rank(j.size), j.placed_ns);
        if (n == 0) continue;
        flagged.push_back({j.name, j.queue, waited / 1e9, static_cast<double>(j.run_ns) / 1e9, was_placed, n});
      }
      for (std::size_t k = g; k < h; ++k) {
        const WaitRecord& j = jobs[idx[k]];
        if (j.placed_ns == INT64_MAX) continue;
        const std::size_t r = size_rank(j.size);
        const std::size_t p1 =
            static_cast<std::size_t>(std::lower_bound(placed.begin(), placed.end(), j.placed_ns) - placed.begin()) + 1;
        for (std::size_t i = p1; i <= np; i += i & (~i + 1)) ++fen[r][i];
      }
      g = h;
    }
  }
  out.jobs = flagged.size();
  std::sort(flagged.begin(), flagged.end(), [](const StarvedJob& a, const StarvedJob& b) {
    return a.waited_s != b.waited_s ? a.waited_s > b.waited_s : a.name < b.name;
  });
  if (flagged.size() > 5) flagged.resize(5);
  out.worst = std::move(flagged);
  return out;
}

CrossQueueStarvation find_cross_queue_starvation(const std::vector<WaitRecord>& jobs, double wait_factor,
                                                 std::int64_t end_ns) {
  CrossQueueStarvation out;
  out.wait_factor = wait_factor;
  // Placement-time ranks: over all jobs, and within each queue (ordered map: deterministic).
  std::vector<std::int64_t> placed;
  std::map<std::string, std::vector<std::int64_t>> placed_in;
  for (const WaitRecord& j : jobs)
    if (j.placed_ns != INT64_MAX) placed.push_back(j.placed_ns), placed_in[j.queue].push_back(j.placed_ns);
  auto ranks = [](std::vector<std::int64_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  ranks(placed);
  for (auto& [q, v] : placed_in) ranks(v);
  // Fenwick trees counting the jobs submitted later than the one asked about (the walk goes
  // from the last submission back): placed strictly before t.
  struct Fenwick {
    const std::vector<std::int64_t>* at;
    std::vector<std::uint32_t> n;
    void add(std::int64_t t) {
      for (std::size_t i = static_cast<std::size_t>(std::lower_bound(at->begin(), at->end(), t) - at->begin()) + 1; i < n.size();
           i += i & (~i + 1))
        ++n[i];
    }
    std::size_t before(std::int64_t t) const {
      std::size_t c = 0;
      for (std::size_t i = static_cast<std::size_t>(std::lower_bound(at->begin(), at->end(), t) - at->begin()); i > 0;
           i -= i & (~i + 1))
        c += n[i];
      return c;
    }
  };
  Fenwick all{&placed, std::vector<std::uint32_t>(placed.size() + 1, 0)};
  std::map<std::string, Fenwick> own;
  for (auto& [q, v] : placed_in) own.emplace(q, Fenwick{&v, std::vector<std::uint32_t>(v.size() + 1, 0)});
  std::vector<std::size_t> idx(jobs.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return jobs[a].submit_ns != jobs[b].submit_ns ? jobs[a].submit_ns > jobs[b].submit_ns : a < b;
  });
  struct Flagged {
    std::size_t i;  // index in jobs
    double waited_s;
    std::size_t overtaken_by;
  };
  std::vector<Flagged> flagged;
  for (std::size_t g = 0; g < idx.size();) {
    std::size_t h = g;
    while (h < idx.size() && jobs[idx[h]].submit_ns == jobs[idx[g]].submit_ns) ++h;
    // Ask for the whole group of equal submission times before adding it: "later" is strict.
    for (std::size_t k = g; k < h; ++k) {
      const WaitRecord& j = jobs[idx[k]];
      const double waited = static_cast<double>((j.placed_ns != INT64_MAX ? j.placed_ns : end_ns) - j.submit_ns);
      if (!(waited > wait_factor * static_cast<double>(j.run_ns))) continue;
      const auto mine = own.find(j.queue);
      const std::size_t n = all.before(j.placed_ns) - (mine == own.end() ? 0 : mine->second.before(j.placed_ns));
      // Only where a queue-order tie was measured: with 15 queues almost any long wait has some
      // later job of another queue placed first (58,683 of the full Philly run's jobs), most by
      // share, which the queue share flag covers.
      if (n == 0 || j.tie_sessions == 0) continue;
      flagged.push_back({idx[k], waited / 1e9, n});
      if (j.tie_sessions > 0) ++out.tie_jobs, out.tie_sessions += j.tie_sessions;
    }
    for (std::size_t k = g; k < h; ++k) {
      const WaitRecord& j = jobs[idx[k]];
      if (j.placed_ns == INT64_MAX) continue;
      all.add(j.placed_ns);
      own.at(j.queue).add(j.placed_ns);
    }
    g = h;
  }
  out.jobs = flagged.size();
  const std::size_t shown = std::min<std::size_t>(flagged.size(), 5);
  std::partial_sort(flagged.begin(), flagged.begin() + static_cast<std::ptrdiff_t>(shown), flagged.end(),
                    [&](const Flagged& a, const Flagged& b) {
                      return a.waited_s != b.waited_s ? a.waited_s > b.waited_s : jobs[a.i].name < jobs[b.i].name;
                    });
  for (std::size_t k = 0; k < shown; ++k) {
    const WaitRecord& j = jobs[flagged[k].i];
    CrossQueueStarvedJob f{j.name, j.queue, flagged[k].waited_s, static_cast<double>(j.run_ns) / 1e9, j.placed_ns != INT64_MAX,
                           flagged[k].overtaken_by, {}, j.tie_sessions, j.tie_winner, j.tie_by_uid};
    // The overtaking jobs per queue, for the five shown: one pass over the jobs each.
    std::map<std::string, std::size_t> per;
    for (const WaitRecord& o : jobs)
      if (o.queue != j.queue && o.submit_ns > j.submit_ns && o.placed_ns < j.placed_ns) ++per[o.queue];
    f.by_queue.assign(per.begin(), per.end());
    std::stable_sort(f.by_queue.begin(), f.by_queue.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    out.worst.push_back(std::move(f));
  }
  return out;
}

std::vector<ShortQueue> find_short_queues(const std::vector<QueueRecord>& queues, const std::vector<JobSizeRecord>& jobs,
                                          double total) {
  std::map<std::string, std::vector<const JobSizeRecord*>> by_queue;
  for (const auto& j : jobs) by_queue[j.queue].push_back(&j);
  int total_weight = 0;
  for (const auto& q : queues)
    if (by_queue.count(q.name)) total_weight += q.weight;
  std::vector<ShortQueue> out;
  for (const auto& q : queues) {
    auto it = by_queue.find(q.name);
    if (it == by_queue.end()) continue;
    const auto share_of = [&](double w, double others) {
      double s = total * w / (others + w);
      s = std::min(s, q.capability_neuroncores);
      return std::max(s, q.guarantee_neuroncores);
    };
    const double others = static_cast<double>(total_weight - q.weight);
    const double share = share_of(q.weight, others);
    ShortQueue f;
    f.queue = q.name;
    f.weight = q.weight;
    f.total_weight = total_weight;
    f.total_neuroncores = total;
    f.share_neuroncores = share;
    f.smallest_neuroncores = std::numeric_limits<double>::infinity();
    double sum = 0;
    std::size_t placed = 0;
    for (const JobSizeRecord* j : it->second) {
      f.smallest_neuroncores = std::min(f.smallest_neuroncores, j->neuroncores);
      f.largest_neuroncores = std::max(f.largest_neuroncores, j->neuroncores);
      if (j->neuroncores > share) {
        ++f.jobs;
        if (!std::isnan(j->queueing_s)) {
          sum += j->queueing_s;
          ++placed;
        }
      }
    }
    if (!(f.smallest_neuroncores > share)) continue;
    f.mean_queueing_s = placed ? sum / static_cast<double>(placed) : std::numeric_limits<double>::quiet_NaN();
    // total x w / (others + w) >= n  <=>  w >= n x others / (total - n); capped by capability.
    const auto weight_for = [&](double n) {
      if (n > q.capability_neuroncores || n >= total) return 0;
      if (others == 0) return 1;
      int w = std::max(1, static_cast<int>(std::ceil(n * others / (total - n))));
      while (share_of(w, others) < n) ++w;  // floating-point edge
      return w;
    };
    f.weight_for_smallest = weight_for(f.smallest_neuroncores);
    f.weight_for_largest = weight_for(f.largest_neuroncores);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const ShortQueue& a, const ShortQueue& b) { return a.queue < b.queue; });
  return out;
}

RunSummary summarize(const std::string& scenario, std::uint64_t seed, const models::TrainingScenario& sc,
                     const models::TrainingCluster& cluster, double sim_end_s) {
  RunSummary s;
  s.scenario = scenario;
  s.seed = seed;
  s.sim_end_s = sim_end_s;
  const auto& outs = cluster.outcomes();
  std::map<std::string, std::size_t> phases;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> per_queue;
  std::map<std::string, QueueSummary> qs;
  std::vector<double> queueing, jct;
  double last_end = 0;
  for (std::size_t i = 0; i < cluster.submitted(); ++i) {
    const auto& o = outs[i];
    ++phases[o.phase];
    ++s.jobs;
    QueueSummary& q = qs[o.queue];
    q.queue = o.queue;
    ++q.submitted;
    if (o.phase == "Completed") ++q.completed;
    else if (o.phase == "Running") ++q.running;
    else if (o.phase == "Refused") ++q.refused;
    else if (o.phase == "Pending") ++q.pending;
    else ++q.ended_otherwise;  // Failed, Aborted, Terminated
    if (o.scheduled != core::Time::max()) {
      const double d = (o.scheduled - o.submit).seconds();
      queueing.push_back(d);
      per_queue[o.queue].first.push_back(d);
    }
    if (o.end != core::Time::max()) {
      const double d = (o.end - o.submit).seconds();
      jct.push_back(d);
      per_queue[o.queue].second.push_back(d);
      last_end = std::max(last_end, o.end.seconds());
    }
  }
  s.makespan_s = last_end;
  {
    // Starvation: every job that reached the scheduler (Refused ones never did).
    std::vector<WaitRecord> waits;
    const auto* it = sc.node_groups.empty() ? nullptr : sc.catalog.find(sc.node_groups.front().instance_types.at(0));
    const double cores_per_device = it ? it->neuroncores_per_chip : 2;
    for (std::size_t i = 0; i < cluster.submitted() && i < sc.jobs.size(); ++i) {
      const auto& o = outs[i];
      // Refused jobs never reached the scheduler; one that can never be placed is not starved
      // by smaller jobs (the "Never placeable" flag says why it waits).
      if (o.phase == "Refused" || cluster.never_placeable().count(i) != 0) continue;
      const auto& spec = sc.jobs[i];
      waits.push_back({spec.name, o.queue, o.submit.ns(), o.scheduled == core::Time::max() ? INT64_MAX : o.scheduled.ns(),
                       spec.duration.count_ns(), static_cast<double>(spec.nnodes) * spec.neuron_devices_per_pod * cores_per_device});
      if (auto t = cluster.queue_tie_losses().find(i); t != cluster.queue_tie_losses().end()) {
        waits.back().tie_sessions = t->second.sessions;
        waits.back().tie_winner = t->second.winner;
        waits.back().tie_by_uid = t->second.by_uid;
      }
    }
    const auto end_ns = static_cast<std::int64_t>(std::llround(sim_end_s * 1e9));
    s.starvation = find_starvation(waits, sc.starvation_wait_factor, end_ns);
    s.cross_queue_starvation = find_cross_queue_starvation(waits, sc.starvation_wait_factor, end_ns);
    // Queue shares: the NeuronCores of the cluster as it started, the jobs' sizes and waits.
    std::vector<QueueRecord> queues;
    for (const auto& q : sc.queues) {
      QueueRecord r{q.name, q.weight};
      // A capability that names no Neuron resource does not limit NeuronCores.
      auto names_neuron = [](const policy::Resource& x) {
        return x.scalars.find(policy::rn::kNeuron) || x.scalars.find(policy::rn::kNeuronDevice) ||
               x.scalars.find(policy::rn::kNeuronCore);
      };
      const int cpd = static_cast<int>(cores_per_device);
      if (q.capability && names_neuron(*q.capability)) r.capability_neuroncores = models::neuroncores_in(*q.capability, cpd);
      r.guarantee_neuroncores = models::neuroncores_in(q.guarantee, cpd);
      queues.push_back(r);
    }
    std::vector<JobSizeRecord> sizes;
    for (const auto& w : waits)
      sizes.push_back({w.queue, w.size,
                       w.placed_ns == INT64_MAX ? std::numeric_limits<double>::quiet_NaN()
                                                : static_cast<double>(w.placed_ns - w.submit_ns) / 1e9});
    // With a cluster autoscaler, the cluster as it can grow (max_size of its groups): proportion
    // divides what the session sees, which grows with the nodes added.
    double total_cores = 0;
    for (const auto& g : sc.node_groups) {
      if (sc.autoscaler && g.max_size > g.count) {
        if (const auto* t = sc.catalog.find(g.instance_types.at(0))) total_cores += g.max_size * t->neuroncores();
        continue;
      }
      for (const auto& [pool, n] : t0_pools(g))
        if (const auto* t = sc.catalog.find(g.instance_types[pool.type])) total_cores += n * t->neuroncores();
    }
    if (proportion_configured(sc.scheduler)) s.short_queues = find_short_queues(queues, sizes, total_cores);
    // A deadlock: nothing running at the end, jobs waiting (placeable ones) in two or more
    // queues, every one of them short of its smallest job.
    std::set<std::string> waiting_queues;
    std::size_t waiting = 0;
    bool running = false;
    for (std::size_t i = 0; i < cluster.submitted() && i < sc.jobs.size(); ++i) {
      if (outs[i].phase == "Running") running = true;
      if (outs[i].phase == "Pending" && cluster.never_placeable().count(i) == 0) {
        waiting_queues.insert(outs[i].queue);
        ++waiting;
      }
    }
    if (!running && waiting_queues.size() >= 2) {
      Deadlock d;
      d.waiting = waiting;
      bool all_short = true;
      for (const std::string& q : waiting_queues) {
        const auto sq = std::find_if(s.short_queues.begin(), s.short_queues.end(), [&](const ShortQueue& x) { return x.queue == q; });
        if (sq == s.short_queues.end()) {
          all_short = false;
          break;
        }
        d.queues.push_back(q);
        if (sq->weight_for_smallest > 0 && (d.unlock_weight == 0 || sq->weight_for_smallest < d.unlock_weight)) {
          d.unlock_queue = q;
          d.unlock_weight = sq->weight_for_smallest;
        }
      }
      if (all_short) s.deadlock = d;
    }
  }
  {
    // Reclaim churn (report.hpp ReclaimChurn).
    std::set<std::string> churn_queues;
    for (std::size_t i = 0; i < cluster.submitted() && i < sc.jobs.size(); ++i) {
      const auto& o = outs[i];
      if (o.reclaim_evictions < 2) continue;
      ++s.reclaim_churn.jobs;
      s.reclaim_churn.evictions += static_cast<std::size_t>(o.reclaim_evictions);
      churn_queues.insert(o.queue);
      s.reclaim_churn.worst.push_back({sc.jobs[i].name, o.queue, o.phase, o.reclaim_evictions, o.lost_s});
    }
    s.reclaim_churn.queues.assign(churn_queues.begin(), churn_queues.end());
    auto& w = s.reclaim_churn.worst;
    std::sort(w.begin(), w.end(), [](const ChurnedJob& a, const ChurnedJob& b) {
      return a.evictions != b.evictions ? a.evictions > b.evictions : a.name < b.name;
    });
    if (w.size() > 5) w.resize(5);
  }
  for (const auto& [k, v] : phases) s.phases.emplace_back(k, v);
  s.queueing_s = Distribution::of(std::move(queueing));
  s.jct_s = Distribution::of(std::move(jct));
  for (auto& [name, q] : qs) {
    q.queueing_s = Distribution::of(per_queue[name].first);
    q.jct_s = Distribution::of(per_queue[name].second);
    s.queues.push_back(q);
  }
  const models::TrainingStats& st = cluster.stats();
  double total = 0;
  for (double d : st.allocated_core_seconds_per_day) total += d;
  s.neuroncores = st.neuroncores_total;
  if (sim_end_s > 0 && st.neuroncores_total > 0) s.allocation_ratio = total / (st.neuroncores_total * sim_end_s);
  const auto& days = st.allocated_core_seconds_per_day;
  for (std::size_t w = 0; w * 7 < days.size(); ++w) {
    double sum = 0;
    const double week_start = static_cast<double>(w) * 7 * 86400;
    const double week_len = std::min(7.0 * 86400, sim_end_s - week_start);
    for (std::size_t d = w * 7; d < std::min(days.size(), w * 7 + 7); ++d) sum += days[d];
    if (week_len > 0 && st.neuroncores_total > 0) s.weekly_allocation_ratio.push_back(sum / (st.neuroncores_total * week_len));
  }
  s.sessions = st.sessions;
  s.cycles = st.cycles_elapsed;
  s.binds = st.binds;
  s.bind_failures = st.bind_failures;
  s.discarded = st.statements_discarded;
  s.evictions = st.evictions;
  s.drained = st.drained;
  s.restarts = st.restarts;
  s.failed = st.failed;
  s.aborted = st.aborted;
  s.terminated = st.terminated;
  s.completed_early = st.completed_early;
  s.resumed_in_place = st.resumed_in_place;
  s.stuck = st.stuck;
  s.never_placeable = st.never_placeable;
  s.priority_inversions.assign(st.priority_inversions.begin(), st.priority_inversions.end());
  s.priority_inversion_example = st.priority_inversion_example;
  s.autoscaler_trapped = st.autoscaler_trapped;
  s.autoscaler_trap_example = st.autoscaler_trap_example;
  s.churn_nodes = st.churn_nodes;
  s.churn_node_hours = st.churn_node_seconds / 3600.0;
  s.churn_usd = st.churn_usd;
  s.churn_cut = st.churn_cut;
  s.refused = st.refused;
  s.enqueue_action = std::find(sc.scheduler.actions.begin(), sc.scheduler.actions.end(), "enqueue") != sc.scheduler.actions.end();
  if (!cluster.never_placeable().empty()) {
    const auto& [idx, why] = *cluster.never_placeable().begin();
    s.never_placeable_example = sc.jobs[idx].name + ": " + why;
  }
  s.lost_training_s = st.lost_training_s;
  s.lost_neuroncore_s = st.lost_neuroncore_s;
  s.readmission_s = Distribution::of(st.readmission_wait_s);
  s.startup = sc.startup.has_value();
  s.startup_s = st.startup_s;
  s.image_pull_s = st.image_pull_s;
  s.training_s = st.training_s;
  s.startup_share = st.startup_s + st.training_s > 0 ? st.startup_s / (st.startup_s + st.training_s) : 0.0;
  s.compile_hits = st.compile_hits;
  s.compile_misses = st.compile_misses;
  s.compile_waits = st.compile_waits;
  s.dynamic_nodes = sc.faults.has_value() || sc.autoscaler.has_value();
  s.node_failures = st.node_failures;
  s.taint_evictions = st.taint_evictions;
  s.node_taint_evictions = st.node_taint_evictions;
  s.pods_garbage_collected = st.pods_garbage_collected;
  s.pods_garbage_collected_after_taint_eviction = st.pods_garbage_collected_after_taint_eviction;
  s.efa_cross_zone_failures = st.efa_cross_zone_failures;
  s.nodes_launched = st.nodes_launched;
  s.nodes_removed = st.nodes_removed;
  s.spot_interruptions = st.spot_interruptions;
  s.neuron_name_mixes = st.neuron_name_mixes;
  s.neuron_name_mix_example = st.neuron_name_mix_example;
  for (const auto& g : sc.node_groups) s.spot = s.spot || models::launches_spot(g);
  // Each node at its price: the catalog's on-demand price, or its group's Spot price.
  if (s.dynamic_nodes && st.node_pool_seconds.size() == sc.node_groups.size()) {
    for (std::size_t g = 0; g < sc.node_groups.size(); ++g) {
      const models::NodeGroupSpec& ng = sc.node_groups[g];
      for (std::size_t p = 0; p < st.node_pool_seconds[g].size(); ++p) {
        const models::NodeLaunch pool{p / 2, p % 2 ? models::CapacityType::Spot : models::CapacityType::OnDemand};
        if (st.node_pool_seconds[g][p] > 0) s.cost_usd += st.node_pool_seconds[g][p] * models::node_usd_per_hour(sc.catalog, ng, pool) / 3600.0;
      }
    }
  } else {
    for (const auto& g : sc.node_groups)
      for (const auto& [pool, n] : t0_pools(g)) s.cost_usd += n * models::node_usd_per_hour(sc.catalog, g, pool) * sim_end_s / 3600.0;
  }
  s.derived = sc.duration_model == models::DurationModel::Derived;
  s.contention = s.derived && sc.step_model && sc.step_model->contention;
  s.retimes = st.retimes;
  if (s.derived && !sc.node_groups.empty()) {
    // The step model runs on one Trainium type (the loader checks it); its NeuronCore-second is
    // priced at the cluster's nodes at t = 0: one price when they all cost the same (On-Demand),
    // else their average per NeuronCore (Spot and On-Demand nodes mixed).
    const models::InstanceType* it = sc.catalog.find(sc.node_groups.front().instance_types.at(0));
    double usd_per_core_s = it && it->neuroncores() > 0 ? it->on_demand_usd_per_hour / 3600.0 / it->neuroncores() : 0;
    {
      double usd = 0, cores = 0;
      bool one_price = true;
      for (const auto& g : sc.node_groups)
        for (const auto& [pool, n] : t0_pools(g)) {
          const models::InstanceType* t = sc.catalog.find(g.instance_types[pool.type]);
          if (t == nullptr || t->neuroncores() == 0) continue;
          const double price = models::node_usd_per_hour(sc.catalog, g, pool);
          if (it == nullptr || price != it->on_demand_usd_per_hour || t->neuroncores() != it->neuroncores()) one_price = false;
          usd += n * price;
          cores += n * t->neuroncores();
        }
      if (!one_price && cores > 0) usd_per_core_s = usd / cores / 3600.0;
    }
    const double cores_per_device = it ? it->neuroncores_per_chip : 0;
    auto add = [&](RunSummary::Share& sh, double sec, double cores) {
      sh.s += sec;
      sh.usd += sec * cores * usd_per_core_s;
    };
    for (std::size_t i = 0; i < cluster.submitted(); ++i) {
      const auto& o = outs[i];
      const double cores = o.neuron_devices * cores_per_device;
      add(s.compute, o.compute_s, cores);
      add(s.communication, o.communication_s, cores);
      add(s.sync, o.sync_s, cores);
      const double compiling = std::min(o.compile_s, o.startup_s);
      add(s.compiling, compiling, cores);
      add(s.starting, o.startup_s - compiling, cores);
      add(s.lost, o.lost_s, cores);
    }
  }
  return s;
}

std::string human_duration(double s) {
  if (std::isnan(s)) return "-";
  if (s < 120) return fmt::format("{:.1f}s", s);
  if (s < 7200) return fmt::format("{:.1f}m", s / 60);
  if (s < 172800) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
}

namespace {
void row(std::ostream& os, const std::string& name, const Distribution& d) {
  if (d.n == 0) {  // no job got that far (e.g. every job was rejected): no statistic to show
    fmt::print(os, "  {:<22} n=0      -\n", name);
    return;
  }
  fmt::print(os, "  {:<22} n={:<6} mean {:>8}  p50 {:>8}  p95 {:>8}  p99 {:>8}\n", name, d.n, human_duration(d.mean), human_duration(d.p50),
             human_duration(d.p95), human_duration(d.p99));
}
}  // namespace

void print_summary(std::ostream& os, const RunSummary& s) {
  fmt::print(os, "mltwin run summary — scenario {} (seed {})\n", s.scenario, s.seed);
  fmt::print(os, "Simulated {} ({:.0f} s); makespan {}; {} jobs\n", human_duration(s.sim_end_s), s.sim_end_s, human_duration(s.makespan_s), s.jobs);
  fmt::print(os, "Jobs per final phase:");
  for (const auto& [p, n] : s.phases) fmt::print(os, "  {} {}", p, n);
  fmt::print(os, "\n\nQueueing delay (submit -> gang placed), all jobs:\n");
  row(os, "all", s.queueing_s);
  fmt::print(os, "Job completion time (submit -> last pod succeeded):\n");
  row(os, "all", s.jct_s);
  fmt::print(os, "\nPer queue (queueing delay / JCT):\n");
  for (const auto& q : s.queues) {
    fmt::print(os, " {}: {} submitted, {} completed, {} running, {} pending", q.queue, q.submitted, q.completed, q.running,
               q.pending);
    if (q.refused > 0) fmt::print(os, ", {} refused", q.refused);
    // Jobs the job controller ended without completing: shown when there are any, so the
    // figures add up to the submitted count.
    if (q.ended_otherwise > 0) fmt::print(os, ", {} failed, aborted or terminated", q.ended_otherwise);
    fmt::print(os, "\n");
    row(os, "queueing", q.queueing_s);
    row(os, "JCT", q.jct_s);
  }
  if (s.neuroncores > 0) {
    fmt::print(os, "\nNeuronCore allocation ratio (time-weighted): {:.3f}\n  per week:", s.allocation_ratio);
    for (std::size_t w = 0; w < s.weekly_allocation_ratio.size(); ++w)
      fmt::print(os, "{}w{} {:.2f}", w % 8 == 0 ? "\n   " : "  ", w + 1, s.weekly_allocation_ratio[w]);
  } else {
    fmt::print(os, "\nNeuronCore allocation ratio: none (no node offers aws.amazon.com/neuroncore)");
  }
  fmt::print(os, "\n\nScheduler: {} sessions opened over {} cycles ({:.2f}%); {} binds; {} statements discarded\n",
             s.sessions, s.cycles, s.cycles ? 100.0 * static_cast<double>(s.sessions) / static_cast<double>(s.cycles) : 0.0,
             s.binds, s.discarded);
  if (s.never_placeable > 0)
    fmt::print(os, "Never placeable: {} job(s) can never be placed on this cluster (e.g. {}). Volcano admits them: they wait "
                   "for ever{}. Remedy: delete them, or refuse such jobs at submission (/cluster/admission/refuse_unplaceable, "
                   "what a validating admission policy of your own would do)\n",
               s.never_placeable, s.never_placeable_example,
               s.enqueue_action ? ", Inqueue once enqueue finds budget, and then hold their queue's and the overcommit plugin's "
                                  "enqueue budget, which can keep other jobs Pending (volcano#1295)"
                                : " (without the enqueue action, allocate admits their PodGroups: they hold no enqueue budget)");
  if (s.autoscaler_trapped > 0)
    fmt::print(os, "Autoscaler trap: {} job(s) never got a pod (e.g. {}): Volcano's enqueue keeps a PodGroup Pending while its "
                   "minResources exceed what the overcommit plugin admits (the nodes present x overcommit-factor, less what "
                   "is used), so the job controller creates no pod and the cluster autoscaler, which reacts only to Pending "
                   "pods, never adds the nodes that would admit it (volcano#3910). Remedy: leave enqueue out of "
                   "volcano.actions (allocate then admits the PodGroup, its pods are created and the autoscaler scales out); "
                   "a larger overcommit-factor does not help a group that scales from zero\n",
               s.autoscaler_trapped, s.autoscaler_trap_example);
  if (s.churn_nodes > 0)
    fmt::print(os, "Autoscaler churn: {} node(s) launched for Pending pods never held one ({:.1f} node-hours, ${:.2f}): the "
                   "cluster autoscaler sizes for Pending pods one at a time, not for gangs (and a pod may be placed elsewhere "
                   "first), and removes the nodes once unneeded{}.{} "
                   "Remedy: {}\n",
               s.churn_nodes, s.churn_node_hours, s.churn_usd,
               s.never_placeable > 0 ? "; jobs that can never be placed had Pending pods" : "",
               s.churn_cut ? " mltwin stops the cycle after its first removal so that the run ends; a real cluster "
                             "autoscaler repeats it for as long as those pods wait, so this cost is a lower bound."
                           : "",
               s.never_placeable > 0 ? "delete those jobs, or refuse them at submission (/cluster/admission/refuse_unplaceable)"
                                     : "size node groups' max_size for whole gangs, or give the jobs a nodeSelector to one group");
  if (!s.priority_inversions.empty()) {
    // Volcano v1.12.1 framework/session_plugins.go Preemptable / Reclaimable: the victims are
    // those of the first tier whose voting plugins leave a non-empty set; priority.go registers a
    // Preemptable function only (a lower job priority, or a lower task priority within a job),
    // so a tier without it, or any tier for reclaim, chooses without comparing priorities.
    std::uint64_t n = 0;
    std::string by;
    bool preempt = false, reclaim = false;
    for (const auto& [what, count] : s.priority_inversions) {
      n += count;
      by += fmt::format("{}{} by {}", by.empty() ? "" : ", ", count, what);
      preempt = preempt || what.starts_with("preempt");
      reclaim = reclaim || what.starts_with("reclaim");
    }
    fmt::print(os, "Priority inversion: {} pod(s) evicted for a pod of a lower-priority job ({}), e.g. {}.{}{} Remedy: {}\n",
               n, by, s.priority_inversion_example,
               preempt ? " Preempt takes the victims of the first tier whose plugins leave any (framework/session_plugins.go "
                         "Preemptable): when the priority plugin's tier finds no lower-priority victim, a later tier's plugins "
                         "choose (drf compares shares, not priorities)."
                       : "",
               reclaim ? " Reclaim restores queue shares and never compares priorities, by design: no Reclaimable function "
                         "reads them (priority registers none; proportion and capacity compare the victim's queue with its "
                         "deserved share)."
                       : "",
               std::string(preempt ? "enablePreemptable: false on the named plugins of the later tier (only the priority "
                                     "plugin's tier then chooses preempt's victims)"
                                   : "") +
                   (preempt && reclaim ? "; " : "") +
                   (reclaim ? "reclaimable: false on the victims' queues, or enableReclaimable: false on the named plugins" : ""));
  }
  if (s.bind_failures > 0)
    fmt::print(os, "Bind failures: {} binds refused by the API server; each pod was placed again at a later cycle\n", s.bind_failures);
  if (s.evictions > 0 || s.drained > 0 || s.restarts > 0 || s.failed > 0 || s.aborted > 0 || s.terminated > 0 || s.completed_early > 0 ||
      s.resumed_in_place > 0 || s.stuck > 0) {
    fmt::print(os, "Evictions: {} pods by the scheduler (preempt, reclaim){}; {} restarts by the job controller (RestartJob/RestartTask), "
                   "{} Failed (maxRetry); training lost {} ({:.1f} NeuronCore-hours)\n",
               s.evictions, s.drained > 0 ? fmt::format(", {} drained at Spot interruption notices", s.drained) : std::string(),
               s.restarts, s.failed, human_duration(s.lost_training_s), s.lost_neuroncore_s / 3600);
    if (s.readmission_s.n > 0)
      fmt::print(os, "Restarts re-queued: {} whole-job restart(s) waited a median {} (p95 {}, max {}) to be admitted again. "
                     "Volcano's killJob deletes the job's PodGroup and the new one is ordered as created at the restart, "
                     "behind jobs submitted meanwhile (job_controller_actions.go:212-225, 724-778); mltwin does the same. "
                     "Remedy: RestartTask (or RestartPod) on PodEvicted/PodFailed deletes only the lost pod and keeps the "
                     "PodGroup admitted; or a higher PriorityClass, which enqueue and allocate order first "
                     "(docs/volcano.md)\n",
                 s.readmission_s.n, human_duration(s.readmission_s.p50), human_duration(s.readmission_s.p95),
                 human_duration(s.readmission_s.max));
    if (s.aborted > 0 || s.terminated > 0 || s.completed_early > 0)
      fmt::print(os, "Job policies: {} Aborted (AbortJob), {} Terminated (TerminateJob), {} Completed early (CompleteJob)\n", s.aborted,
                 s.terminated, s.completed_early);
    if (s.resumed_in_place > 0)
      fmt::print(os, "torchrun: {} gang(s) formed again with a replacement pod before their survivors timed out (no Volcano restart)\n",
                 s.resumed_in_place);
    if (s.stuck > 0)
      fmt::print(os, "Stuck: {} job(s) hold Failed pods that Volcano's default SyncJob never recreates, so their gang can never be "
                     "complete again (no PodFailed policy: TorchX max_retries 0). Remedy: workload.torchx.max_retries >= 1 "
                     "(PodEvicted/PodFailed -> RestartJob), or the job's own policies\n",
                 s.stuck);
  }
  if (s.startup)
    fmt::print(os, "Start-up (rendezvous, Neuron compilation, dataset read): {:.1f} job-hours, {:.1f}% of start-up + training; "
                   "image pulls {:.1f} job-hours; compile cache {} hits, {} misses, {} waits\n",
               s.startup_s / 3600, 100 * s.startup_share, s.image_pull_s / 3600, s.compile_hits, s.compile_misses, s.compile_waits);
  if (s.dynamic_nodes)
    fmt::print(os, "Nodes: {} failed, {} launched (replacements and scale-ups), {} removed by the autoscaler{}\n", s.node_failures,
               s.nodes_launched, s.nodes_removed,
               s.node_failures > 0
                   // Each pod counted once: one the taint manager deleted stays Terminating (no
                   // kubelet confirms it) until PodGC removes it with its Node.
                   ? fmt::format("; the failed nodes' pods: {} deleted by the taint manager (unreachable past their "
                                 "toleration; {} of them then removed by PodGC once their Node was deleted), {} deleted "
                                 "by PodGC alone (their Node deleted)",
                                 s.taint_evictions, s.pods_garbage_collected_after_taint_eviction,
                                 s.pods_garbage_collected - s.pods_garbage_collected_after_taint_eviction)
                   : std::string());
  if (s.node_taint_evictions > 0)
    fmt::print(os, "Taint evictions: {} pod(s) deleted by the taint manager when their tolerationSeconds of their node group's "
                   "NoExecute taint ran out, counted from their bind (the job controller sees PodEvicted and applies the job's "
                   "policy; a recreated pod lands under the same taint and is deleted as long after its bind). Remedy: a "
                   "toleration without tolerationSeconds for node groups the jobs are meant to run on, or none for those "
                   "they are not\n",
               s.node_taint_evictions);
  if (s.efa_cross_zone_failures > 0)
    fmt::print(os, "EFA across availability zones: {} job attempt(s) failed at training start because their pods were split "
                   "across availability zones and EFA traffic cannot leave its subnet (a subnet lies in one zone). Remedy: "
                   "a nodeSelector or required node affinity on topology.kubernetes.io/zone, or node groups in one zone\n",
               s.efa_cross_zone_failures);
  if (s.spot) fmt::print(os, "Spot: {} interruption(s) (two-minute notice: cordon and drain, then termination)\n", s.spot_interruptions);
  if (s.neuron_name_mixes > 0)
    fmt::print(os, "Neuron resource names mixed on {} node(s) (first: {}): Kubernetes and Volcano count "
                   "aws.amazon.com/neuron, aws.amazon.com/neurondevice and aws.amazon.com/neuroncore as independent "
                   "resources, so pods asking for different names can be given the same Neuron device; mltwin "
                   "schedules as upstream does, and the NeuronCore allocation ratio counts every name, so it can exceed 1. "
                   "Remedy: request one name across the cluster (aws.amazon.com/neuron, which the Neuron device plugin "
                   "advertises; docs/resources.md)\n",
               s.neuron_name_mixes, s.neuron_name_mix_example);
  if (s.starvation.jobs > 0) {
    fmt::print(os, "Starvation: {} job(s) waited more than {:g}x their run time while later, smaller jobs of their queue were "
                   "placed first (Volcano's allocate skips a gang that does not fit and goes on with smaller jobs):\n",
               s.starvation.jobs, s.starvation.wait_factor);
    for (const auto& j : s.starvation.worst)
      fmt::print(os, "  {} (queue {}) {} {} for a {} run; {} later, smaller job(s) placed before it\n", j.name, j.queue,
                 j.placed ? "waited" : "still waiting after", human_duration(j.waited_s), human_duration(j.run_s), j.overtaken_by);
    fmt::print(os, "  Remedy: the sla plugin (sla-waiting-time as its argument, or per job as the annotation): past its "
                   "waiting time a job is admitted to Inqueue, and — with sla in a tier before gang's — allocate holds the "
                   "resources it finds until its whole gang fits (docs/volcano.md).\n");
  }
  if (const CrossQueueStarvation& x = s.cross_queue_starvation; x.jobs > 0) {
    fmt::print(os, "Cross-queue starvation: {} job(s) waited more than {:g}x their run time while later jobs of other queues "
                   "were placed first, in sessions where the two queues tied (Volcano's allocate takes queues in QueueOrderFn "
                   "order: spec.priority, then share; on a tie the Queue created first, then the lower UID, "
                   "framework/session_plugins.go):\n",
               x.jobs, x.wait_factor);
    for (const auto& j : x.worst) {
      std::string by;
      for (std::size_t k = 0; k < j.by_queue.size() && k < 3; ++k)
        by += fmt::format("{}{} of queue {}", k ? ", " : "", j.by_queue[k].second, j.by_queue[k].first);
      if (j.by_queue.size() > 3) by += fmt::format(", and of {} other queue(s)", j.by_queue.size() - 3);
      fmt::print(os, "  {} (queue {}) {} {} for a {} run; {} later job(s) of other queues placed before it ({}){}\n", j.name,
                 j.queue, j.placed ? "waited" : "still waiting after", human_duration(j.waited_s), human_duration(j.run_s),
                 j.overtaken_by, by,
                 j.tie_sessions > 0 ? fmt::format("; in {} session(s) another queue's job went first on a queue-order tie "
                                                  "(the first: queue {})",
                                                  j.tie_sessions, j.tie_winner)
                                    : std::string());
    }
    if (x.tie_jobs > 0) {
      const auto first_tie = std::find_if(x.worst.begin(), x.worst.end(), [](const auto& j) { return j.tie_sessions > 0; });
      fmt::print(os, "  Queue-order ties (measured in the scheduler's sessions): {} of these jobs waited through {} session(s) "
                     "in which a job of another queue was placed while every queue order function answered 0 for the two "
                     "queues (proportion's and capacity's: equal spec.priority and equal share) and Volcano's QueueOrderFn fallback put the other queue "
                     "first{}.\n",
                 x.tie_jobs, x.tie_sessions,
                 first_tie == x.worst.end() ? std::string()
                 : first_tie->tie_by_uid
                     ? fmt::format(" (e.g. queue {} over {}: equal creation times — the scenario's queues are all created "
                                   "at t = 0 — so the lower UID, in Volcano's scheduler the queue's name, won)",
                                   first_tie->tie_winner, first_tie->queue)
                     : fmt::format(" (e.g. queue {} over {}: the Queue created first won)", first_tie->tie_winner, first_tie->queue));
    }
    const auto& w = x.worst.front();
    const std::string over = w.tie_sessions > 0 ? w.tie_winner : w.by_queue.front().first;
    fmt::print(os, "  Remedy: a higher spec.priority for queue {} than for queue {} (proportion and capacity compare the "
                   "Queues' spec.priority before their shares; a larger weight does not break a tie between queues that hold "
                   "nothing, whose shares are both 0).\n",
               w.queue, over);
  }
  for (const auto& q : s.short_queues) {
    fmt::print(os, "Queue share (proportion): queue {} (weight {} of {} among the queues with jobs) deserves {:.1f} of the "
                   "cluster's {:g} NeuronCores when every queue asks for its share, less than its smallest job ({:g}): its {} "
                   "job(s) above that share run only while other queues leave part of theirs unused (their mean queueing "
                   "{}).\n",
               q.queue, q.weight, q.total_weight, q.share_neuroncores, q.total_neuroncores, q.smallest_neuroncores, q.jobs,
               human_duration(q.mean_queueing_s));
    std::string remedy;
    if (q.weight_for_smallest > 0) remedy = fmt::format("weight >= {} (its smallest job)", q.weight_for_smallest);
    if (q.weight_for_largest > 0) remedy += fmt::format(", >= {} (its largest, {:g} NeuronCores)", q.weight_for_largest, q.largest_neuroncores);
    else remedy += fmt::format("{}no weight is enough for its largest ({:g} NeuronCores)", remedy.empty() ? "" : "; ", q.largest_neuroncores);
    const bool locked = s.deadlock && std::count(s.deadlock->queues.begin(), s.deadlock->queues.end(), q.queue) > 0;
    fmt::print(os, "  Remedy: {}; or a guarantee (spec.guarantee.resource) and capability of at least its largest job{}.\n", remedy,
               locked ? " — for one deadlocked queue only (see Deadlock)" : "");
  }
  if (s.deadlock) {
    const Deadlock& d = *s.deadlock;
    std::string queues;
    for (const auto& q : d.queues) queues += (queues.empty() ? "" : ", ") + q;
    fmt::print(os, "Deadlock: queues {} each deserve less than their smallest job (above), so proportion refuses every gang "
                   "and nothing runs: the run ended with {} job(s) waiting on an idle cluster. Remedy: {}a guarantee "
                   "(spec.guarantee.resource) of at least its smallest job for one of these queues. Raising every "
                   "deadlocked queue's weight keeps the lock.\n",
               queues, d.waiting,
               d.unlock_queue.empty()
                   ? std::string()
                   : fmt::format("raise one queue's weight — queue {} to {} — so that its smallest job fits its share; "
                                 "once it asks for nothing more, the others' shares grow. Or ",
                                 d.unlock_queue, d.unlock_weight));
  }
  if (s.reclaim_churn.jobs > 0) {
    std::string queues;
    for (const auto& q : s.reclaim_churn.queues) queues += (queues.empty() ? "" : ", ") + q;
    fmt::print(os, "Reclaim churn: {} job(s) of queue(s) {} were evicted by reclaim more than once ({} evictions; each "
                   "restarts the whole job): Volcano's reclaim takes pods, one by one, from any queue holding more than its "
                   "deserved share for a queue whose next pod fits within its own, so a gang larger than its queue's share "
                   "is reclaimed each time it is placed:\n",
               s.reclaim_churn.jobs, queues, s.reclaim_churn.evictions);
    for (const auto& j : s.reclaim_churn.worst)
      fmt::print(os, "  {} (queue {}) evicted {} times, training lost {}, ends {}\n", j.name, j.queue, j.evictions,
                 human_duration(j.lost_training_s), j.phase);
    fmt::print(os, "  Remedy: queue shares that hold whole gangs and sum to at most the cluster (proportion's weights, "
                   "or capacity's spec.deserved), so a gang within its share is never a victim; or reclaimable: false on "
                   "the queues (docs/volcano.md).\n");
  }
  // Each node at its own rate: the catalog's on-demand price, or its group's Spot price.
  // Whole dollars from $1,000 on, cents below (a short run costs a few dollars).
  fmt::print(os, "{} cost of the node groups over the run: ${}\n", s.spot ? "On-Demand and Spot" : "On-demand",
             s.cost_usd >= 1000 ? fmt::format("{:.0f}", s.cost_usd) : fmt::format("{:.2f}", s.cost_usd));
  if (s.derived) {
    const double total = s.job_time_s();
    auto pct = [&](double x) { return total > 0 ? 100.0 * x / total : 0.0; };
    fmt::print(os, "Job time on nodes (duration model derived): {} in all, ${:.2f} of NeuronCore time\n", human_duration(total),
               s.job_time_usd());
    const std::pair<const char*, const RunSummary::Share*> rows[] = {
        {"computing", &s.compute}, {"communicating (all-reduce)", &s.communication},
        {"synchronisation (stragglers)", &s.sync}, {"compiling (Neuron)", &s.compiling},
        {"starting up (other)", &s.starting}, {"lost work (redone)", &s.lost}};
    for (const auto& [name, sh] : rows)
      fmt::print(os, "  {:<30} {:>5.1f}%  {:>8}  ${:.2f}\n", name, pct(sh->s), human_duration(sh->s), sh->usd);
    if (s.contention)
      fmt::print(os, "Fabric shared by the jobs: {} step-time changes (a job slowed down or sped up as another started or "
                     "stopped on its EFA links)\n", s.retimes);
  }
}

}  // namespace mltwin::io
