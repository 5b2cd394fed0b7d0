// inference_scenario.cpp — load_inference_scenario: an inference scenario, checked against its
// schema, then read section by section (InferenceLoad: /endpoint, /server, /policies, /models,
// /traffic, /output and /slo).
#include "mltwin/policy/version.hpp"
#include "mltwin/io/inference_scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "inference_schema.hpp"  // generated: kInferenceSchema
#include "mltwin/io/azure_functions.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/serving.hpp"
#include "moved_policy_keys.hpp"
#include "scenario_common.hpp"

namespace mltwin::io {

namespace fs = std::filesystem;
using nlohmann::json;
using detail::duration_of;
using detail::fail;
using detail::latency_of;
namespace inf = models::inference;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

const detail::SchemaValidator& validator() {
  static const detail::SchemaValidator v(kInferenceSchema);
  return v;
}

// A size in bytes: a number or a Kubernetes quantity.
std::uint64_t bytes_of(const std::string& file, const std::string& where, const json& v) {
  double q = 0;
  try {
    q = parse_quantity(v);
  } catch (const std::exception& e) {
    fail(file, where, std::string("expected a size in bytes or a quantity such as \"300Mi\" or \"1.5Gi\": ") + e.what());
  }
  if (q > 0x1p62) fail(file, where, "size is too large (at most 2^62 bytes, 4 EiB)");
  return static_cast<std::uint64_t>(std::llround(q));
}

// A duration that must be > 0 (or >= 0 with allow_zero).
core::Duration positive_duration(const std::string& file, const std::string& where, const json& v, bool allow_zero = false) {
  const core::Duration d = duration_of(file, where, v);
  if (d < core::Duration::ns(0) || (!allow_zero && d == core::Duration::ns(0)))
    fail(file, where, allow_zero ? "expected a duration >= 0" : "expected a duration > 0");
  return d;
}

std::string shown(const json& v) {
  const std::string s = v.dump();
  return s.size() <= 60 ? s : s.substr(0, 57) + "...";
}

inf::PopularitySpec popularity_of(const std::string& file, const std::string& where, const json& p, int models) {
  inf::PopularitySpec s;
  const json* r = nullptr;
  std::string w;
  if (p.contains("uniform")) {
    s.kind = inf::PopularitySpec::Kind::Uniform;
    r = &p["uniform"];
    w = where + "/uniform";
  } else if (p.contains("hot_set")) {
    s.kind = inf::PopularitySpec::Kind::HotSet;
    r = &p["hot_set"];
    w = where + "/hot_set";
    s.hot_count = (*r)["hot_count"];
    s.hot_share = (*r)["hot_share"];
  } else {
    s.kind = inf::PopularitySpec::Kind::Zipf;
    r = &p["zipf"];
    w = where + "/zipf";
    s.zipf_alpha = (*r)["alpha"];
  }
  s.first = r->value("first", 0);
  s.last = r->value("last", models - 1);
  if (s.last >= models)
    fail(file, w + (r->contains("last") ? "/last" : ""),
         "model " + std::to_string(s.last) + " does not exist: the scenario has " + std::to_string(models) +
             " models (0.." + std::to_string(models - 1) + ")");
  if (s.first > s.last)
    fail(file, w + "/first", "first (" + std::to_string(s.first) + ") is after last (" + std::to_string(s.last) + ")");
  if (s.kind == inf::PopularitySpec::Kind::HotSet && s.hot_count > s.last - s.first + 1)
    fail(file, w + "/hot_count",
         "hot_count " + std::to_string(s.hot_count) + " exceeds the " + std::to_string(s.last - s.first + 1) +
             " models of [first, last]");
  return s;
}

inf::ServiceTimeSpec service_of(const std::string& file, const std::string& where, const json& s) {
  inf::ServiceTimeSpec t;
  t.base = latency_of(file, where + "/base", s["base"]);
  t.batch_marginal = s.value("batch_marginal", 1.0);
  return t;
}

inf::ModelSpec model_body_of(const std::string& file, const std::string& where, const json& m) {
  inf::ModelSpec spec;
  spec.artifact_bytes = bytes_of(file, where + "/artifact_size", m["artifact_size"]);
  spec.resident_bytes = bytes_of(file, where + "/resident_size", m["resident_size"]);
  spec.service = service_of(file, where + "/service", m["service"]);
  return spec;
}

// Where the serving policy settings of schema 2's first releases went (mltwin 0.3,
// moved_policy_keys.hpp): a clear error instead of the schema's "unexpected key".
void check_moved_policy_keys(const std::string& path, const json& doc) {
  if (!doc.is_object()) return;
  for (const detail::MovedPolicyKey& m : detail::kMovedPolicyKeys)
    if (doc.contains(m.parent) && doc[m.parent].is_object() && doc[m.parent].contains(m.key))
      fail(path, std::string("/") + m.parent + "/" + m.key,
           std::string("moved: ") + m.what + ": {\"name\": \"" + m.policy + "\", \"arguments\": {...}, \"source\": ...}, " +
               detail::arguments_text(m) + " (docs/inference.md, 'Policies'); `mltwin migrate " + path + "` rewrites it");
}

/// True for "ALL" in any case: DJL Serving 0.23.0 (ModelServer.initModelStore,
/// `"ALL".equalsIgnoreCase(loadModels)`) and MMS v1.1.9 (ModelServer.initModelStore, the same
/// test) both accept "all", "All", ...
bool is_load_all(const std::string& s) {
  return s.size() == 3 && std::toupper(static_cast<unsigned char>(s[0])) == 'A' &&
         std::toupper(static_cast<unsigned char>(s[1])) == 'L' && std::toupper(static_cast<unsigned char>(s[2])) == 'L';
}

// /server/load_models's form, before the schema (whose oneOf would say only "Failed to match
// expected value set by 'const' constraint"): a list of at least one name, or "ALL".
void check_load_models_form(const std::string& path, const json& doc) {
  if (!doc.is_object() || !doc.contains("server") || !doc["server"].is_object() || !doc["server"].contains("load_models"))
    return;
  const json& lm = doc["server"]["load_models"];
  const std::string where = "/server/load_models";
  if (lm.is_array() && lm.empty())
    fail(path, where, "lists no model: give model names or \"ALL\" (a SingleModel server registers at least one)");
  if (lm.is_string()) {
    const std::string v = lm.get<std::string>();
    if (is_load_all(v)) return;
    std::string upper = v;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "NONE")
      fail(path, where,
           "\"" + v + "\" registers no model at start (DJL Serving 0.23.0, ModelServer.initModelStore; MMS v1.1.9 would take it "
           "for a model's name); a SingleModel endpoint serves only the models its server registers: give model names or \"ALL\"");
    fail(path, where,
         "expected \"ALL\" (every model of /models) or a list of model names, got \"" + v +
             "\": DJL Serving 0.23.0 and MMS v1.1.9 spell it \"ALL\" (in any case: \"all\" is accepted too); "
             "name models as a list, e.g. [\"" + v + "\"]");
  }
  if (!lm.is_array())
    fail(path, where, "expected a list of model names or \"ALL\", got " + shown(lm));
}

