#include "mltwin/policy/queue_job_sums.hpp"

#include <cmath>

#include "mltwin/policy/cluster_state.hpp"

namespace mltwin::policy {
namespace {
const Resource kNoResource{};  // a job without minResources
constexpr double kExactLimit = 0x1p53;

// A term's value as int64: whole, non-negative and below 2^53, else nothing.
bool exact_value(double v, std::int64_t& out) {
  if (!(v >= 0) || v >= kExactLimit || v != std::floor(v)) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}
bool add_checked(std::int64_t& sum, std::int64_t v, int sign) {
  sum += sign * v;
  return sum >= 0 && sum < static_cast<std::int64_t>(kExactLimit);
}
}  // namespace

QueueJobSums::Sums QueueJobSums::terms_of(const JobInfo& j) {
  // proportion.go OnSessionOpen's job loop, term by term (see the header).
  Sums t;
  t.allocated = j.allocated;
  t.request.add(j.allocated).add(j.pending_request);
  const Resource& minres = j.has_min_resources ? j.min_resources : kNoResource;
  if (j.phase == PodGroupPhase::Inqueue) t.inqueue.add(minres);
  if (j.phase == PodGroupPhase::Running && j.has_min_resources && j.allocated_task_num() >= j.min_available)
    t.inqueue.add_exceeded_part(minres, j.allocated);
  t.elastic.add_exceeded_part(j.allocated, minres);
  return t;
}

std::vector<QueueJobSums::Sums> QueueJobSums::from_scratch(const ClusterState& st) {
  std::vector<Sums> out(st.queues().size());
  // The loop itself, sum by sum, over every live job: Pending PodGroups too (proportion.go:92
  // walks all of ssn.Jobs), whose pods, if they have any, count in request.
  std::vector<JobId> all(st.pending_jobs());
  all.insert(all.end(), st.active_jobs().begin(), st.active_jobs().end());
  for (JobId jid : all) {
    const JobInfo& j = st.job(jid);
    Sums& s = out[j.queue];
    s.allocated.add(j.allocated);
    s.request.add(j.allocated).add(j.pending_request);
    const Resource& minres = j.has_min_resources ? j.min_resources : kNoResource;
    if (j.phase == PodGroupPhase::Inqueue) s.inqueue.add(minres);
    if (j.phase == PodGroupPhase::Running && j.has_min_resources && j.allocated_task_num() >= j.min_available)
      s.inqueue.add_exceeded_part(minres, j.allocated);
    s.elastic.add_exceeded_part(j.allocated, minres);
  }
  return out;
}

bool QueueJobSums::apply(ExactResource& into, const Resource& term, int sign) {
  std::int64_t v;
  if (!exact_value(term.milli_cpu, v) || !add_checked(into.milli_cpu, v, sign)) return false;
  if (!exact_value(term.memory, v) || !add_checked(into.memory, v, sign)) return false;
  auto& cells = into.scalars;
  std::size_t i = 0;
  for (const auto& e : term.scalars) {  // both sorted by name id
    if (!exact_value(e.value, v)) return false;
    while (i < cells.size() && cells[i].id < e.name.id()) ++i;
    if (i == cells.size() || cells[i].id != e.name.id()) cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(i), Cell{e.name.id(), 0, 0});
    Cell& c = cells[i];
    c.terms += sign;
    if (!add_checked(c.sum, v, sign)) return false;
    if (c.terms == 0) cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return true;
}

Resource QueueJobSums::materialize(const ExactResource& e) {
  Resource r;
  r.milli_cpu = static_cast<double>(e.milli_cpu);
  r.memory = static_cast<double>(e.memory);
  for (const Cell& c : e.scalars) r.scalars.append(ResourceName(c.id), static_cast<double>(c.sum));
  return r;
}

bool QueueJobSums::refresh(const ClusterState& st) {
  if (!exact_) return false;
  const std::size_t nq = st.queues().size();
  if (exact_sums_.size() < nq) {
    exact_sums_.resize(nq);
    stale_.resize(nq, 1);
    sums_.resize(nq);
  }
  if (slot_of_.size() < st.jobs().size()) slot_of_.resize(st.jobs().size(), 0);
  for (JobId jid : marked_) {
    dirty_[jid] = 0;
    if (!exact_) continue;
    const JobInfo& j = st.job(jid);
    std::uint32_t& slot = slot_of_[jid];
    if (slot != 0) {  // take the old terms out
      const Sums& old = slots_[slot - 1];
      ExactSums& es = exact_sums_[slot_queue_[slot - 1]];
      exact_ = apply(es.part[0], old.allocated, -1) && apply(es.part[1], old.request, -1) &&
               apply(es.part[2], old.inqueue, -1) && apply(es.part[3], old.elastic, -1) &&
               apply(inqueue_all_exact_, old.inqueue, -1);
      stale_[slot_queue_[slot - 1]] = 1;
      free_slots_.push_back(slot - 1);
      slot = 0;
    }
    if (!exact_ || !j.live) continue;  // counted: every live job, Pending PodGroups too
    std::uint32_t s;
    if (!free_slots_.empty()) {
      s = free_slots_.back();
      free_slots_.pop_back();
    } else {
      s = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
      slot_queue_.push_back(0);
    }
    slots_[s] = terms_of(j);
    slot_queue_[s] = j.queue;
    slot = s + 1;
    const Sums& t = slots_[s];
    ExactSums& es = exact_sums_[j.queue];
    exact_ = apply(es.part[0], t.allocated, 1) && apply(es.part[1], t.request, 1) &&
             apply(es.part[2], t.inqueue, 1) && apply(es.part[3], t.elastic, 1) &&
             apply(inqueue_all_exact_, t.inqueue, 1);
    stale_[j.queue] = 1;
  }
  if (!marked_.empty()) inqueue_all_stale_ = true;
  marked_.clear();
  if (!exact_) {  // for good: free what was kept
    slots_.clear();
    exact_sums_.clear();
    sums_.clear();
    return false;
  }
  for (std::size_t q = 0; q < nq; ++q) {
    if (!stale_[q]) continue;
    Sums& s = sums_[q];
    const ExactSums& es = exact_sums_[q];
    s.allocated = materialize(es.part[0]);
    s.request = materialize(es.part[1]);
    s.inqueue = materialize(es.part[2]);
    s.elastic = materialize(es.part[3]);
    stale_[q] = 0;
  }
  if (inqueue_all_stale_) {
    inqueue_all_ = materialize(inqueue_all_exact_);
    inqueue_all_stale_ = false;
  }
  return true;
}

const QueueJobSums::Sums& QueueJobSums::queue(QueueId q) const {
  static const Sums kEmpty{};
  return q < sums_.size() ? sums_[q] : kEmpty;
}

}  // namespace mltwin::policy
