// SPDX-License-Identifier: Apache-2.0
// How many series nictuned's /metrics carries on hosts of several shapes, beside the written
// budget for that shape (agent/metrics/series_budget.h), and what one scrape costs: synthetic proc
// and sys trees (tests/support/synthetic_host.h) and probe counters
// (tests/support/synthetic_probes.h), two collections a second apart, one window exported.
// Figures, never pass/fail. Run: build/tests/bench/series_count_bench
#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/metrics/exporter.h"
#include "agent/metrics/series_budget.h"
#include "agent/model/window.h"
#include "tests/support/synthetic_host.h"
#include "tests/support/synthetic_probes.h"

namespace nictune {
namespace {

struct Shape {
  const char* name;
  int cpus;
  int queues;
  uint32_t other_irqs;
  int sockets;
};

struct Measured {
  size_t series = 0;
  size_t bytes = 0;
  double text_ms = 0;
};

double NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

absl::StatusOr<Measured> Export(const Shape& shape, const metrics::SeriesOptions& options) {
  absl::StatusOr<testing_support::SyntheticHost> host = testing_support::SyntheticHost::Create(
      {.queues = shape.queues,
       .cpus = shape.cpus,
       .first_queue_irq = shape.other_irqs + 100,
       .other_irqs = shape.other_irqs});
  if (!host.ok()) return host.status();
  testing_support::SyntheticProbes probes({.queues = shape.queues,
                                           .cpus = shape.cpus,
                                           .sockets = shape.sockets,
                                           .first_queue_irq = shape.other_irqs + 100});
  uint64_t tick = 0;
  collect::SnapshotCollector collector(
      {.proc = host->proc_root(), .sys = host->sys_root()}, &probes, "", nullptr, nullptr,
      collect::SnapshotClock{.monotonic_ns = [&tick] { return (1000 + tick) * 1'000'000'000; },
                             .unix_ns = [&tick] {
                               return static_cast<int64_t>(1'800'000'000 + tick) * 1'000'000'000;
                             }});
  probes.Advance((1000 + tick) * 1'000'000'000);
  const model::Snapshot before = collector.Collect();
  ++tick;
  if (absl::Status advanced = host->Advance(); !advanced.ok()) return advanced;
  probes.Advance((1000 + tick) * 1'000'000'000);
  const model::Snapshot after = collector.Collect();
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  if (!window.ok()) return window.status();
  metrics::MetricsExporter exporter(options);
  exporter.Update(after, *window, metrics::AgentCost{});
  const double start = NowMs();
  const std::string text = exporter.Text();
  Measured measured{.bytes = text.size(), .text_ms = NowMs() - start};
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (!absl::StartsWith(line, "#")) ++measured.series;
  }
  return measured;
}

int Run() {
  const Shape shapes[] = {
      {"2 CPUs, 4 queues, 16 other irqs", 2, 4, 16, 10},
      {"32 CPUs, 16 queues, 100 other irqs", 32, 16, 100, 10},
      {"128 CPUs, 64 queues, 200 other irqs", 128, 64, 200, 10},
      {"64 CPUs, 64 queues, 4032 other irqs", 64, 64, 4032, 10},
  };
  std::printf(
      "| host | series | budget | /metrics bytes | serialize ms | irqs per CPU: series | budget "
      "| nothing per CPU: series | budget |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Shape& shape : shapes) {
    const metrics::SeriesOptions defaults;
    const metrics::SeriesOptions per_cpu{.interrupts_per_cpu = true};
    const metrics::SeriesOptions summed{.per_cpu = false};
    absl::StatusOr<Measured> measured = Export(shape, defaults);
    absl::StatusOr<Measured> measured_per_cpu = Export(shape, per_cpu);
    absl::StatusOr<Measured> measured_summed = Export(shape, summed);
    if (!measured.ok() || !measured_per_cpu.ok() || !measured_summed.ok()) {
      std::fprintf(stderr, "%s: %s %s %s\n", shape.name, measured.status().ToString().c_str(),
                   measured_per_cpu.status().ToString().c_str(),
                   measured_summed.status().ToString().c_str());
      return 1;
    }
    // One device (syn0); the synthetic probes' NAPIs are the queues and the drops one
    // reason.
    const metrics::HostShape host{.cpus = static_cast<size_t>(shape.cpus),
                                  .irqs = static_cast<size_t>(shape.queues) + shape.other_irqs,
                                  .devices = 1,
                                  .napis = static_cast<size_t>(shape.queues),
                                  .drop_reasons = 1};
    std::printf("| %s | %zu | %zu | %zu | %.1f | %zu | %zu | %zu | %zu |\n", shape.name,
                measured->series, metrics::BudgetFor(host, defaults).total, measured->bytes,
                measured->text_ms, measured_per_cpu->series,
                metrics::BudgetFor(host, per_cpu).total, measured_summed->series,
                metrics::BudgetFor(host, summed).total);
  }
  std::printf("\nThe budget's fixed part (no CPU, irq, device, queue, reason or socket): %zu\n",
              metrics::BudgetFor({}, {.max_sockets = 0}).total);
  return 0;
}

}  // namespace
}  // namespace nictune

int main() { return nictune::Run(); }
