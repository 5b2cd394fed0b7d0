// catalog.cpp — the shipped instance catalog (mltwin/io/catalog.hpp): where it is, reading and
// checking its rows, a scenario's rows over it, the scenario format version. The rewrite of a
// version-1 scenario: scenario_migrate.cpp.
#include "mltwin/io/catalog.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "catalog_schema.hpp"    // generated: kCatalogSchema
#include "k8s_objects.hpp"
#include "scenario_common.hpp"

#if !defined(MLTWIN_SOURCE_CATALOG) || !defined(MLTWIN_INSTALL_CATALOG) || !defined(MLTWIN_DATADIR_FROM_BINDIR)
#error "MLTWIN_SOURCE_CATALOG, MLTWIN_INSTALL_CATALOG and MLTWIN_DATADIR_FROM_BINDIR must be defined by the build (io/CMakeLists.txt)"
#endif

namespace mltwin::io {

namespace fs = std::filesystem;
using nlohmann::json;
using detail::fail;

namespace {

const detail::SchemaValidator& catalog_validator() {
  static const detail::SchemaValidator v(kCatalogSchema);
  return v;
}

// The folder of the executable or shared object that holds this code ("" if unknown): an
// installed CLI finds the catalog under <that>/../share/mltwin/.
std::string binary_dir() {
  static const char anchor = 0;
  Dl_info info{};
  fs::path p;
  if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr) p = info.dli_fname;
  std::error_code ec;
  if (p.empty() || !p.is_absolute()) p = fs::read_symlink("/proc/self/exe", ec);
  if (ec || p.empty()) return {};
  return p.parent_path().string();
}

bool regular_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string plural(std::int64_t n, const std::string& one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

// One row of the catalog form (schema-checked) -> InstanceType, its figures checked against
// each other. `at` is the row's JSON pointer in `file`.
models::InstanceType row_of(const std::string& file, const std::string& at, const json& r) {
  models::InstanceType t;
  t.name = r["name"].get<std::string>();
  if (std::string p = detail::label_value_problem(t.name); !p.empty())
    fail(file, at + "/name", "instance type " + p + " (the value of the node label node.kubernetes.io/instance-type)");
  t.vcpu = r["vcpu"];
  t.memory_gib = r["memory_gib"];
  if (r.contains("accelerator")) {
    const json& a = r["accelerator"];
    const std::string aat = at + "/accelerator";
    t.accelerator = a["name"].get<std::string>();
    t.device_memory_gib = a["memory_gib"];
    const int devices = a["devices"];
    if (a["kind"] == "aws-neuron") {
      if (!a.contains("cores_per_device"))
        fail(file, aat, "an aws-neuron accelerator gives cores_per_device (the NeuronCores per device the runtime and device plugin count)");
      t.trainium_chips = devices;
      t.neuroncores_per_chip = a["cores_per_device"];
      if (a.contains("physical_cores_per_device")) {
        t.physical_neuroncores_per_chip = a["physical_cores_per_device"];
        if (t.physical_neuroncores_per_chip < t.neuroncores_per_chip)
          fail(file, aat + "/physical_cores_per_device",
               "fewer physical NeuronCores (" + std::to_string(t.physical_neuroncores_per_chip) + ") than cores_per_device (" +
                   std::to_string(t.neuroncores_per_chip) + "): a logical NeuronCore groups physical ones");
      }
    } else {
      for (const char* k : {"cores_per_device", "physical_cores_per_device"})
        if (a.contains(k)) fail(file, aat + "/" + k, "applies to aws-neuron accelerators (NeuronCores); an NVIDIA GPU is counted whole");
      t.nvidia_gpus = devices;
    }
  }
  for (auto it = r["extended_resources"].begin(); it != r["extended_resources"].end(); ++it)
    t.extended_resources.emplace_back(it.key(), it.value().get<std::int64_t>());
  std::sort(t.extended_resources.begin(), t.extended_resources.end());
  t.efa_interfaces = r.value("efa_interfaces", 0);
  t.network_gbps = r["network_gbps"];
  t.network_baseline_gbps = r.value("network_baseline_gbps", 0.0);
  if (t.network_baseline_gbps > t.network_gbps)
    fail(file, at + "/network_baseline_gbps",
         "the baseline bandwidth exceeds network_gbps (the burst figure of an 'up to' type)");
  t.instance_storage_gb = r.value("instance_storage_gb", 0.0);
  t.max_pods = r.value("max_pods", 0);
  if (r.contains("on_demand_usd_per_hour")) {
    t.has_on_demand_price = true;
    t.on_demand_usd_per_hour = r["on_demand_usd_per_hour"];
    if (!r.contains("price_region")) fail(file, at, "on_demand_usd_per_hour needs its price_region (e.g. \"us-east-1\")");
  }
  t.region_of_price = r.value("price_region", std::string());
  if (r.contains("spot")) {
    const json& s = r["spot"];
    t.spot = models::SpotPrice{s["usd_per_hour"], s["region"], s["date"], s["source"]};
  }
  t.source = r["source"].get<std::string>();
  t.assumptions = r.value("assumptions", std::string());

  // What the device plugins advertise agrees with the hardware.
  for (const auto& [name, count] : t.extended_resources) {
    const std::string rat = at + "/extended_resources/" + detail::pointer_token_of(name);
    if (name == "aws.amazon.com/neuron" || name == "aws.amazon.com/neurondevice") {
      if (t.trainium_chips == 0) fail(file, rat, "advertised, but the row has no aws-neuron accelerator");
      if (count != t.trainium_chips)
        fail(file, rat, plural(count, "Neuron device") + " advertised, but the accelerator has " + std::to_string(t.trainium_chips) +
                            " devices (the Neuron device plugin advertises one per device)");
    } else if (name == "aws.amazon.com/neuroncore") {
      if (t.trainium_chips == 0) fail(file, rat, "advertised, but the row has no aws-neuron accelerator");
      if (count != static_cast<std::int64_t>(t.trainium_chips) * t.neuroncores_per_chip)
        fail(file, rat, plural(count, "NeuronCore") + " advertised, but the accelerator has " + std::to_string(t.trainium_chips) +
                            " devices x " + std::to_string(t.neuroncores_per_chip) + " cores_per_device (" +
                            std::to_string(t.trainium_chips * t.neuroncores_per_chip) + ")");
    } else if (name == "nvidia.com/gpu") {
      if (t.nvidia_gpus == 0) fail(file, rat, "advertised, but the row has no nvidia-gpu accelerator");
      if (count != t.nvidia_gpus)
        fail(file, rat, plural(count, "GPU") + " advertised, but the accelerator has " + std::to_string(t.nvidia_gpus) + " devices");
    } else if (name == "vpc.amazonaws.com/efa") {
      if (count != t.efa_interfaces)
        fail(file, rat, plural(count, "EFA device") + " advertised, but efa_interfaces is " + std::to_string(t.efa_interfaces) +
                            " (the EFA device plugin advertises one per EFA interface)");
    }
  }
  return t;
}

// read_catalog, remembered per file while its size and modification time stay the same: a
// sweep loads its scenario many times, each reading the same catalog.
models::Catalog read_catalog_cached(const std::string& path) {
  struct Entry {
    fs::file_time_type mtime;
    std::uintmax_t size = 0;
    models::Catalog catalog;
  };
  static std::mutex mu;
  static std::map<std::string, Entry> cache;
  std::error_code ec1, ec2;
  const auto mtime = fs::last_write_time(path, ec1);
  const auto size = fs::file_size(path, ec2);
  if (!ec1 && !ec2) {
    const std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(path); it != cache.end() && it->second.mtime == mtime && it->second.size == size) return it->second.catalog;
  }
  models::Catalog c = read_catalog(path);
  if (!ec1 && !ec2) {
    const std::lock_guard<std::mutex> lock(mu);
    cache[path] = Entry{mtime, size, c};
  }
  return c;
}

}  // namespace

