// SPDX-License-Identifier: Apache-2.0
// What bounds the series /metrics and the store keep (docs/metrics.md "Series budget"): set once
// from nictuned's flags and read by both, so that history never has a series /metrics would not.
#pragma once

#include <cstddef>

namespace nictune::metrics {

struct SeriesOptions {
  // Sockets that get their own series: the top ones by drops in the window, then by peak fill.
  size_t max_sockets = 10;
  // (reason, proto, device) label sets of the drops at a time (drop_series_cap.h); drops of
  // other sets count in one overflow series.
  size_t max_drop_series = 64;
  // Interrupt counts and handler time per irq and CPU (irqs x CPUs series: 262,144 for 4096 irq
  // lines on 64 CPUs) instead of per irq, summed over CPUs.
  bool interrupts_per_cpu = false;
  // CPU time by mode, softirq counts and time, softnet counters and hard-IRQ time per CPU (about
  // 45 series a CPU) instead of summed over CPUs.
  bool per_cpu = true;
};

}  // namespace nictune::metrics