/// A policy argument as the text policy::Arguments holds: a string as written, a number as
/// JSON writes it (the shortest text that reads back as the same double), a boolean as
/// true/false.
std::string argument_text(const std::string& file, const std::string& where, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  fail(file, where, "expected a number, a boolean or a string, got " + shown(v));
}

/// One of the scenario's /policies choices: its name known to `registry`, its arguments of the
/// declared keys and types, and accepted by the policy itself (built once here).
template <class Product>
inf::PolicyChoice policy_choice(const std::string& file, const std::string& site, const json& j,
                                const policy::Registry<Product>& registry) {
  const std::string at = "/policies/" + site;
  inf::PolicyChoice c;
  c.name = j["name"];
  c.source = j.value("source", std::string());
  if (!registry.has(c.name)) fail(file, at + "/name", registry.unknown_message(c.name));
  const auto specs = registry.arguments(c.name);
  if (j.contains("arguments"))
    for (const auto& [key, v] : j["arguments"].items()) {
      const std::string where = at + "/arguments/" + detail::pointer_token_of(key);
      // A declared number or boolean is written as one, not as its text (policy::arg_kind_problem).
      if (specs)
        for (const policy::ArgSpec& spec : *specs) {
          if (spec.key != key) continue;
          const policy::ValueKind kind = v.is_boolean()          ? policy::ValueKind::Bool
                                         : v.is_number_integer() ? policy::ValueKind::Int
                                         : v.is_number()         ? policy::ValueKind::Float
                                         : v.is_string()         ? policy::ValueKind::String
                                                                 : policy::ValueKind::Other;
          if (const std::string problem = policy::arg_kind_problem(spec.type, kind); !problem.empty())
            fail(file, where, problem + ", got " + shown(v));
          if (spec.type == policy::ArgType::Duration) {
            std::int64_t ns = 0;
            try {
              ns = policy::parse_go_duration(v.template get<std::string>());
            } catch (const std::invalid_argument&) {
              ns = 0;  // a malformed duration: the registry's type check names it below
            }
            if (ns > kMaxScenarioTime.count_ns() || ns < -kMaxScenarioTime.count_ns())
              fail(file, where, "a duration of at most " + std::string(kMaxScenarioTimeText) + ", got " + shown(v));
          }
        }
      c.arguments.set(key, argument_text(file, where, v));
    }
  // Issues name the key as written: their place is its JSON pointer.
  for (const policy::ArgIssue& i : registry.check(c.name, c.arguments, ""))
    if (i.severity == policy::ArgIssue::Severity::Error)
      fail(file, at + "/arguments/" + detail::pointer_token_of(i.where), i.message);
  try {
    (void)registry.make(c.name, c.arguments);
  } catch (const std::invalid_argument& e) {
    // A policy refuses a value as "argument 'key': why".
    const std::string what = e.what();
    std::string where = at + "/arguments";
    if (what.starts_with("argument '"))
      if (const auto end = what.find("':"); end != std::string::npos)
        where += "/" + detail::pointer_token_of(what.substr(10, end - 10));
    fail(file, where, what);
  }
  return c;
}