std::vector<CatalogCandidate> catalog_candidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {{explicit_path, "--catalog"}};
  if (const char* env = std::getenv(kCatalogEnv); env != nullptr && *env != '\0') return {{env, kCatalogEnv}};
  std::vector<CatalogCandidate> out;
  if (const std::string dir = binary_dir(); !dir.empty())
    out.push_back({(fs::path(dir) / MLTWIN_DATADIR_FROM_BINDIR / "mltwin" / kCatalogFileName).lexically_normal().string(),
                   "installed beside the binary"});
  out.push_back({MLTWIN_SOURCE_CATALOG, "source tree"});
  out.push_back({MLTWIN_INSTALL_CATALOG, "install prefix"});
  return out;
}

std::string find_catalog(const std::string& explicit_path) {
  const std::vector<CatalogCandidate> cands = catalog_candidates(explicit_path);
  const bool chosen = !explicit_path.empty() || cands.front().how == kCatalogEnv;
  if (chosen) {
    const CatalogCandidate& c = cands.front();
    if (!regular_file(c.path))
      throw ScenarioError((c.how == "--catalog" ? std::string("--catalog") : std::string(kCatalogEnv)) + " names '" + detail::printable(c.path) +
                          "', which is not a catalog file (a regular file such as catalog/" + kCatalogFileName + ")");
    return c.path;
  }
  std::string tried;
  for (const auto& c : cands) {
    if (regular_file(c.path)) return c.path;
    tried += "\n  " + c.path + " (" + c.how + ")";
  }
  throw ScenarioError(std::string("the instance catalog (") + kCatalogFileName + ") was not found; looked in:" + tried +
                      "\ngive it with --catalog PATH or " + kCatalogEnv + "=PATH");
}

