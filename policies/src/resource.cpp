#include "mltwin/policy/resource.hpp"

#include <algorithm>
#include <cstdio>
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

void ScalarResources::assign(const ScalarResources& o) {
  if (o.n_ > cap_) {
    heap_ = std::make_unique<Entry[]>(o.n_);
    cap_ = o.n_;
  }
  std::copy(o.begin(), o.end(), data());
  n_ = o.n_;
}

double& ScalarResources::at(ResourceName name) {
  Entry* d = data();
  std::uint32_t i = 0;
  while (i < n_ && d[i].name < name) ++i;
  if (i < n_ && d[i].name == name) return d[i].value;
  if (n_ == cap_) {
    const std::uint32_t cap = cap_ * 2;
    auto h = std::make_unique<Entry[]>(cap);
    std::copy(d, d + n_, h.get());
    heap_ = std::move(h);
    cap_ = cap;
    d = heap_.get();
  }
  for (std::uint32_t k = n_; k > i; --k) d[k] = d[k - 1];
  d[i] = Entry{name, 0.0};
  ++n_;
  return d[i].value;
}

void ScalarResources::erase(ResourceName name) {
  Entry* d = data();
  for (std::uint32_t i = 0; i < n_; ++i)
    if (d[i].name == name) {
      for (std::uint32_t k = i + 1; k < n_; ++k) d[k - 1] = d[k];
      --n_;
      return;
    }
}

bool operator==(const ScalarResources& a, const ScalarResources& b) {
  if (a.n_ != b.n_) return false;
  for (std::uint32_t i = 0; i < a.n_; ++i)
    if (a.begin()[i].name != b.begin()[i].name || !(a.begin()[i].value == b.begin()[i].value)) return false;
  return true;
}

// ---- Resource ----

Resource& Resource::add(const Resource& rr) {
  milli_cpu += rr.milli_cpu;
  memory += rr.memory;
  for (const auto& e : rr.scalars) scalars.at(e.name) += e.value;
  return *this;
}

Resource& Resource::sub(const Resource& rr) {
  milli_cpu -= rr.milli_cpu;
  memory -= rr.memory;
  if (scalars.empty()) return *this;  // Go: a nil map is left alone
  for (const auto& e : rr.scalars) scalars.at(e.name) -= e.value;
  return *this;
}

Resource& Resource::multi(double ratio) {
  milli_cpu *= ratio;
  memory *= ratio;
  for (auto& e : scalars) e.value *= ratio;
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
  for (auto& e : scalars) {
    if (const double* r = rr.scalars.find(e.name)) e.value = std::fmin(e.value, *r);
    else if (dv == DimensionDefault::Zero) e.value = 0;
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
    if (l == -1) inc.scalars.set(n, l);
    else if (r == -1) dec.scalars.set(n, r);
    else if (l > r) inc.scalars.set(n, l - r);
    else dec.scalars.set(n, r - l);
  };
  const auto* a = scalars.begin();
  const auto* ae = scalars.end();
  const auto* b = rr.scalars.begin();
  const auto* be = rr.scalars.end();
  while (a != ae || b != be) {
    if (b == be || (a != ae && a->name < b->name)) {
      visit(a->name, a->value, 0.0);
      ++a;
    } else if (a == ae || b->name < a->name) {
      visit(b->name, 0.0, b->value);
      ++b;
    } else {
      visit(a->name, a->value, b->value);
      ++a, ++b;
    }
  }
  return {std::move(inc), std::move(dec)};
}

Resource Resource::exceeded_part(const Resource& left, const Resource& right) {
  return left.diff(right, DimensionDefault::Zero).first;
}

Resource Resource::max(const Resource& l, const Resource& r) {
  Resource res;
  res.milli_cpu = std::fmax(l.milli_cpu, r.milli_cpu);
  res.memory = std::fmax(l.memory, r.memory);
  for (const auto& e : l.scalars)
    if (e.value > 0) res.scalars.set(e.name, e.value);
  for (const auto& e : r.scalars)
    if (e.value > 0) res.scalars.set(e.name, std::fmax(e.value, res.scalars.get(e.name)));
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
  const std::string mem = memory == kInf ? num(memory) : num(memory / (1024.0 * 1024 * 1024)) + "Gi";
  std::string s = "cpu " + num(milli_cpu / 1000.0) + ", memory " + mem;
  for (const auto& e : scalars) {
    s += ", ";
    s += e.name.str();
    s += " ";
    s += num(e.name == rn::kPods ? e.value : e.value / 1000.0);
  }
  return s;
}

namespace {
// k8s.io/apimachinery validation.IsDNS1123Subdomain: at most 253 characters of lower-case
// letters, digits, '-' and '.', each dot-separated label starting and ending alphanumeric.
bool dns1123_subdomain(std::string_view s) {
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
// validation.IsQualifiedName's name part: at most 63 characters, alphanumeric at both ends,
// '-', '_' and '.' inside.
bool qualified_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}
}  // namespace

bool is_scalar_resource_name(std::string_view n) {
  if (n == "pods" || n == "ephemeral-storage") return true;
  if (n.starts_with("hugepages-") || n.starts_with("attachable-volumes-")) return true;
  if (n.starts_with("requests.")) return false;
  // Prefixed native (kubernetes.io/...) or extended: a qualified name with a domain prefix
  // (k8s v1helper IsExtendedResourceName checks "requests." + name is a qualified name).
  const auto slash = n.find('/');
  if (slash == std::string_view::npos) return false;
  return dns1123_subdomain(n.substr(0, slash)) && qualified_name_part(n.substr(slash + 1));
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