// Reads the Azure trace folder as written in the scenario (once per folder), recording inputs.
struct TraceCache {
  std::map<std::string, AzureFunctionsTrace> by_path;
  const AzureFunctionsTrace& get(const std::string& as_written, const std::string& scenario, const LoadOptions& opts,
                                 LoadedInferenceScenario& out) {
    const std::string folder = detail::resolve_input_path(as_written, scenario, opts.data_dir, out.data_dir);
    auto it = by_path.find(folder);
    if (it != by_path.end()) return it->second;
    AzureFunctionsTrace t = read_azure_functions(folder);
    const fs::path w(as_written);
    out.inputs.push_back({"azure_functions_invocations", t.invocations_path, (w / kAzureInvocationsFile).string()});
    out.inputs.push_back({"azure_functions_durations", t.durations_path, (w / kAzureDurationsFile).string()});
    out.inputs.push_back({"azure_functions_memory", t.memory_path, (w / kAzureMemoryFile).string()});
    return by_path.emplace(folder, std::move(t)).first->second;
  }
};

/// What the section readers of one inference scenario share.
/// Each section has its reader, a member, run in this order by load_inference_scenario.
struct InferenceLoad {
  InferenceLoad(const std::string& p, json& d, const LoadOptions& o, LoadedInferenceScenario& lo, const detail::ScenarioCatalog& c)
      : path(p), doc(d), opts(o), out(lo), sc(lo.inference), cat(c) {}
  void read_endpoint();
  void read_server();
  void read_policies();
  void read_models();
  void read_load_models();
  void check_artifact_times() const;
  void read_traffic();
  void read_output_and_slo();

  const std::string& path;  ///< the scenario file: errors name it
  json& doc;
  const LoadOptions& opts;
  LoadedInferenceScenario& out;
  inf::InferenceScenario& sc;  ///< out.inference
  const detail::ScenarioCatalog& cat;
  TraceCache traces;                                 ///< the Azure Functions traces read so far
  const models::InstanceType* itype = nullptr;       ///< the endpoint's (read_endpoint)
  const AzureFunctionsTrace* model_trace = nullptr;  ///< the trace the models came from, if any (read_models)
};

// /endpoint: the instance type, fleet bounds, start-up, memory and storage, S3 and load speeds.
void InferenceLoad::read_endpoint() {
  const json& e = doc["endpoint"];
  inf::EndpointSpec& ep = sc.endpoint;
  ep.instance_type = e["instance_type"];
  itype = &cat.require(path, "/endpoint/instance_type", ep.instance_type);
  if (std::string p = cat.use_problem(ep.instance_type, detail::ScenarioCatalog::Use::SageMakerEndpoint); !p.empty())
    fail(path, "/endpoint/instance_type", p);
  // The run's cost is priced on demand (SageMaker real-time inference).
  cat.require_price(path, "/endpoint/instance_type", ep.instance_type);
  ep.initial_instances = e["initial_instances"];
  ep.min_instances = e.value("min_instances", ep.initial_instances);
  ep.max_instances = e.value("max_instances", ep.initial_instances);
  if (ep.min_instances > ep.initial_instances)
    fail(path, "/endpoint/min_instances", "min_instances (" + std::to_string(ep.min_instances) + ") exceeds initial_instances (" +
                                              std::to_string(ep.initial_instances) + ")");
  if (ep.max_instances < ep.initial_instances)
    fail(path, "/endpoint/max_instances", "max_instances (" + std::to_string(ep.max_instances) + ") is below initial_instances (" +
                                              std::to_string(ep.initial_instances) + ")");
  ep.instance_startup = latency_of(path, "/endpoint/instance_startup", e["instance_startup"]);
  ep.health_check = latency_of(path, "/endpoint/health_check", e["health_check"]);
  ep.memory_reserved_bytes = bytes_of(path, "/endpoint/memory_reserved/size", e["memory_reserved"]["size"]);
  if (ep.memory_reserved_bytes >= itype->memory_bytes())
    fail(path, "/endpoint/memory_reserved/size", "reserves all of " + ep.instance_type + "'s memory");
  // Model artifacts: on the type's NVMe instance store, else on the endpoint's EBS ML storage
  // volume (ProductionVariant VolumeSizeInGB).
  if (itype->instance_storage_gb > 0) {
    if (e.contains("ml_storage_volume"))
    {
      std::ostringstream gb;
      gb << itype->instance_storage_gb;
      fail(path, "/endpoint/ml_storage_volume",
           ep.instance_type + " has NVMe instance storage (" + gb.str() +
               " GB), where the model artifacts are kept; mltwin models no EBS volume beside it: drop ml_storage_volume");
    }
  } else {
    if (!e.contains("ml_storage_volume"))
      fail(path, "/endpoint",
           ep.instance_type + " has no instance storage: give the EBS ML storage volume that holds the model artifacts, "
                              "ml_storage_volume {\"size\": ..., \"source\": ...} (ProductionVariant VolumeSizeInGB)");
    ep.ml_storage_volume_bytes = bytes_of(path, "/endpoint/ml_storage_volume/size", e["ml_storage_volume"]["size"]);
    if (ep.ml_storage_volume_bytes == 0) fail(path, "/endpoint/ml_storage_volume/size", "expected a size > 0");
  }
  if (e.value("mode", std::string("MultiModel")) == "SingleModel") {
    ep.mode = inf::EndpointSpec::Mode::SingleModel;
    if (e.contains("model_cache"))
      fail(path, "/endpoint/model_cache",
           "ModelCacheSetting (MultiModelConfig) applies to a multi-model endpoint only; a SingleModel server keeps its "
           "load_models loaded: drop model_cache");
  }
  ep.model_cache_enabled = e.value("model_cache", std::string("Enabled")) == "Enabled";
  ep.s3_download_gbps = e["s3"]["download_gbps"];
  ep.s3_first_byte = latency_of(path, "/endpoint/s3/first_byte", e["s3"]["first_byte"]);
  ep.load_gbytes_per_s = e["model_load"]["gbytes_per_s"];
  ep.load_fixed = latency_of(path, "/endpoint/model_load/fixed", e["model_load"]["fixed"]);
  ep.unload = latency_of(path, "/endpoint/model_load/unload", e["model_load"]["unload"]);
  ep.overhead = latency_of(path, "/endpoint/overhead", e["overhead"]);
  // SageMaker's InvokeEndpoint limit, 60 s unless the scenario says otherwise (EndpointSpec).
  if (e.contains("invocation_timeout_s"))
    ep.invocation_timeout = core::Duration::from_seconds(e["invocation_timeout_s"].get<double>());
  // A multi-model endpoint's 360 s limit on a model's download and load (EndpointSpec).
  if (e.contains("model_load_limit_s")) {
    if (ep.mode == inf::EndpointSpec::Mode::SingleModel)
      fail(path, "/endpoint/model_load_limit_s",
           "SageMaker's 360 s limit on a model's download and load applies to a multi-model endpoint's on-demand loads; "
           "a SingleModel server registers its load_models at start: drop model_load_limit_s");
    ep.model_load_limit = core::Duration::from_seconds(e["model_load_limit_s"].get<double>());
  }
  ep.source = e["source"];
}

