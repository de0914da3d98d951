// SPDX-License-Identifier: Apache-2.0
// How the sampling loop's per-interval work grows with the host: queues, CPUs and tracked
// sockets, one at a time from a small base (4 queues, 2 CPUs, 10 sockets). Each benchmark
// iteration is one real Sampler::Step, as nictuned's loop calls it every --interval: collect a
// snapshot (procfs/sysfs text of a synthetic host, counters of a synthetic probe source), compute
// the interval's Window, update /metrics, append to a real SQLite store and run its maintenance,
// the per-packet switch, the topology, and every 10th interval a tuner window (observation from
// the host's knob files, tuner::Recommend, the store's recommendations, Tuning in recommend
// mode). The synthetic host's counters move between iterations (untimed), one second per interval.
//
// Reported per interval: CPU time (the benchmark's own, and step_cpu_us measured around Step
// alone), the collection's share, the tuner window's cost, store rows, and the cost per item
// (ns_per_queue, ns_per_cpu, ns_per_socket). After the runs a table gives, per swept dimension,
// the growth exponent between its two largest sizes, log(t2 / t1) / log(n2 / n1) (1 is linear),
// and the same for the time above the smallest size's (t - t0), which the fixed cost cannot hide.
// Figures, never pass/fail.
#include <time.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "agent/actuate/actuator.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/metrics/exporter.h"
#include "agent/metrics/tuning_series.h"
#include "agent/service/health_metrics.h"
#include "agent/service/per_packet_switch.h"
#include "agent/service/real_ports.h"
#include "agent/service/sampler.h"
#include "agent/service/service_state.h"
#include "agent/service/tuning.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "agent/topology.h"
#include "benchmark/benchmark.h"
#include "tests/support/synthetic_host.h"
#include "tests/support/synthetic_probes.h"
#include "tests/support/temp_dir.h"

namespace nictune::service {
namespace {

using testing_support::SyntheticHost;
using testing_support::SyntheticProbes;

struct HostSize {
  int queues = 4;
  int cpus = 2;
  int sockets = 10;
};

constexpr int64_t kStartUnixSeconds = 1'800'000'000;
constexpr uint64_t kStartMonotonicNs = 1'000'000'000'000;

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The store, counting the rows each interval writes.
class CountingHistory : public HistorySink {
 public:
  explicit CountingHistory(store::Store& store) : store_(store) {}
  absl::StatusOr<store::AppendResult> AppendSamples(
      absl::Time ts, const std::vector<store::SeriesSample>& samples) override {
    absl::StatusOr<store::AppendResult> appended = store_.AppendSamples(ts, samples);
    if (appended.ok()) rows += static_cast<uint64_t>(appended->rows_written);
    if (!appended.ok()) last_error = appended.status();
    return appended;
  }
  absl::StatusOr<store::MaintenanceReport> Maintain(absl::Time now) override {
    absl::StatusOr<store::MaintenanceReport> report = store_.Maintain(now);
    if (!report.ok()) last_error = report.status();
    return report;
  }
  absl::Status AppendRecommendations(
      const std::vector<store::RecommendationRecord>& records) override {
    absl::Status appended = store_.AppendRecommendations(records);
    if (appended.ok()) recommendations += records.size();
    if (!appended.ok()) last_error = appended;
    return appended;
  }

  uint64_t rows = 0;
  uint64_t recommendations = 0;
  absl::Status last_error;

 private:
  store::Store& store_;
};

// nictuned's RunService wiring in recommend mode, over a synthetic host and probe source.
class SamplingAgent {
 public:
  static absl::StatusOr<std::unique_ptr<SamplingAgent>> Create(const HostSize& size) {
    absl::StatusOr<SyntheticHost> host = SyntheticHost::Create(
        testing_support::SyntheticHostShape{.queues = size.queues, .cpus = size.cpus});
    if (!host.ok()) return host.status();
    absl::StatusOr<testing_support::TempDir> state_dir =
        testing_support::TempDir::Create("nictune-scaling-bench-");
    if (!state_dir.ok()) return state_dir.status();
    absl::StatusOr<std::unique_ptr<store::Journal>> journal =
        store::Journal::Open(state_dir->path(), absl::Seconds(5), absl::Now());
    if (!journal.ok()) return journal.status();
    absl::StatusOr<std::unique_ptr<store::Store>> store =
        store::Store::Open(state_dir->path(), store::StoreOptions{});
    if (!store.ok()) return store.status();
    return std::unique_ptr<SamplingAgent>(new SamplingAgent(
        size, *std::move(host), *std::move(state_dir), *std::move(journal), *std::move(store)));
  }

