#include "mltwin/policy/resource.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "mltwin/policy/objects.hpp"
#include "mltwin/policy/status.hpp"

namespace mltwin::policy {

namespace {
std::string num(double x) {
  if (x == kInf) return "unlimited";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

/// Bytes in the largest of Kubernetes' binary suffixes (Ki ... Ei) that leaves at least 1, with
/// six significant digits: 10Mi, 512Mi, 1.5Gi, 508.98Gi (each also a valid quantity).
std::string bytes_text(double b) {
  if (b == kInf) return num(b);
  static constexpr std::pair<const char*, double> kSuffixes[] = {
      {"Ei", 1152921504606846976.0}, {"Pi", 1125899906842624.0}, {"Ti", 1099511627776.0},
      {"Gi", 1073741824.0},          {"Mi", 1048576.0},          {"Ki", 1024.0}};
  for (const auto& [suffix, unit] : kSuffixes)
    if (std::fabs(b) >= unit) return num(b / unit) + suffix;
  return num(b);
}

// The interning table: append-only; ids never change once given.
struct NameTable {
  std::mutex mu;
  std::deque<std::string> names;  // deque: string_views into it stay valid
  std::unordered_map<std::string_view, std::uint16_t> ids;
  NameTable() {
    for (const char* n : {"cpu", "memory", "pods", "ephemeral-storage", "aws.amazon.com/neuron",
                          "aws.amazon.com/neurondevice", "aws.amazon.com/neuroncore", "vpc.amazonaws.com/efa",
                          "nvidia.com/gpu"}) {
      names.emplace_back(n);
      ids.emplace(names.back(), static_cast<std::uint16_t>(names.size() - 1));
    }
  }
};
NameTable& table() {
  static NameTable t;
  return t;
}
bool less_equal_1(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }
}  // namespace

ResourceName ResourceName::intern(std::string_view name) {
  NameTable& t = table();
  std::lock_guard lock(t.mu);
  if (auto it = t.ids.find(name); it != t.ids.end()) return ResourceName(it->second);
  if (t.names.size() >= 0xffff) throw std::length_error("more than 65,535 distinct resource names");
  t.names.emplace_back(name);
  const auto id = static_cast<std::uint16_t>(t.names.size() - 1);
  t.ids.emplace(t.names.back(), id);
  return ResourceName(id);
}

std::optional<ResourceName> ResourceName::find(std::string_view name) {
  NameTable& t = table();
  std::lock_guard lock(t.mu);
  if (auto it = t.ids.find(name); it != t.ids.end()) return ResourceName(it->second);
  return std::nullopt;
}

std::string_view ResourceName::str() const {
  NameTable& t = table();
  std::lock_guard lock(t.mu);
  return id_ < t.names.size() ? std::string_view(t.names[id_]) : std::string_view("?");
}

// ---- ScalarResources ----

void ScalarResources::release_heap() noexcept {
  delete heap_;
  spilled_ = false;
  n_ = 0;
}

void ScalarResources::assign_heap(const ScalarResources& o) {
  if (!spilled_ || heap_->cap < o.n_) {
    if (spilled_) release_heap();
    auto* h = new Heap{o.heap_->cap, std::make_unique<std::uint16_t[]>(o.heap_->cap), std::make_unique<double[]>(o.heap_->cap)};
    heap_ = h;
    spilled_ = true;
  }
  std::copy(o.heap_->ids.get(), o.heap_->ids.get() + o.n_, heap_->ids.get());
  std::copy(o.heap_->vals.get(), o.heap_->vals.get() + o.n_, heap_->vals.get());
  n_ = o.n_;
}

void ScalarResources::grow() {
  const std::uint32_t cap = spilled_ ? heap_->cap * 2 : kInline * 2u;
  if (cap > 0xffff) throw std::length_error("a Resource with more than 65,535 resource names");
  auto* h = new Heap{cap, std::make_unique<std::uint16_t[]>(cap), std::make_unique<double[]>(cap)};
  std::copy(ids(), ids() + n_, h->ids.get());
  std::copy(vals(), vals() + n_, h->vals.get());
  if (spilled_) delete heap_;
  heap_ = h;
  spilled_ = true;
}

double& ScalarResources::at(ResourceName name) {
  std::uint16_t* id = ids();
  std::uint32_t i = 0;
  while (i < n_ && id[i] < name.id()) ++i;
  if (i < n_ && id[i] == name.id()) return vals()[i];
  if (n_ == (spilled_ ? heap_->cap : kInline)) {
    grow();
    id = ids();
  }
  double* v = vals();
  for (std::uint32_t k = n_; k > i; --k) {
    id[k] = id[k - 1];
    v[k] = v[k - 1];
  }
  id[i] = name.id();
  v[i] = 0.0;
  ++n_;
  return v[i];
}

void ScalarResources::erase(ResourceName name) {
  const int at_i = index_of(name);
  if (at_i < 0) return;
  std::uint16_t* id = ids();
  double* v = vals();
  for (std::uint32_t k = static_cast<std::uint32_t>(at_i) + 1; k < n_; ++k) {
    id[k - 1] = id[k];
    v[k - 1] = v[k];
  }
  --n_;
}

bool operator==(const ScalarResources& a, const ScalarResources& b) {
  if (a.n_ != b.n_) return false;
  for (std::uint32_t i = 0; i < a.n_; ++i)
    if (a.ids()[i] != b.ids()[i] || !(a.vals()[i] == b.vals()[i])) return false;
  return true;
}

// ---- Resource ----

namespace {
// this[name] op= rr[name] for every name of rr: one pass when this has all of rr's names in
// the same order (the usual case: a node's or job's sum already holds its tasks' names).
template <class Op>
void merge_into(ScalarResources& l, const ScalarResources& r, Op op) {
  const std::size_t nr = r.size(), nl = l.size();
  std::size_t i = 0, j = 0;
  for (; j < nr; ++j) {
    const ResourceName name = r.name_at(j);
    while (i < nl && l.name_at(i) < name) ++i;
    if (i == nl || l.name_at(i) != name) break;
    op(l.value_at(i), r.value_at(j));
  }
  for (; j < nr; ++j) op(l.at(r.name_at(j)), r.value_at(j));
}
}  // namespace

Resource& Resource::add_slow(const Resource& rr) {
  merge_into(scalars, rr.scalars, [](double& l, double r) { l += r; });
  return *this;
}

Resource& Resource::sub_slow(const Resource& rr) {
  merge_into(scalars, rr.scalars, [](double& l, double r) { l -= r; });
  return *this;
}

Resource& Resource::multi(double ratio) {
  milli_cpu *= ratio;
  memory *= ratio;
  for (std::size_t i = 0; i < scalars.size(); ++i) scalars.value_at(i) *= ratio;
  return *this;
}

bool Resource::is_empty() const {
  if (!(milli_cpu < kMinResource && memory < kMinResource)) return false;
  for (const auto& e : scalars) {
    if (e.name == rn::kPods) continue;  // ignoredScalarResources
    if (e.value >= kMinResource) return false;
  }
  return true;
}

bool Resource::is_zero(ResourceName name) const {
  if (name == rn::kCpu) return milli_cpu < kMinResource;
  if (name == rn::kMemory) return memory < kMinResource;
  return scalars.get(name) < kMinResource;
}

bool Resource::less(const Resource& rr, DimensionDefault dv) const {
  if (!(milli_cpu < rr.milli_cpu) || !(memory < rr.memory)) return false;
  if (dv == DimensionDefault::Infinity)
    for (const auto& e : rr.scalars)
      if (!scalars.find(e.name)) return false;
  for (const auto& e : scalars) {
    const double* r = rr.scalars.find(e.name);
    if (!r && dv == DimensionDefault::Infinity) continue;
    if (!(e.value < (r ? *r : 0.0))) return false;
  }
  return true;
}

bool Resource::less_equal(const Resource& rr, DimensionDefault dv) const {
  if (!less_equal_1(milli_cpu, rr.milli_cpu) || !less_equal_1(memory, rr.memory)) return false;
  if (dv == DimensionDefault::Zero) {  // both maps sorted by name: one cursor over rr's
    ScalarCursor c(rr.scalars);
    for (std::size_t i = 0; i < scalars.size(); ++i) {
      const double* r = c.find(scalars.name_at(i));
      if (!less_equal_1(scalars.value_at(i), r ? *r : 0.0)) return false;
    }
    return true;
  }
  if (dv == DimensionDefault::Infinity)
    for (const auto& e : rr.scalars)
      if (!scalars.find(e.name)) return false;
  for (const auto& e : scalars) {
    const double* r = rr.scalars.find(e.name);
    if (!r && dv == DimensionDefault::Infinity) continue;
    if (!less_equal_1(e.value, r ? *r : 0.0)) return false;
  }
  return true;
}

bool Resource::less_equal_with_dimension(const Resource& rr, const Resource& req) const {
  if (req.milli_cpu > 0 && milli_cpu > rr.milli_cpu) return false;
  if (req.memory > 0 && memory > rr.memory) return false;
  if (scalars.empty()) return true;  // "if r.scalar is nil, whatever rr.scalar is"
  for (const auto& e : req.scalars) {
    if (e.name == rn::kPods) continue;
    if (e.value > 0 && scalars.get(e.name) > rr.scalars.get(e.name)) return false;
  }
  return true;
}

std::optional<ResourceName> Resource::first_insufficient(const Resource& rr, DimensionDefault dv) const {
  if (!less_equal_1(milli_cpu, rr.milli_cpu)) return rn::kCpu;
  if (!less_equal_1(memory, rr.memory)) return rn::kMemory;
  for (const auto& e : scalars) {
    const double* r = rr.scalars.find(e.name);
    if (!r && dv == DimensionDefault::Infinity) continue;
    if (!less_equal_1(e.value, r ? *r : 0.0)) return e.name;
  }
  return std::nullopt;
}

std::optional<ResourceName> Resource::first_insufficient_of_sum(const Resource& a, const Resource& b,
                                                               const Resource& c) const {
  if (!less_equal_1(milli_cpu, (a.milli_cpu + b.milli_cpu) - c.milli_cpu)) return rn::kCpu;
  if (!less_equal_1(memory, (a.memory + b.memory) - c.memory)) return rn::kMemory;
  if (a.scalars.same_names(b.scalars) && a.scalars.same_names(c.scalars)) {
    // The usual case (a node's idle, releasing and pipelined hold its allocatable's names):
    // one cursor for the three.
    ScalarCursor ca(a.scalars);
    for (std::size_t i = 0; i < scalars.size(); ++i) {
      const ResourceName name = scalars.name_at(i);
      const double* xa = ca.find(name);
      double r = 0.0;
      if (xa) {
        const std::size_t k = static_cast<std::size_t>(xa - &a.scalars.value_at(0));
        r = (*xa + b.scalars.value_at(k)) - c.scalars.value_at(k);
      }
      if (!less_equal_1(scalars.value_at(i), r)) return name;
    }
    return std::nullopt;
  }
  ScalarCursor ca(a.scalars), cb(b.scalars), cc(c.scalars);
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    const ResourceName name = scalars.name_at(i);
    // Resource::add and sub touch only the names the right side has: a name b (or c) lacks
    // keeps a's value exactly.
    const double* xa = ca.find(name);
    double r = xa ? *xa : 0.0;
    if (const double* x = cb.find(name)) r += *x;
    if (const double* x = cc.find(name)) r -= *x;
    if (!less_equal_1(scalars.value_at(i), r)) return name;
  }
  return std::nullopt;
}

bool Resource::less_partly(const Resource& rr, DimensionDefault dv) const {
  if (milli_cpu < rr.milli_cpu || memory < rr.memory) return true;
  if (dv == DimensionDefault::Zero)
    for (const auto& e : rr.scalars)
      if (!scalars.find(e.name)) return true;
  for (const auto& e : scalars) {
    const double* r = rr.scalars.find(e.name);
    if (!r && dv == DimensionDefault::Infinity) return true;
    if (e.value < (r ? *r : 0.0)) return true;
  }
  return false;
}

bool Resource::less_equal_partly(const Resource& rr, DimensionDefault dv) const {
  if (less_equal_1(milli_cpu, rr.milli_cpu) || less_equal_1(memory, rr.memory)) return true;
  if (dv == DimensionDefault::Zero)
    for (const auto& e : rr.scalars)
      if (!scalars.find(e.name)) return true;
  for (const auto& e : scalars) {
    const double* r = rr.scalars.find(e.name);
    if (!r && dv == DimensionDefault::Infinity) return true;
    if (less_equal_1(e.value, r ? *r : 0.0)) return true;
  }
  return false;
}

bool Resource::equal(const Resource& rr) const {
  auto eq = [](double l, double r) { return l == r || std::fabs(l - r) < kMinResource; };
  if (!eq(milli_cpu, rr.milli_cpu) || !eq(memory, rr.memory)) return false;
  for (const auto& e : scalars)
    if (!eq(e.value, rr.scalars.get(e.name))) return false;
  return true;
}

Resource& Resource::min_dimension_resource(const Resource& rr, DimensionDefault dv) {
  if (rr.milli_cpu < milli_cpu) milli_cpu = rr.milli_cpu;
  if (rr.memory < memory) memory = rr.memory;
  if (scalars.empty()) return *this;
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    double& v = scalars.value_at(i);
    if (const double* r = rr.scalars.find(scalars.name_at(i))) v = std::fmin(v, *r);
    else if (dv == DimensionDefault::Zero) v = 0;
  }
  return *this;
}