// /server: DJL Serving's serving.properties or MMS's config.properties, at the pinned release.
void InferenceLoad::read_server() {
  const inf::EndpointSpec& ep = sc.endpoint;
  const json& s = doc["server"];
  inf::ServerSpec& srv = sc.server;
  const std::string kind = s["kind"];
  const std::string release = s["release"];
  if (kind == "djl") {
    srv.kind = inf::ServerSpec::Kind::Djl;
    if (release != policy::kDjlServingRelease)
      fail(path, "/server/release", "mltwin reproduces DJL Serving " + std::string(policy::kDjlServingRelease) +
                                        ", not '" + release + "'");
    if (s.contains("config_properties"))
      fail(path, "/server/config_properties", "MMS config.properties do not apply to DJL Serving; use serving_properties");
    srv.job_queue_size = 1000;
    if (s.contains("serving_properties")) {
      const json& p = s["serving_properties"];
      srv.engine = p.value("engine", srv.engine);
      srv.batch_size = p.value("batch_size", srv.batch_size);
      if (p.contains("max_batch_delay")) srv.max_batch_delay = core::Duration::ms(p["max_batch_delay"].get<std::int64_t>());
      if (p.contains("max_idle_time")) srv.max_idle_time = core::Duration::s(p["max_idle_time"].get<std::int64_t>());
      srv.job_queue_size = p.value("job_queue_size", srv.job_queue_size);
      srv.min_workers = p.value("minWorkers", srv.min_workers);
      srv.max_workers = p.value("maxWorkers", srv.max_workers);
      srv.omp_num_threads = p.value("OMP_NUM_THREADS", srv.omp_num_threads);
    }
    // maxWorkers 0 is DJL's default, as if unset: WlmConfigManager.getDefaultMaxWorkers (DJL
    // Serving 0.23.0, wlm/.../util/WlmConfigManager.java lines 176-184) returns the property only
    // if it is > 0, else the device's default (CPU: cores / OMP_NUM_THREADS). It never makes a
    // pool whose maxWorkers is 0 (WorkLoadManager.runJob's "All model workers has been
    // shutdown" 503): only the management API's scale call can, and mltwin has none.
    const int max_workers = srv.max_workers > 0 ? srv.max_workers : std::max(1, itype->vcpu / srv.omp_num_threads);
    // DJL 0.23.0 would not refuse minWorkers > maxWorkers: WorkerGroup's constructor lowers it
    // to maxWorkers (WorkerGroup.java line 40, Math.min). mltwin refuses it, saying so.
    if (srv.min_workers > max_workers)
      fail(path, "/server/serving_properties/minWorkers",
           "minWorkers (" + std::to_string(srv.min_workers) + ") exceeds maxWorkers (" + std::to_string(max_workers) +
               (srv.max_workers > 0 ? ")" : ", DJL's default vCPUs / OMP_NUM_THREADS on " + ep.instance_type + ")") +
               "; DJL Serving 0.23.0 would silently lower minWorkers to " + std::to_string(max_workers) +
               " (WorkerGroup): set minWorkers <= maxWorkers");
  } else {
    srv.kind = inf::ServerSpec::Kind::Mms;
    if (release != policy::kMmsRelease)
      fail(path, "/server/release", "mltwin reproduces Multi Model Server " + std::string(policy::kMmsRelease) +
                                        ", not '" + release + "'");
    if (s.contains("serving_properties"))
      fail(path, "/server/serving_properties", "DJL serving.properties do not apply to MMS; use config_properties");
    srv.job_queue_size = 100;
    if (s.contains("config_properties")) {
      const json& p = s["config_properties"];
      srv.mms_workers_per_model = p.value("default_workers_per_model", srv.mms_workers_per_model);
      srv.job_queue_size = p.value("job_queue_size", srv.job_queue_size);
    }
  }
  srv.worker_startup = latency_of(path, "/server/worker_startup", s["worker_startup"]);
  srv.source = s["source"];

}