models::Catalog catalog_rows(const std::string& file, const std::string& where, const json& rows) {
  // The rows are checked against the catalog schema's row form, their paths as they are in `file`.
  const std::string mount = where.substr(0, where.rfind('/'));
  const std::string last = where.substr(where.rfind('/') + 1);
  if (last != "instance_types") throw std::logic_error("catalog_rows: rows must be at .../instance_types");
  // Before the schema (whose message would be that the key does not match a domain/name
  // pattern): Kubernetes' own resources listed as extended resources, with where they belong.
  if (rows.is_array())
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_object() || !rows[i].contains("extended_resources") || !rows[i]["extended_resources"].is_object()) continue;
      const json& ext = rows[i]["extended_resources"];
      for (auto it = ext.begin(); it != ext.end(); ++it) {
        const std::string& k = it.key();
        const std::string at = where + "/" + std::to_string(i) + "/extended_resources/" + detail::pointer_token_of(k);
        const std::string not_extended = "'" + detail::printable(k) + "' is not an extended resource (those a device plugin advertises, "
                                         "named domain/name): ";
        if (k == "ephemeral-storage" || k.starts_with("hugepages-"))
          fail(file, at, not_extended + "a node's ephemeral-storage and hugepages-* come from its node group, not its instance type: give "
                                        "them in the node group's capacity (/cluster/node_groups/N/capacity, e.g. {\"" + k +
                                        "\": \"80Gi\"}) or eksctl's volumeSize (docs/resources.md)");
        if (k == "cpu" || k == "memory" || k == "pods")
          fail(file, at, not_extended + "the row gives it as " +
                             (k == "cpu" ? "vcpu" : k == "memory" ? "memory_gib" : "max_pods (the kubelet's maxPods)"));
      }
    }
  catalog_validator().validate(file, json{{"instance_types", rows}}, mount);
  models::Catalog c;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = where + "/" + std::to_string(i);
    models::InstanceType t = row_of(file, at, rows[i]);
    if (const auto [it, fresh] = seen.emplace(t.name, i); !fresh)
      fail(file, at + "/name", "duplicate instance type '" + t.name + "' (also " + where + "/" + std::to_string(it->second) + ")");
    c.types.push_back(std::move(t));
  }
  return c;
}

models::Catalog read_catalog(const std::string& path) {
  const json doc = detail::parse_json_text(detail::read_input_file(path, "instance catalog", kMaxScenarioFileBytes), path);
  detail::check_printable(path, doc);
  catalog_validator().validate(path, doc);
  return catalog_rows(path, "/instance_types", doc["instance_types"]);
}