void Resource::set_max_resource(const Resource& rr) {
  if (rr.milli_cpu > milli_cpu) milli_cpu = rr.milli_cpu;
  if (rr.memory > memory) memory = rr.memory;
  if (scalars.empty() && !rr.scalars.empty()) {  // Go: copies rr's map and returns
    scalars = rr.scalars;
    return;
  }
  for (const auto& e : rr.scalars) {
    double* l = scalars.find(e.name);
    if (!l) scalars.set(e.name, e.value);
    else if (e.value > *l) *l = e.value;
  }
}

std::pair<Resource, Resource> Resource::diff(const Resource& rr, DimensionDefault dv) const {
  // setDefaultValue: a scalar one side lacks reads as the default on that side (Go writes
  // float64(Infinity) = -1 there, which Diff then treats as "infinite"; only Zero is used).
  if (dv != DimensionDefault::Zero) throw std::invalid_argument("Resource::diff: only DimensionDefault::Zero");
  Resource inc, dec;
  if (milli_cpu > rr.milli_cpu) inc.milli_cpu = milli_cpu - rr.milli_cpu;
  else dec.milli_cpu = rr.milli_cpu - milli_cpu;
  if (memory > rr.memory) inc.memory = memory - rr.memory;
  else dec.memory = rr.memory - memory;
  // Over the union of names, in id order (both maps are sorted).
  auto visit = [&](ResourceName n, double l, double r) {
    // Upstream takes a value of exactly float64(Infinity) = -1 for "infinite" whatever the
    // default (resource_info.go:622-628): reproduced, though sums of requests never reach it.
    if (l == -1) inc.scalars.append(n, l);
    else if (r == -1) dec.scalars.append(n, r);
    else if (l > r) inc.scalars.append(n, l - r);
    else dec.scalars.append(n, r - l);
  };
  std::size_t a = 0, b = 0;
  const std::size_t na = scalars.size(), nb = rr.scalars.size();
  while (a < na || b < nb) {
    if (b == nb || (a < na && scalars.name_at(a) < rr.scalars.name_at(b))) {
      visit(scalars.name_at(a), scalars.value_at(a), 0.0);
      ++a;
    } else if (a == na || rr.scalars.name_at(b) < scalars.name_at(a)) {
      visit(rr.scalars.name_at(b), 0.0, rr.scalars.value_at(b));
      ++b;
    } else {
      visit(scalars.name_at(a), scalars.value_at(a), rr.scalars.value_at(b));
      ++a, ++b;
    }
  }
  return {std::move(inc), std::move(dec)};
}