// /policies: the serving policies, by name from their registries.
void InferenceLoad::read_policies() {
  if (doc.contains("policies")) {
    const json& pj = doc["policies"];
    inf::ServingPolicies& c = sc.policies;
    if (pj.contains("autoscaling"))
      c.autoscaling = policy_choice(path, "autoscaling", pj["autoscaling"], policy::serving::autoscaling_registry());
    if (pj.contains("memory_cache"))
      c.memory_cache = policy_choice(path, "memory_cache", pj["memory_cache"], policy::serving::model_cache_registry());
    if (pj.contains("disk_cache"))
      c.disk_cache = policy_choice(path, "disk_cache", pj["disk_cache"], policy::serving::model_cache_registry());
    if (pj.contains("routing")) c.routing = policy_choice(path, "routing", pj["routing"], policy::serving::routing_registry());
    if (pj.contains("instance_scaling"))
      c.instance_scaling =
          policy_choice(path, "instance_scaling", pj["instance_scaling"], policy::serving::instance_scaling_registry());
    if (c.instance_scaling)
      if (std::string w = fixed_fleet_warning(sc, c.instance_scaling->name); !w.empty())
        out.warnings.push_back(path + ": /policies/instance_scaling: " + w);
  }
  if (opts.strict && !out.warnings.empty())
    throw ScenarioError(out.warnings.front() + " (--strict: warnings are errors)");
}

// /models: a list, copies of one model, or the functions of an Azure Functions trace.
void InferenceLoad::read_models() {
  const json& m = doc["models"];
  if (m.contains("list")) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < m["list"].size(); ++i) {
      const json& mj = m["list"][i];
      const std::string where = "/models/list/" + std::to_string(i);
      inf::ModelSpec spec = model_body_of(path, where, mj);
      spec.name = mj["name"];
      if (!names.insert(spec.name).second) fail(path, where + "/name", "duplicate model '" + spec.name + "'");
      sc.models.push_back(std::move(spec));
    }
  } else if (m.contains("copies")) {
    const json& c = m["copies"];
    const inf::ModelSpec proto = model_body_of(path, "/models/copies/model", c["model"]);
    const std::string prefix = c.value("name_prefix", std::string("model-"));
    const int count = c["count"];
    sc.models.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      inf::ModelSpec spec = proto;
      spec.name = prefix + std::to_string(i);
      sc.models.push_back(std::move(spec));
    }
  } else {
    const json& a = m["azure_functions"];
    const std::string w = "/models/azure_functions";
    const AzureFunctionsTrace& t = traces.get(a["trace"], path, opts, out);
    model_trace = &t;
    const json& st = a["service_time"];
    const bool exponential = st["distribution"] == "exponential";
    // Clamps of the mean (unset: none).
    const core::Duration lo =
        st.contains("minimum") ? positive_duration(path, w + "/service_time/minimum", st["minimum"]) : core::Duration::ns(0);
    const core::Duration hi =
        st.contains("maximum") ? positive_duration(path, w + "/service_time/maximum", st["maximum"]) : core::Duration::max();
    if (hi < lo) fail(path, w + "/service_time/maximum", "maximum is below minimum");
    const double batch_marginal = st.value("batch_marginal", 1.0);
    const std::string st_source = st["source"];
    const double scale = a.value("resident_scale", 1.0);
    const json& art = a["artifact_size"];
    const std::string prefix = a.value("name_prefix", std::string("fn-"));
    sc.models.reserve(t.functions.size());
    for (std::size_t i = 0; i < t.functions.size(); ++i) {
      const AzureFunction& fn = t.functions[i];
      inf::ModelSpec spec;
      spec.name = prefix + std::to_string(i);
      const double resident = fn.memory_average_mb * scale * kMiB;
      if (resident > 0x1p62)
        fail(path, w + "/resident_scale", "function " + std::to_string(i) + " (" + t.memory_path + ":" + std::to_string(fn.mem_line) +
                                              ") would hold " + std::to_string(resident) + " bytes: too large");
      spec.resident_bytes = static_cast<std::uint64_t>(std::llround(resident));
      if (art.contains("fixed"))
        spec.artifact_bytes = bytes_of(path, w + "/artifact_size/fixed", art["fixed"]);
      else {
        const double artifact = static_cast<double>(spec.resident_bytes) * art["fraction_of_resident"].get<double>();
        if (artifact > 0x1p62)
          fail(path, w + "/artifact_size/fraction_of_resident",
               "function " + std::to_string(i) + "'s artifact would be " + std::to_string(artifact) + " bytes: too large");
        spec.artifact_bytes = static_cast<std::uint64_t>(std::llround(artifact));
      }
      if (fn.run_average_ms / 1000.0 > kMaxScenarioTime.seconds())
        fail(path, w + "/service_time", "function " + std::to_string(i) + " (" + t.durations_path + ":" + std::to_string(fn.run_line) +
                                            ") has Average " + std::to_string(fn.run_average_ms) +
                                            " ms, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
      core::Duration mean = core::Duration::from_seconds(fn.run_average_ms / 1000.0);
      mean = std::clamp(mean, lo, hi);
      if (exponential && mean <= core::Duration::ns(0))
        fail(path, w + "/service_time/minimum",
             "function " + std::to_string(i) + " (" + t.durations_path + ":" + std::to_string(fn.run_line) +
                 ") has Average 0 ms; an exponential service time needs a positive mean: set a minimum");
      spec.service.base.kind = exponential ? models::LatencySpec::Kind::Exponential : models::LatencySpec::Kind::Constant;
      spec.service.base.a = mean;
      spec.service.base.source = st_source;
      spec.service.batch_marginal = batch_marginal;
      sc.models.push_back(std::move(spec));
    }
  }
}

