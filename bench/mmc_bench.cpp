// M/M/c FIFO queue on mltwin's kernel: the model of /work/shared/peers/mmc_ref.cpp, written
// the way a model in this repo is written (EventHandler objects, integer-ns Time, named RNG
// streams, Boost.Random distributions), so that its speed is the kernel's speed and its Wq can
// be checked against Erlang C.
//
// Usage: mmc_bench [N=2000000] [c=8] [rho=0.9] [seed=12345]
// mu = 1, lambda = rho * c. The model is dimensionless; here 1 time unit = 1 s, and each
// exponential draw (in s) becomes a Duration rounded to the nearest ns.
// Output: one key=value line in the peers' format. `events` counts kernel events fired
// (one arrival and one departure per customer, as the peers count).
//
// The sample path differs from cpp_ref's (different engine seeding and exponential
// algorithm), so Wq agrees statistically, not digit for digit: bench/mmc_seeds.py checks the
// mean over 20 seeds against Erlang C.
#include <boost/random/exponential_distribution.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mltwin/core/rng.hpp"
#include "mltwin/core/simulator.hpp"
#include "mltwin/core/time.hpp"

namespace {

namespace mc = mltwin::core;

constexpr int kBatches = 20;
constexpr double kT19 = 2.093;  // t_{0.975, 19}: 95% CI from 20 batch means

// Waiting times in service-start order (== arrival order under FIFO), in 20 batches of
// N/20 consecutive customers, as the peers do.
class WaitStats {
 public:
  explicit WaitStats(std::uint64_t n) : batch_size_(n / kBatches) {}
  void record(mc::Duration wait) {
    std::uint64_t b = batch_size_ ? started_ / batch_size_ : 0;
    if (b >= kBatches) b = kBatches - 1;
    sum_[b] += wait.seconds();
    ++cnt_[b];
    waited_ += wait > mc::Duration::ns(0) ? 1 : 0;
    ++started_;
  }
  std::uint64_t started() const { return started_; }
  double p_wait() const { return static_cast<double>(waited_) / static_cast<double>(started_); }
  double mean() const {
    double s = 0.0;
    for (double x : sum_) s += x;
    return s / static_cast<double>(started_);
  }
  double ci95_half_width() const {
    double bm[kBatches];
    double mbar = 0.0;
    for (int b = 0; b < kBatches; ++b) {
      bm[b] = sum_[b] / static_cast<double>(cnt_[b] ? cnt_[b] : 1);
      mbar += bm[b];
    }
    mbar /= kBatches;
    double var = 0.0;
    for (double x : bm) var += (x - mbar) * (x - mbar);
    var /= (kBatches - 1);
    return kT19 * std::sqrt(var / kBatches);
  }

 private:
  std::uint64_t batch_size_;
  std::uint64_t started_ = 0;
  std::uint64_t waited_ = 0;
  double sum_[kBatches] = {};
  std::uint64_t cnt_[kBatches] = {};
};

// FIFO of arrival times: a power-of-two ring buffer, so the steady state allocates nothing
// (std::deque allocates and frees a block every few hundred pushes).
class TimeFifo {
 public:
  TimeFifo() : buf_(64) {}
  bool empty() const { return head_ == tail_; }
  void push(mc::Time t) {
    if (tail_ - head_ == buf_.size()) grow();
    buf_[tail_++ & (buf_.size() - 1)] = t;
  }
  mc::Time pop() { return buf_[head_++ & (buf_.size() - 1)]; }

 private:
  void grow() {
    std::vector<mc::Time> bigger(buf_.size() * 2);
    for (std::uint64_t i = head_; i != tail_; ++i)
      bigger[i - head_] = buf_[i & (buf_.size() - 1)];
    tail_ -= head_;
    head_ = 0;
    buf_.swap(bigger);
  }
  std::vector<mc::Time> buf_;
  std::uint64_t head_ = 0, tail_ = 0;
};

// The c servers and their queue. Its events are service completions (departures).
class Servers final : public mc::EventHandler {
 public:
  Servers(mc::Engine& rng, int c, double mu, WaitStats& stats)
      : rng_(rng), service_(mu), c_(c), stats_(stats) {}

  // A customer arrives now: start service if a server is free, else join the queue.
  void arrive(mc::Simulator& sim) {
    if (busy_ < c_) {
      ++busy_;
      stats_.record(mc::Duration::ns(0));
      start_service(sim);
    } else {
      queue_.push(sim.now());
    }
  }

  // A departure: the freed server takes the head of the queue, or goes idle.
  void on_event(mc::Simulator& sim, std::uint64_t /*payload*/) override {
    if (!queue_.empty()) {
      stats_.record(sim.now() - queue_.pop());
      start_service(sim);
    } else {
      --busy_;
    }
  }

 private:
  void start_service(mc::Simulator& sim) {
    sim.schedule_in(mc::Duration::from_seconds(service_(rng_)), this);
  }
  mc::Engine& rng_;
  boost::random::exponential_distribution<double> service_;
  int c_;
  int busy_ = 0;
  TimeFifo queue_;
  WaitStats& stats_;
};

// The Poisson source: each arrival schedules the next, until N customers have been generated.
class Arrivals final : public mc::EventHandler {
 public:
  Arrivals(mc::Engine& rng, double lambda, std::uint64_t n, Servers& servers)
      : rng_(rng), inter_(lambda), n_(n), servers_(servers) {}

  void start(mc::Simulator& sim) {
    if (n_ == 0) return;
    sim.schedule_in(next_gap(), this);
    generated_ = 1;
  }

  void on_event(mc::Simulator& sim, std::uint64_t /*payload*/) override {
    if (generated_ < n_) {
      sim.schedule_in(next_gap(), this);
      ++generated_;
    }
    servers_.arrive(sim);
  }

 private:
  mc::Duration next_gap() { return mc::Duration::from_seconds(inter_(rng_)); }
  mc::Engine& rng_;
  boost::random::exponential_distribution<double> inter_;
  std::uint64_t n_;
  std::uint64_t generated_ = 0;
  Servers& servers_;
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000ULL;
  const int c = argc > 2 ? std::atoi(argv[2]) : 8;
  const double rho = argc > 3 ? std::atof(argv[3]) : 0.9;
  const std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 12345ULL;
  if (n == 0 || c < 1 || !(rho > 0.0)) {
    std::fprintf(stderr, "usage: mmc_bench [N=2000000 >0] [c=8 >=1] [rho=0.9 >0] [seed=12345]\n");
    return 2;
  }
  const double mu = 1.0;
  const double lambda = rho * c * mu;

  mc::RngStreams rngs(seed);
  WaitStats stats(n);
  Servers servers(rngs.stream("mmc.service"), c, mu, stats);
  Arrivals arrivals(rngs.stream("mmc.arrivals"), lambda, n, servers);
  mc::Simulator sim;

  const auto wall0 = std::chrono::steady_clock::now();
  arrivals.start(sim);
  const std::uint64_t events = sim.run();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  std::printf(
      "impl=mltwin customers=%llu Wq=%.6f ci95=%.6f Pwait=%.6f events=%llu "
      "sim_end=%.3f loop_wall_s=%.4f loop_events_per_s=%.4e\n",
      static_cast<unsigned long long>(stats.started()), stats.mean(), stats.ci95_half_width(),
      stats.p_wait(), static_cast<unsigned long long>(events), sim.now().seconds(), wall,
      static_cast<double>(events) / wall);
  return 0;
}