Resource Resource::exceeded_part(const Resource& left, const Resource& right) {
  // diff(right, Zero).first, without building the decreased part: the names where left exceeds
  // right (or is "infinite", -1), with the excess.
  Resource inc;
  inc.add_exceeded_part(left, right);
  return inc;
}

Resource& Resource::add_exceeded_part(const Resource& left, const Resource& right) {
  // exceeded_part's cpu and memory are 0 where left does not exceed right: adding 0.0 there
  // leaves the sum as add() would.
  milli_cpu += left.milli_cpu > right.milli_cpu ? left.milli_cpu - right.milli_cpu : 0.0;
  memory += left.memory > right.memory ? left.memory - right.memory : 0.0;
  auto visit = [&](ResourceName n, double l, double r) {
    if (l == -1) scalars.at(n) += l;
    else if (r == -1) return;
    else if (l > r) scalars.at(n) += l - r;
  };
  const ScalarResources &a = left.scalars, &b = right.scalars;
  const std::size_t na = a.size(), nb = b.size();
  if (a.same_names(b)) {
    for (std::size_t k = 0; k < na; ++k) visit(a.name_at(k), a.value_at(k), b.value_at(k));
    return *this;
  }
  std::size_t i = 0, j = 0;
  while (i < na || j < nb) {
    if (j == nb || (i < na && a.name_at(i) < b.name_at(j))) {
      visit(a.name_at(i), a.value_at(i), 0.0);
      ++i;
    } else if (i == na || b.name_at(j) < a.name_at(i)) {
      visit(b.name_at(j), 0.0, b.value_at(j));
      ++j;
    } else {
      visit(a.name_at(i), a.value_at(i), b.value_at(j));
      ++i, ++j;
    }
  }
  return *this;
}