// /server/load_models: the models a SingleModel endpoint's server registers at start, by name
// (or "ALL"); they must exist, appear once, fit the instance's memory, and the model store must
// fit its storage.
void InferenceLoad::read_load_models() {
  const json& s = doc["server"];
  const bool single = sc.endpoint.mode == inf::EndpointSpec::Mode::SingleModel;
  if (!single) {
    if (s.contains("load_models"))
      fail(path, "/server/load_models",
           "load_models applies to a SingleModel endpoint (/endpoint/mode \"SingleModel\"); a multi-model endpoint "
           "loads a model on its first invocation");
    return;
  }
  if (!s.contains("load_models"))
    fail(path, "/server",
         "a SingleModel endpoint's server registers the models of its load_models at start: give /server/load_models, "
         "a list of model names or \"ALL\"");
  auto& list = sc.server.load_models;
  const json& lm = s["load_models"];
  if (lm.is_string()) {  // "ALL" in any case (check_load_models_form allows no other string)
    for (std::size_t m = 0; m < sc.models.size(); ++m) list.push_back(static_cast<inf::ModelId>(m));
  } else {
    std::map<std::string, inf::ModelId> by_name;
    for (std::size_t m = 0; m < sc.models.size(); ++m) by_name.emplace(sc.models[m].name, static_cast<inf::ModelId>(m));
    std::set<inf::ModelId> seen;
    for (std::size_t i = 0; i < lm.size(); ++i) {
      const std::string where = "/server/load_models/" + std::to_string(i);
      const std::string name = lm[i];
      const auto it = by_name.find(name);
      if (it == by_name.end()) fail(path, where, "no model '" + name + "' in /models");
      // DJL Serving 0.23.0: registering a model twice is refused (ModelManager.registerWorkflow,
      // 409 "already registered"), which stops the server at start.
      if (!seen.insert(it->second).second) fail(path, where, "model '" + name + "' is listed twice");
      list.push_back(it->second);
    }
  }
  // Memory: what the listed models hold, loaded one after another. DJL Serving 0.23.0 would not
  // refuse a list that does not fit: ModelInfo.checkAvailableMemory estimates a model's memory
  // only on a multi-model endpoint (SAGEMAKER_MULTI_MODEL) or from required_memory_mb; the
  // worker processes would run out of memory, the load fail, and ModelServer.initModelStore
  // stop the server — the endpoint never InService. mltwin refuses the scenario instead.
  const std::uint64_t need = inf::load_models_peak_memory(sc, *itype);
  const std::uint64_t have = inf::instance_model_memory(sc, *itype);
  if (need > have)
    fail(path, "/server/load_models",
         "the models of load_models need " + std::to_string(need) + " bytes of memory (resident_size x minWorkers each, "
         "loaded in turn) but " + sc.endpoint.instance_type + " has " + std::to_string(have) +
             " for models (its memory less /endpoint/memory_reserved): the server would run out of memory at start "
             "and the endpoint never be InService");
  // Storage: SageMaker copies the model store (every model of the scenario) to /opt/ml/model.
  std::uint64_t artifacts = 0;
  for (const auto& mo : sc.models) artifacts += mo.artifact_bytes;
  if (artifacts > sc.model_storage_bytes())
    fail(path, itype->instance_storage_gb > 0 ? "/models" : "/endpoint/ml_storage_volume/size",
         "the model artifacts (" + std::to_string(artifacts) + " bytes, every model of the scenario: the model store "
         "SageMaker copies to /opt/ml/model) do not fit the instance's " + std::to_string(sc.model_storage_bytes()) +
             " bytes of model storage");
}