std::vector<std::string> near_names(const models::Catalog& catalog, const std::string& name, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& t : catalog.types) {
    const std::size_t d = detail::edit_distance(name, t.name);
    const bool contains = name.size() >= 3 && (t.name.find(name) != std::string::npos || name.find(t.name) != std::string::npos);
    if (d <= 3 || contains) scored.emplace_back(d, t.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

namespace detail {

std::optional<int> kubernetes_minor_of(const std::string& t) {
  if (t.size() < 3 || t.size() > 5 || t.compare(0, 2, "1.") != 0 || t.find_first_not_of("0123456789", 2) != std::string::npos ||
      (t.size() > 3 && t[2] == '0'))
    return std::nullopt;
  return std::stoi(t.substr(2));
}

void check_schema_version(const std::string& file, const json& doc) {
  if (!doc.is_object()) return;  // the schema says what is wrong
  if (!doc.contains("schema_version"))
    fail(file, "/schema_version",
         "missing: this is a version-1 scenario (its instance types pasted under /catalog/instance_types). mltwin reads "
         "version " + std::to_string(kScenarioSchemaVersion) + ": \"schema_version\": " + std::to_string(kScenarioSchemaVersion) +
             ", instance types named from the catalog that ships with mltwin (catalog/" + kCatalogFileName +
             ", docs/catalog.md), /catalog/instance_types only adding or replacing rows in the catalog's row form. Rewrite it: "
             "mltwin migrate " + printable(file) + " -o NEW.json");
  const json& v = doc["schema_version"];
  if (v == 1)
    fail(file, "/schema_version",
         "1 is the old scenario format (its instance types pasted under /catalog/instance_types); mltwin reads version " +
             std::to_string(kScenarioSchemaVersion) + ". Rewrite it: mltwin migrate " + printable(file) + " -o NEW.json");
  if (v != kScenarioSchemaVersion)
    fail(file, "/schema_version",
         "expected " + std::to_string(kScenarioSchemaVersion) + " (the scenario format this mltwin reads), got " + printable(v.dump()));
}

const models::InstanceType& ScenarioCatalog::require(const std::string& file, const std::string& at, const std::string& name) const {
  if (const models::InstanceType* t = catalog.find(name)) return *t;
  fail(file, at, missing(name));
}

std::string ScenarioCatalog::missing(const std::string& name) const {
  std::string msg = "'" + printable(name) + "' is not in the catalog (" + shipped_path +
                    (scenario_rows ? ", and the scenario's /catalog/instance_types" : "; the scenario adds no rows under /catalog/instance_types") + ")";
  const std::vector<std::string> near = near_names(catalog, name);
  if (!near.empty()) {
    msg += "; near: ";
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i > 0 ? ", " : "") + near[i];
  }
  return msg;
}

std::string ScenarioCatalog::row_where(const std::string& name) const {
  for (std::size_t i = 0; i < catalog.types.size(); ++i)
    if (catalog.types[i].name == name) return where[i];
  return {};
}

std::string ScenarioCatalog::row_where_recorded(const std::string& name) const {
  std::string w = row_where(name);
  if (!shipped_path.empty() && w.starts_with(shipped_path + ": "))
    w = fs::path(shipped_path).filename().string() + w.substr(shipped_path.size());
  return w;
}

void ScenarioCatalog::require_price(const std::string& file, const std::string& at, const std::string& name) const {
  const models::InstanceType& t = require(file, at, name);
  if (t.has_on_demand_price) return;
  fail(file, at,
       "instance type '" + name + "' has no on-demand price in the catalog (" + row_where(name) +
           (t.assumptions.empty() ? std::string() : ": " + t.assumptions) +
           "); the run's cost needs one: give the row with on_demand_usd_per_hour and price_region under /catalog/instance_types");
}

std::string ScenarioCatalog::use_problem(const std::string& name, Use use) const {
  const bool sagemaker = name.starts_with("ml.");
  if (use == Use::EksNodeGroup && sagemaker) {
    const std::string ec2 = name.substr(3);
    return "'" + printable(name) + "' is a SageMaker hosting instance type (ml.*), which a SageMaker endpoint runs; an EKS node "
           "group launches EC2 instance types (no ml. prefix" +
           (catalog.find(ec2) != nullptr ? ", e.g. '" + ec2 + "'" : std::string()) + ")";
  }
  if (use == Use::SageMakerEndpoint && !sagemaker) {
    const std::string ml = "ml." + name;
    return "'" + printable(name) + "' is an EC2 instance type; a SageMaker endpoint runs SageMaker hosting instance types, whose "
           "names start with 'ml.'" + (catalog.find(ml) != nullptr ? " (e.g. '" + ml + "')" : std::string());
  }
  return {};
}

ScenarioCatalog scenario_catalog(const std::string& file, const json& doc, const std::string& explicit_catalog,
                                 std::vector<InputFileRef>& inputs) {
  ScenarioCatalog sc;
  sc.shipped_path = find_catalog(explicit_catalog);
  sc.catalog = read_catalog_cached(sc.shipped_path);
  for (std::size_t i = 0; i < sc.catalog.types.size(); ++i) sc.where.push_back(sc.shipped_path + ": /instance_types/" + std::to_string(i));
  if (doc.contains("catalog") && doc["catalog"].contains("instance_types")) {
    const json& rows = doc["catalog"]["instance_types"];
    // A row lacking keys is most often a partial override of a shipped row: say that a row
    // replaces the shipped one whole (there is no merge), which keys it lacks and where the
    // shipped row is to copy, rather than the schema's first "Missing required property".
    const json& required = catalog_validator().schema()["definitions"]["instance_type"]["required"];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json& r = rows[i];
      if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) continue;
      auto listed = [](const std::vector<std::string>& keys) {  // "a, b and c"
        std::string s;
        for (std::size_t k = 0; k < keys.size(); ++k) s += (k == 0 ? "" : k + 1 == keys.size() ? " and " : ", ") + keys[k];
        return s;
      };
      std::vector<std::string> all, missing;
      for (const auto& k : required) {
        all.push_back(k.get<std::string>());
        if (!r.contains(all.back())) missing.push_back(all.back());
      }
      if (missing.empty()) continue;
      const std::string lacks = listed(missing);
      const std::string name = r["name"].get<std::string>();
      const std::string at = "/catalog/instance_types/" + std::to_string(i);
      const std::string shipped_row = sc.row_where(name);
      if (!shipped_row.empty())
        fail(file, at,
             "this row lacks " + lacks + ": a scenario row replaces the shipped row '" + printable(name) +
                 "' whole (it is not merged onto it), so it gives every key a row needs. Copy the shipped row (" + shipped_row +
                 ") and change what differs");
      fail(file, at,
           "this row lacks " + lacks + ": a row of the scenario's own instance type '" + printable(name) + "' gives " + listed(all) +
               " (the catalog's row form, docs/catalog.md)");
    }
    models::Catalog own = catalog_rows(file, "/catalog/instance_types", rows);
    sc.scenario_rows = !own.types.empty();
    for (std::size_t i = 0; i < own.types.size(); ++i) {
      const std::string at = "/catalog/instance_types/" + std::to_string(i);
      auto it = std::find_if(sc.catalog.types.begin(), sc.catalog.types.end(), [&](const auto& t) { return t.name == own.types[i].name; });
      if (it == sc.catalog.types.end()) {
        sc.catalog.types.push_back(std::move(own.types[i]));
        sc.where.push_back(at);
      } else {
        const auto k = static_cast<std::size_t>(it - sc.catalog.types.begin());
        *it = std::move(own.types[i]);
        sc.where[k] = at + " (in place of the shipped row)";
      }
    }
  }
  // Hashed into the results like every input, by its file name: no folder of the machine is stored.
  inputs.push_back({"instance_catalog", sc.shipped_path, fs::path(sc.shipped_path).filename().string()});
  return sc;
}

}  // namespace detail

}  // namespace mltwin::io