  // The counters one interval later (not part of the agent's work).
  absl::Status NextInterval() {
    if (absl::Status advanced = host_.Advance(); !advanced.ok()) return advanced;
    probes_.Advance(MonotonicNs());
    return absl::OkStatus();
  }

  StepOutcome Step() { return sampler_.Step(absl::FromUnixSeconds(UnixSeconds())); }

  const CountingHistory& history() const { return history_; }
  const ServiceState& state() const { return state_; }
  bool per_packet_on() const { return probes_.per_packet_on(); }

 private:
  SamplingAgent(const HostSize& size, SyntheticHost host, testing_support::TempDir state_dir,
                std::unique_ptr<store::Journal> journal, std::unique_ptr<store::Store> store)
      : host_(std::move(host)),
        probes_(testing_support::SyntheticProbeShape{
            .queues = size.queues, .cpus = size.cpus, .sockets = size.sockets}),
        paths_{.proc = host_.proc_root(), .sys = host_.sys_root()},
        collector_(
            paths_, &probes_, "", /*sockets=*/nullptr, /*links=*/nullptr,
            collect::SnapshotClock{.monotonic_ns = [this] { return MonotonicNs(); },
                                   .unix_ns = [this] { return UnixSeconds() * 1'000'000'000; }}),
        topology_reader_(paths_),
        snapshots_(collector_),
        topology_(topology_reader_),
        state_dir_(std::move(state_dir)),
        journal_(std::move(journal)),
        store_(std::move(store)),
        history_(*store_),
        observations_(paths_, topology_),
        tuning_series_(exporter_.registry()),
        actuator_(std::vector<driver::knobs::KnobProvider*>{}, *journal_, "synthetic-boot"),
        tuning_(actuator_, *journal_, tuner::ControllerConfig{}, Mode::kRecommend, &tuning_series_),
        health_(exporter_.registry()),
        per_packet_(probes_, PerPacketSwitchOptions{}),
        sampler_(SamplerPorts{.snapshots = &snapshots_,
                              .topology = &topology_,
                              .history = &history_,
                              .observations = &observations_,
                              .probes = &probes_,
                              .tuning = &tuning_,
                              .per_packet = &per_packet_},
                 SamplerSettings{}, state_, exporter_, &health_) {
    state_.SetStorePath(store_->path());
    state_.SetBpf({.in_use = true, .programs = probes_.Status()});
  }

  uint64_t MonotonicNs() const { return kStartMonotonicNs + host_.tick() * 1'000'000'000u; }
  int64_t UnixSeconds() const { return kStartUnixSeconds + static_cast<int64_t>(host_.tick()); }

  SyntheticHost host_;
  SyntheticProbes probes_;
  collect::CollectorPaths paths_;
  collect::SnapshotCollector collector_;
  agent::TopologyReader topology_reader_;
  CollectorSnapshots snapshots_;
  ReaderTopology topology_;
  testing_support::TempDir state_dir_;
  std::unique_ptr<store::Journal> journal_;
  std::unique_ptr<store::Store> store_;
  CountingHistory history_;
  HostObservations observations_;
  ServiceState state_{ServiceConfig{.mode = Mode::kRecommend}};
  metrics::MetricsExporter exporter_;
  metrics::TuningSeries tuning_series_;
  actuate::Actuator actuator_;
  Tuning tuning_;
  HealthMetrics health_;
  PerPacketSwitch per_packet_;
  Sampler sampler_;
};

// One sampling interval per iteration, after a warm-up of two tuner windows (the starting
// snapshot, the first topology read, the per-packet switch and its restarted window).
void SamplingInterval(benchmark::State& bench, HostSize size) {
  absl::StatusOr<std::unique_ptr<SamplingAgent>> created = SamplingAgent::Create(size);
  if (!created.ok()) {
    bench.SkipWithError(created.status().ToString().c_str());
    return;
  }
  SamplingAgent& agent = **created;
  for (int warm = 0; warm < 21; ++warm) {
    if (absl::Status next = agent.NextInterval(); !next.ok()) {
      bench.SkipWithError(next.ToString().c_str());
      return;
    }
    agent.Step();
  }
  const uint64_t rows_before = agent.history().rows;
  uint64_t step_ns = 0, window_ns = 0, windows = 0, intervals = 0;
  double collect_seconds = 0;
  for (auto _ : bench) {
    bench.PauseTiming();
    if (absl::Status next = agent.NextInterval(); !next.ok()) {
      bench.SkipWithError(next.ToString().c_str());
      break;
    }
    bench.ResumeTiming();
    const uint64_t start = ThreadCpuNs();
    const StepOutcome outcome = agent.Step();
    const uint64_t spent = ThreadCpuNs() - start;
    step_ns += spent;
    collect_seconds += agent.state().Status().sampling.last_sampling_seconds;
    if (outcome.window_closed) {
      window_ns += spent;
      ++windows;
    }
    if (outcome.sampled) ++intervals;
  }
  if (intervals == 0) return;
  if (!agent.history().last_error.ok()) {
    bench.SkipWithError(absl::StrCat("store: ", agent.history().last_error.ToString()).c_str());
    return;
  }
  const double per_interval_ns = static_cast<double>(step_ns) / static_cast<double>(intervals);
  bench.counters["queues"] = size.queues;
  bench.counters["cpus"] = size.cpus;
  bench.counters["sockets"] = size.sockets;
  bench.counters["step_cpu_us"] = per_interval_ns / 1e3;
  bench.counters["collect_us"] = collect_seconds / static_cast<double>(intervals) * 1e6;
  bench.counters["window_close_us"] =
      windows > 0 ? static_cast<double>(window_ns) / static_cast<double>(windows) / 1e3 : 0;
  bench.counters["store_rows"] =
      static_cast<double>(agent.history().rows - rows_before) / static_cast<double>(intervals);
  bench.counters["ns_per_queue"] = per_interval_ns / size.queues;
  bench.counters["ns_per_cpu"] = per_interval_ns / size.cpus;
  bench.counters["ns_per_socket"] = per_interval_ns / size.sockets;
  bench.counters["recommendations"] = static_cast<double>(
      agent.state().Recommendations() ? agent.state().Recommendations()->recommendations.size()
                                      : 0);
  bench.counters["per_packet_on"] = agent.per_packet_on() ? 1 : 0;
}

// Intervals per measurement: 10 whole tuner windows, so each size pays the same share of window
// closes and the store holds the same number of rows per series.
constexpr int kIntervals = 100;

void RegisterSweeps() {
  const HostSize base;
  struct Sweep {
    const char* dimension;
    std::vector<int> values;
    int HostSize::*field;
  };
  const Sweep sweeps[] = {{"queues", {4, 64, 256}, &HostSize::queues},
                          {"cpus", {2, 64, 256}, &HostSize::cpus},
                          {"sockets", {10, 100, 10000}, &HostSize::sockets}};
  for (const Sweep& sweep : sweeps) {
    for (int value : sweep.values) {
      HostSize size = base;
      size.*sweep.field = value;
      benchmark::RegisterBenchmark(
          absl::StrCat("SamplingInterval/", sweep.dimension, ":", value).c_str(), SamplingInterval,
          size)
          ->Iterations(kIntervals)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

// Prints the console table as usual, then each dimension's growth exponent between its two
// largest sizes, from the mean CPU time per interval (the median over repetitions when repeated).
class ExponentReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      // With --benchmark_repetitions the median stands for the size; else the one run.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.error_occurred || (run.run_type != Run::RT_Iteration && !median)) continue;
      const std::string name = run.run_name.function_name;
      const size_t slash = name.find('/'), colon = name.find(':');
      if (slash == std::string::npos || colon == std::string::npos) continue;
      const std::string dimension = name.substr(slash + 1, colon - slash - 1);
      const auto counter = run.counters.find(dimension);
      const auto step = run.counters.find("step_cpu_us");
      if (counter == run.counters.end() || step == run.counters.end()) continue;
      const double size = counter->second.value;
      if (median || medians_[dimension].count(size) == 0) {
        points_[dimension][size] = step->second.value;
      }
      if (median) medians_[dimension].insert(size);
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\n| dimension | CPU per interval (us) by size | exponent, last two sizes | exponent of "
        "the growth above the smallest size |\n|---|---|---:|---:|\n");
    for (const auto& [dimension, by_size] : points_) {
      if (by_size.size() < 3) continue;
      const auto smallest = by_size.begin();
      const auto last = std::prev(by_size.end());
      const auto before = std::prev(last);
      const double size_ratio = std::log(last->first / before->first);
      const double exponent = std::log(last->second / before->second) / size_ratio;
      // The fixed cost of an interval hides how the rest grows: this one is without it.
      const double growth_exponent =
          std::log((last->second - smallest->second) / (before->second - smallest->second)) /
          size_ratio;
      std::string series;
      for (const auto& [n, us] : by_size) {
        absl::StrAppend(&series, series.empty() ? "" : ", ", n, ": ", absl::StrFormat("%.0f", us));
      }
      std::printf("| %s | %s | %.2f | %.2f |\n", dimension.c_str(), series.c_str(), exponent,
                  growth_exponent);
    }
  }

 private:
  std::map<std::string, std::map<double, double>> points_;
  std::map<std::string, std::set<double>> medians_;
};

}  // namespace
}  // namespace nictune::service

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  nictune::service::RegisterSweeps();
  nictune::service::ExponentReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