Resource Resource::max(const Resource& l, const Resource& r) {
  Resource res;
  res.milli_cpu = std::fmax(l.milli_cpu, r.milli_cpu);
  res.memory = std::fmax(l.memory, r.memory);
  // Over the union of names in id order (both sorted): a name is kept where a side has it
  // above 0, with the larger such value (helpers.go:57-70 sets l's, then max(r's, l's)).
  const ScalarResources &a = l.scalars, &b = r.scalars;
  const std::size_t na = a.size(), nb = b.size();
  std::size_t i = 0, j = 0;
  while (i < na || j < nb) {
    if (j == nb || (i < na && a.name_at(i) < b.name_at(j))) {
      if (a.value_at(i) > 0) res.scalars.append(a.name_at(i), a.value_at(i));
      ++i;
    } else if (i == na || b.name_at(j) < a.name_at(i)) {
      if (b.value_at(j) > 0) res.scalars.append(b.name_at(j), b.value_at(j));
      ++j;
    } else {
      const double lv = a.value_at(i), rv = b.value_at(j);
      if (rv > 0) res.scalars.append(a.name_at(i), std::fmax(rv, lv > 0 ? lv : 0.0));
      else if (lv > 0) res.scalars.append(a.name_at(i), lv);
      ++i, ++j;
    }
  }
  return res;
}

