// mltwin-scheduler: the policy library's volcano-scheduler on a Kubernetes cluster. This
// release runs one cycle on a snapshot (--once --snapshot FILE...) and prints what it decided;
// docs/mltwin-scheduler.md says what it reads and prints. Flags follow volcano-scheduler's
// own (cmd/scheduler/app/options/options.go at v1.12.1) where they exist.
#include <CLI/CLI.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "mltwin/k8s/scheduler_conf.hpp"
#include "mltwin/k8s/snapshot.hpp"
#include "mltwin/policy/go_duration.hpp"
#include "mltwin/policy/version.hpp"
#include "mltwin/scheduler/once.hpp"

int main(int argc, char** argv) {
  using namespace mltwin;
  CLI::App app{"mltwin-scheduler — Volcano v1.12.1's scheduling cycle from mltwin's policy library, on your cluster's state.\n"
               "  kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json > cluster.json\n"
               "  mltwin-scheduler --once --snapshot cluster.json"};
  bool once = false;
  std::vector<std::string> snapshots;
  std::string conf, period = "1s", output = "text", now_text;
  std::vector<std::string> scheduler_names = {"volcano"};
  std::string seed_text = "0";
  app.add_flag("--once", once, "run one scheduling cycle and exit (the only mode of this release)");
  app.add_option("--snapshot", snapshots,
                 "kubectl JSON or YAML (a List, or single objects) to schedule on; several files add up");
  app.add_option("--scheduler-conf", conf,
                 "the scheduler configuration: the volcano-scheduler ConfigMap or its volcano-scheduler.conf (YAML); "
                 "default: the one a twin's snapshot carries, else Volcano's default configuration");
  app.add_option("--schedule-period", period, "the time between cycles, a Go duration (volcano-scheduler's flag; --once runs one)")
      ->capture_default_str();
  app.add_option("--scheduler-name", scheduler_names,
                 "pods whose spec.schedulerName is one of these are scheduled; others only hold their node's resources")
      ->capture_default_str();
  app.add_option("--output,-o", output, "text or json (docs/mltwin-scheduler.md gives the JSON schema)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--now", now_text, "the session's time, RFC 3339 (default: the snapshot's, else the clock)");
  app.add_option("--tiebreak-seed", seed_text,
                 "seeds the choice among equally scored nodes, 0 to 18446744073709551615 (unless the snapshot carries the state)")
      ->capture_default_str();
  app.set_version_flag("--version", std::string("mltwin-scheduler ") + policy::kVersion + " (Volcano " + policy::kVolcanoRelease + " rules)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "mltwin-scheduler: " << e.what() << " (--help lists the flags)\n";
    return 2;
  }

  try {
    if (!once) {
      std::cerr << "mltwin-scheduler: this release runs one cycle on a snapshot: give --once --snapshot FILE "
                   "(a live mode against the API server comes later)\n";
      return 2;
    }
    if (snapshots.empty()) {
      std::cerr << "mltwin-scheduler: --once needs --snapshot FILE (kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json)\n";
      return 2;
    }
    try {
      if (policy::parse_go_duration(period) <= 0) throw std::invalid_argument("must be > 0");
    } catch (const std::invalid_argument& e) {
      std::cerr << "mltwin-scheduler: --schedule-period '" << period << "': " << e.what() << "\n";
      return 2;
    }
    scheduler::OnceOptions opts;
    {
      // Strictly a decimal integer (CLI11 would take "-3" as 2^64 - 3).
      std::uint64_t seed = 0;
      const auto [end, ec] = std::from_chars(seed_text.data(), seed_text.data() + seed_text.size(), seed);
      if (seed_text.empty() || ec != std::errc() || end != seed_text.data() + seed_text.size()) {
        std::cerr << "mltwin-scheduler: --tiebreak-seed '" << seed_text << "': expected an integer from 0 to 18446744073709551615\n";
        return 2;
      }
      opts.tiebreak_seed = seed;
    }
    if (!conf.empty()) {
      std::vector<std::string> warnings;
      opts.config = k8s::read_volcano_scheduler_config(conf, &warnings);
      opts.config_name = "--scheduler-conf " + conf;
      for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
    }
    for (std::size_t i = 0; i < snapshots.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (snapshots[i] == snapshots[j]) {
          std::cerr << "mltwin-scheduler: --snapshot " << snapshots[i] << " is given twice (the files add up to one cluster)\n";
          return 2;
        }
    k8s::Snapshot snap;
    k8s::ReadOptions ropts;
    ropts.scheduler_names = scheduler_names;
    for (const auto& f : snapshots) k8s::read_file(f, snap, ropts);
    if (!now_text.empty()) {
      opts.now = k8s::parse_rfc3339(now_text);
      if (!opts.now) {
        std::cerr << "mltwin-scheduler: --now '" << now_text << "' is not an RFC 3339 time such as 2024-05-01T12:00:00Z\n";
        return 2;
      }
    } else if (!snap.meta.now) {
      opts.now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    }
    const scheduler::Decisions d = scheduler::run_once(snap, opts);
    if (output == "json") std::cout << scheduler::to_json(d).dump(2) << "\n";
    else std::cout << scheduler::to_text(d);
    return 0;
  } catch (const k8s::InputError& e) {
    std::cerr << "mltwin-scheduler: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mltwin-scheduler: " << e.what() << "\n";
    return 1;
  }
}
