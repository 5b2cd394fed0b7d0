#include "mltwin/io/philly.hpp"

// csv.h (Fast C++ CSV Parser) trips GCC 12's -Wstringop-truncation in its error helper.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>

#include "mltwin/io/scenario.hpp"
#include "scenario_common.hpp"

namespace mltwin::io {

namespace {
// "YYYY-MM-DD HH:MM:SS" (UTC) -> seconds since the Unix epoch; -1 if malformed.
std::int64_t parse_timestamp(const std::string& s) {
  std::tm tm{};
  int y, mo, d, h, mi, se;
  char tail;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6) return -1;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return -1;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = se;
  return static_cast<std::int64_t>(timegm(&tm));
}

struct Row {
  std::int64_t submit_s;
  double duration_s;
  int gpus;
  std::string cluster;
  std::int64_t line;
};
}  // namespace

std::vector<models::TrainingJobSpec> read_philly(const std::string& path, const PhillyMapping& m) {
  if (!std::ifstream(path, std::ios::binary)) throw ScenarioError(path + ": cannot open the Philly trace (set MLTWIN_DATA or --data)");
  std::string data = detail::read_input_file(path, "Philly trace", kMaxTraceFileBytes);
  // The published file ends with an empty line; blank lines at the end are not rows.
  // Strip the blank lines (LF or CRLF) at the end, then end the last row with one newline.
  while (!data.empty() && (data.back() == '\n' || data.back() == '\r' || data.back() == ' ' || data.back() == '\t'))
    data.pop_back();
  data.push_back('\n');
  std::vector<Row> rows;
  try {
    ::io::CSVReader<5, ::io::trim_chars<' ', '\t'>, ::io::no_quote_escape<','>> in(path, data.data(), data.data() + data.size());
    in.read_header(::io::ignore_extra_column, "timestamp", "duration", "num_gpus", "gpu_time", "cluster");
    std::string ts, cluster;
    double duration, gpu_time;
    int gpus;
    while (in.read_row(ts, duration, gpus, gpu_time, cluster)) {
      const std::int64_t line = in.get_file_line();
      const std::int64_t t = parse_timestamp(ts);
      if (t < 0)
        throw ScenarioError(path + ":" + std::to_string(line) + ": timestamp: expected 'YYYY-MM-DD HH:MM:SS', got '" +
                            detail::printable(ts) + "'");
      if (!(duration >= 0) || !std::isfinite(duration))
        throw ScenarioError(path + ":" + std::to_string(line) + ": duration: expected seconds >= 0");
      if (duration > kMaxScenarioTime.seconds())
        throw ScenarioError(path + ":" + std::to_string(line) + ": duration: " + std::to_string(duration) +
                            " s is beyond the longest time a scenario may give, " + kMaxScenarioTimeText);
      if (gpus < 1) throw ScenarioError(path + ":" + std::to_string(line) + ": num_gpus: expected an integer >= 1");
      if (cluster.empty()) throw ScenarioError(path + ":" + std::to_string(line) + ": cluster: empty");
      if (std::string p = detail::control_character_problem(cluster); !p.empty())
        throw ScenarioError(path + ":" + std::to_string(line) + ": cluster: " + p);
      rows.push_back({t, duration, gpus, cluster, line});
    }
  } catch (const ::io::error::base& e) {
    throw ScenarioError(std::string("Philly trace: ") + e.what());
  }
  if (rows.empty()) throw ScenarioError(path + ": the trace has no jobs");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.submit_s < b.submit_s; });
  if (m.max_jobs > 0 && rows.size() > m.max_jobs) rows.resize(m.max_jobs);
  const std::int64_t t0 = rows.front().submit_s;
  // Submit times are offsets from the first: the span must fit a scenario's times.
  if (rows.back().submit_s - t0 > kMaxScenarioTime.count_ns() / 1'000'000'000)
    throw ScenarioError(path + ":" + std::to_string(rows.back().line) + ": timestamp: the trace spans " +
                        std::to_string(rows.back().submit_s - t0) + " s from its first job (line " + std::to_string(rows.front().line) +
                        "), beyond the longest time a scenario may give, " + kMaxScenarioTimeText);

  std::vector<models::TrainingJobSpec> jobs;
  jobs.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double devices_d = r.gpus * m.neuron_devices_per_gpu;
    if (devices_d > 1e6)
      throw ScenarioError(path + ":" + std::to_string(r.line) + ": num_gpus " + std::to_string(r.gpus) + " maps to " +
                          std::to_string(devices_d) + " Neuron devices; a job may request at most 1000000");
    const int devices = static_cast<int>(std::llround(devices_d));
    if (std::fabs(devices_d - devices) > 1e-9 || devices < 1)
      throw ScenarioError(path + ":" + std::to_string(r.line) + ": num_gpus " + std::to_string(r.gpus) +
                          " maps to a fractional number of Neuron devices (" + std::to_string(devices_d) + ")");
    models::TrainingJobSpec j;
    char name[32];
    std::snprintf(name, sizeof name, "philly-%05zu", i);
    j.name = name;
    j.queue = m.queue_prefix + r.cluster;
    j.submit = core::Time::from_ns((r.submit_s - t0) * 1'000'000'000LL);
    j.duration = core::Duration::from_seconds(r.duration_s);
    j.priority = m.priority;
    j.trace_row = r.line;
    j.trace_gpus = r.gpus;
    if (devices <= m.devices_per_node) {
      j.nnodes = 1;
      j.neuron_devices_per_pod = devices;
      j.efa_per_pod = 0;
    } else {
      j.nnodes = (devices + m.devices_per_node - 1) / m.devices_per_node;
      if (devices % j.nnodes != 0)
        throw ScenarioError(path + ":" + std::to_string(r.line) + ": " + std::to_string(devices) +
                            " Neuron devices do not split evenly over " + std::to_string(j.nnodes) + " nodes");
      j.neuron_devices_per_pod = devices / j.nnodes;
      j.efa_per_pod = m.whole_efa;
    }
    if (j.neuron_devices_per_pod == m.devices_per_node) {
      j.cpu_per_pod = m.whole_cpu;
      j.memory_bytes_per_pod = m.whole_memory_bytes;
    } else {
      j.cpu_per_pod = m.per_device_cpu * j.neuron_devices_per_pod;
      j.memory_bytes_per_pod = m.per_device_memory_bytes * j.neuron_devices_per_pod;
    }
    j.nproc_per_node = j.neuron_devices_per_pod * m.neuroncores_per_device * m.processes_per_neuroncore;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace mltwin::io