std::vector<ResourceName> Resource::resource_names() const {
  std::vector<ResourceName> out;
  if (milli_cpu >= kMinResource) out.push_back(rn::kCpu);
  if (memory >= kMinResource) out.push_back(rn::kMemory);
  for (const auto& e : scalars)
    if (e.value >= kMinResource) out.push_back(e.name);
  return out;
}

std::string Resource::to_string() const {
  const std::string mem = bytes_text(memory);
  std::string s = "cpu " + num(milli_cpu / 1000.0) + ", memory " + mem;
  for (const auto& e : scalars) {
    s += ", ";
    s += e.name.str();
    s += " ";
    // Byte-valued scalars (Quantity.MilliValue of bytes) in Gi like memory; counts as counts.
    const std::string_view n = e.name.str();
    if (e.name == rn::kEphemeralStorage || n.starts_with("hugepages-")) s += bytes_text(e.value / 1000.0);
    else s += num(e.name == rn::kPods ? e.value : e.value / 1000.0);
  }
  return s;
}

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t dot = s.find('.', start);
    const std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return false;
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!alnum(label.front()) || !alnum(label.back())) return false;
    for (char c : label)
      if (!alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}
bool is_qualified_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

bool is_scalar_resource_name(std::string_view n) {
  if (n == "pods" || n == "ephemeral-storage") return true;
  if (n.starts_with("hugepages-") || n.starts_with("attachable-volumes-")) return true;
  if (n.starts_with("requests.")) return false;
  // Prefixed native (kubernetes.io/...) or extended: a qualified name with a domain prefix
  // (k8s v1helper IsExtendedResourceName checks "requests." + name is a qualified name).
  const auto slash = n.find('/');
  if (slash == std::string_view::npos) return false;
  return is_dns1123_subdomain(n.substr(0, slash)) && is_qualified_name_part(n.substr(slash + 1));
}

bool neuron_names_mixed(const Resource& r) {
  int k = 0;
  for (ResourceName n : {rn::kNeuron, rn::kNeuronDevice, rn::kNeuronCore})
    if (r.scalars.get(n) > 0) ++k;
  return k > 1;
}

const char* to_string(TaskStatus s) {
  static const char* names[] = {"Pending", "Allocated", "Pipelined", "Binding", "Bound",
                                "Running", "Releasing", "Succeeded", "Failed",  "Unknown"};
  return names[static_cast<int>(s)];
}

const char* to_string(PodGroupPhase p) {
  static const char* names[] = {"Pending", "Inqueue", "Running", "Unknown", "Completed"};
  return names[static_cast<int>(p)];
}

const char* to_string(Code c) {
  static const char* names[] = {"Success", "Unschedulable", "UnschedulableAndUnresolvable",
                                "Error",   "Wait",          "Skip"};
  return names[static_cast<int>(c)];
}

std::string FitErrors::to_string() const {
  // Volcano v1.12.1 api/unschedule_info.go FitErrors.Error(): "0/<nodes> nodes are
  // unavailable", then each reason as "<count> <reason>", the list sorted as strings
  // (sort.Strings, byte-wise: "10 x" sorts before "9 x"), joined by ", ", and a full stop.
  std::string s = "0/" + std::to_string(nodes) + " nodes are unavailable";
  if (nodes == 0) return s;
  std::vector<std::string> parts;
  parts.reserve(count.size());
  for (const auto& [reason, n] : count) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  s += ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) s += ", ";
    s += parts[i];
  }
  return s + ".";
}

}  // namespace mltwin::policy
