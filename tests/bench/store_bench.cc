// SPDX-License-Identifier: Apache-2.0
// The cost of storing one sampling window: a small host (2 CPUs, 10 series) against a large one
// (256 CPUs, 5000 series), appended alone and followed by the Maintain() call the sampling loop
// makes. Figures only; the database lives under /var/tmp (a real disk where /tmp may be tmpfs).
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "agent/store/store.h"
#include "benchmark/benchmark.h"

namespace nictune::store {
namespace {

// Per-CPU series first (softnet, softirqs, cpu modes), the rest per irq/device label.
std::vector<SeriesSample> HostWindow(int cpus, int series, double value) {
  static const char* const kPerCpu[] = {
      "nictune_softnet_processed_total", "nictune_softnet_dropped_total",
      "nictune_softnet_times_squeezed_total", "nictune_softirqs_total"};
  std::vector<SeriesSample> samples;
  samples.reserve(static_cast<size_t>(series));
  for (int i = 0; static_cast<int>(samples.size()) < series; ++i) {
    const int cpu = i % cpus;
    const int kind = i / cpus;
    if (kind < 4) {
      samples.push_back({kPerCpu[kind], {{"cpu", std::to_string(cpu)}}, value + i});
    } else {
      samples.push_back({"nictune_interrupts_total",
                         {{"cpu", std::to_string(cpu)}, {"irq", std::to_string(kind)}},
                         value + i});
    }
  }
  return samples;
}

void AppendWindow(benchmark::State& state, bool maintain) {
  const int cpus = static_cast<int>(state.range(0));
  const int series = static_cast<int>(state.range(1));
  char pattern[] = "/var/tmp/nictune-store-bench-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    state.SkipWithError("mkdtemp under /var/tmp failed");
    return;
  }
  const std::string dir = pattern;
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, StoreOptions{});
    if (!store.ok()) {
      state.SkipWithError(std::string(store.status().message()).c_str());
      return;
    }
    absl::Time ts = absl::FromUnixSeconds(1'700'000'040);
    int64_t windows = 0;
    for (auto _ : state) {
      state.PauseTiming();
      const std::vector<SeriesSample> samples =
          HostWindow(cpus, series, static_cast<double>(windows));
      state.ResumeTiming();
      absl::StatusOr<AppendResult> appended = (*store)->AppendSamples(ts, samples);
      if (!appended.ok()) {
        state.SkipWithError(std::string(appended.status().message()).c_str());
        break;
      }
      if (maintain) {
        absl::StatusOr<MaintenanceReport> report = (*store)->Maintain(ts + absl::Seconds(1));
        if (!report.ok()) {
          state.SkipWithError(std::string(report.status().message()).c_str());
          break;
        }
      }
      ts += absl::Seconds(1);
      ++windows;
    }
    absl::StatusOr<StoreStats> stats = (*store)->Stats();
    if (stats.ok() && windows > 0) {
      state.counters["series"] = series;
      state.counters["rows_per_s"] =
          benchmark::Counter(static_cast<double>(windows) * series, benchmark::Counter::kIsRate);
      state.counters["disk_bytes_per_window"] =
          static_cast<double>(stats->file_bytes) / static_cast<double>(windows);
    }
  }
  std::filesystem::remove_all(dir);
}

void BM_AppendWindow(benchmark::State& state) { AppendWindow(state, false); }
void BM_AppendAndMaintainWindow(benchmark::State& state) { AppendWindow(state, true); }

BENCHMARK(BM_AppendWindow)->Args({2, 10})->Args({256, 5000})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AppendAndMaintainWindow)
    ->Args({2, 10})
    ->Args({256, 5000})
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(120);  // two minutes of simulated sampling: 12 downsampled 10 s buckets

}  // namespace
}  // namespace nictune::store

BENCHMARK_MAIN();