// A model's download and load times follow from its artifact's size: both must be times.
void InferenceLoad::check_artifact_times() const {
  const inf::EndpointSpec& ep = sc.endpoint;
  // A model's download and load times follow from its artifact's size: both must be times.
  std::uint64_t largest = 0;
  for (const auto& mo : sc.models) largest = std::max(largest, mo.artifact_bytes);
  const double down_s = ep.s3_download_gbps > 0 ? static_cast<double>(largest) * 8.0 / (ep.s3_download_gbps * 1e9) : 0.0;
  const double load_s = ep.load_gbytes_per_s > 0 ? static_cast<double>(largest) / (ep.load_gbytes_per_s * 1e9) : 0.0;
  if (down_s > kMaxScenarioTime.seconds())
    fail(path, "/endpoint/s3/download_gbps", "the largest artifact (" + std::to_string(largest) + " bytes) would download for " +
                                                  std::to_string(down_s) + " s, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
  if (load_s > kMaxScenarioTime.seconds())
    fail(path, "/endpoint/model_load/gbytes_per_s", "the largest artifact (" + std::to_string(largest) + " bytes) would load for " +
                                                        std::to_string(load_s) + " s, beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
}

// /traffic: Poisson, a trace (the models' own, or another), or Locust users.
void InferenceLoad::read_traffic() {
  const int n_models = static_cast<int>(sc.models.size());
  const json& tr = doc["traffic"];
  inf::TrafficSpec& traffic = sc.traffic;
  if (tr.contains("poisson")) {
    const json& p = tr["poisson"];
    traffic.kind = inf::TrafficSpec::Kind::Poisson;
    traffic.poisson.rate_per_s = p["rate"];
    traffic.poisson.duration = positive_duration(path, "/traffic/poisson/duration", p["duration"]);
    traffic.poisson.popularity = popularity_of(path, "/traffic/poisson/popularity", p["popularity"], n_models);
  } else if (tr.contains("trace")) {
    const json& p = tr["trace"];
    const std::string w = "/traffic/trace";
    traffic.kind = inf::TrafficSpec::Kind::Trace;
    const AzureFunctionsTrace* t = model_trace;
    if (p.contains("trace")) t = &traces.get(p["trace"], path, opts, out);
    if (t == nullptr)
      fail(path, w, "trace traffic needs a trace: set /traffic/trace/trace, or take the models from /models/azure_functions");
    if (static_cast<int>(t->functions.size()) > n_models)
      fail(path, w + (p.contains("trace") ? "/trace" : ""),
           "the trace has " + std::to_string(t->functions.size()) + " functions but the scenario only " +
               std::to_string(n_models) + " models (function i is sent to model i)");
    traffic.trace.counts.reserve(t->functions.size());
    for (const auto& fn : t->functions) traffic.trace.counts.push_back(fn.per_minute);
    traffic.trace.time_scale = p.value("time_scale", 1.0);
    // A trace minute lasts 60 s / time_scale: at least 1 ns, and the replay at most kMaxScenarioTime.
    if (60e9 / traffic.trace.time_scale < 1.0)
      fail(path, w + "/time_scale", "a time_scale of " + shown(p["time_scale"]) + " makes a trace minute shorter than 1 ns");
    traffic.trace.first_minute = p.value("first_minute", 0);
    if (traffic.trace.first_minute >= t->minutes)
      fail(path, w + "/first_minute",
           "the trace has minutes 0.." + std::to_string(t->minutes - 1) + ", not " + std::to_string(traffic.trace.first_minute));
    traffic.trace.minutes = p.value("minutes", t->minutes - traffic.trace.first_minute);
    if (static_cast<std::int64_t>(traffic.trace.first_minute) + traffic.trace.minutes > t->minutes)
      fail(path, w + "/minutes",
           "minutes " + std::to_string(traffic.trace.first_minute) + ".." +
               std::to_string(static_cast<std::int64_t>(traffic.trace.first_minute) + traffic.trace.minutes - 1) +
               " run past the trace's " + std::to_string(t->minutes) + " minutes");
    if (60.0 * traffic.trace.minutes / traffic.trace.time_scale > kMaxScenarioTime.seconds())
      fail(path, w + "/time_scale", std::to_string(traffic.trace.minutes) + " trace minutes at time_scale " + shown(p.value("time_scale", json(1.0))) +
                                        " last longer than " + kMaxScenarioTimeText);
  } else {
    const json& p = tr["locust"];
    const std::string w = "/traffic/locust";
    traffic.kind = inf::TrafficSpec::Kind::Locust;
    inf::LocustTraffic& l = traffic.locust;
    l.users = p["users"];
    l.spawn_rate = p["spawn_rate"];
    const json& wt = p["wait_time"];
    if (wt.contains("constant")) {
      l.wait = inf::LocustTraffic::Wait::Constant;
      l.wait_a = positive_duration(path, w + "/wait_time/constant", wt["constant"], true).seconds();
    } else if (wt.contains("between")) {
      l.wait = inf::LocustTraffic::Wait::Between;
      l.wait_a = positive_duration(path, w + "/wait_time/between/0", wt["between"][0], true).seconds();
      l.wait_b = positive_duration(path, w + "/wait_time/between/1", wt["between"][1], true).seconds();
      if (l.wait_b < l.wait_a) fail(path, w + "/wait_time/between", "max is below min");
    } else {
      l.wait = inf::LocustTraffic::Wait::ConstantThroughput;
      l.wait_a = wt["constant_throughput"];
    }
    for (std::size_t i = 0; i < p["tasks"].size(); ++i) {
      const json& tj = p["tasks"][i];
      inf::LocustTraffic::Task task;
      task.weight = tj["weight"];
      task.popularity = popularity_of(path, w + "/tasks/" + std::to_string(i) + "/popularity", tj["popularity"], n_models);
      l.tasks.push_back(task);
    }
    l.duration = positive_duration(path, w + "/duration", p["duration"]);
  }

}

// /output and /slo.
void InferenceLoad::read_output_and_slo() {
  if (doc.contains("output")) {
    const json& o = doc["output"];
    sc.output.request_records_full = o.value("request_records_full", sc.output.request_records_full);
    sc.output.request_sample_every = o.value("request_sample_every", sc.output.request_sample_every);
    if (o.contains("metrics_period"))
      sc.output.metrics_period = positive_duration(path, "/output/metrics_period", o["metrics_period"]);
  }
  if (doc.contains("slo")) {
    const json& o = doc["slo"];
    if (o.contains("p99_model_latency"))
      // ns / 1e6: "60s" is 60000 ms exactly (seconds() x 1e3 made it 60000.00000000001).
      sc.slo.p99_model_latency_ms =
          static_cast<double>(positive_duration(path, "/slo/p99_model_latency", o["p99_model_latency"]).count_ns()) / 1e6;
    sc.slo.max_5xx_ratio = o.value("max_5xx_ratio", 0.0);
  }
}

}  // namespace

std::string fixed_fleet_warning(const inf::InferenceScenario& sc, const std::string& policy) {
  const inf::EndpointSpec& ep = sc.endpoint;
  if (ep.min_instances != ep.max_instances) return {};
  return "instance scaling policy '" + policy + "' is chosen, but min_instances = max_instances = " +
         std::to_string(ep.min_instances) + ": the fleet cannot change (give /endpoint/min_instances and /endpoint/max_instances)";
}

ScenarioKind scenario_kind(const std::string& path) { return scenario_kind(detail::read_json_file(path), path); }

ScenarioKind scenario_kind(const json& doc, const std::string& path) {
  if (!doc.is_object()) fail(path, "/", "expected a JSON object (a scenario)");
  if (!doc.contains("kind")) return ScenarioKind::Training;
  const json& k = doc["kind"];
  if (k == "training") return ScenarioKind::Training;
  if (k == "inference") return ScenarioKind::Inference;
  fail(path, "/kind", "expected \"training\" or \"inference\", got " + shown(k));
}

LoadedInferenceScenario load_inference_scenario(const std::string& path, const LoadOptions& opts) {
  LoadedInferenceScenario out;
  out.path = path;
  json doc = opts.document != nullptr ? *opts.document : detail::read_json_file(path);
  if (!opts.overrides.is_null()) doc.merge_patch(opts.overrides);
  // Names and texts reach terminals and file names: no control characters anywhere.
  detail::check_printable(path, doc);
  if (doc.is_object() && (!doc.contains("kind") || doc["kind"] == "training"))
    fail(path, "/kind", "expected \"inference\": without it this is a training scenario (load it with load_scenario)");
  // Version 1 (no /schema_version) is refused with the command that rewrites it.
  detail::check_schema_version(path, doc);
  check_moved_policy_keys(path, doc);
  check_load_models_form(path, doc);
  if (opts.serving_policies.is_object())
    for (const auto& [site, choice] : opts.serving_policies.items()) doc["policies"][site] = choice;
  validator().validate(path, doc);
  out.json = doc;
  out.name = detail::scenario_name_of(path, doc);
  out.seed = detail::seed_of(path, doc);
  inf::InferenceScenario& sc = out.inference;

  // Instance types: the shipped catalog and the scenario's own rows over it.
  const detail::ScenarioCatalog cat = detail::scenario_catalog(path, doc, opts.catalog_path, out.inputs);
  out.catalog_path = cat.shipped_path;
  sc.catalog = cat.catalog;

  InferenceLoad ld(path, doc, opts, out, cat);
  ld.read_endpoint();
  ld.read_server();
  ld.read_policies();
  ld.read_models();
  ld.read_load_models();
  ld.check_artifact_times();
  ld.read_traffic();
  ld.read_output_and_slo();
  return out;
}

}  // namespace mltwin::io
