// SPDX-License-Identifier: Apache-2.0
// The BPF part of /metrics: handler and softirq time, NAPI polls, drops, socket fill and truesize,
// as cumulative counters from the probes (since they were attached; softirq time since the agent
// started, from the windows' estimates) so that rate() works, plus the window's peaks as gauges.
// Per-socket series are kept for the top sockets only.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "agent/metrics/series_options.h"
#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class BpfSeries {
 public:
  BpfSeries(prometheus::Registry& registry, const SeriesOptions& options);

  void Update(const model::Snapshot& snapshot, const model::Window& window);

 private:
  void UpdateIrqs(const driver::BpfCounters* counters);
  void UpdateSoftirqs(const driver::BpfCounters* counters, const model::Window& window);
  void UpdateNapis(const model::Window& window);
  void UpdateDrops(const model::Window& window);
  void UpdateSockets(const driver::BpfCounters* counters, const model::Window& window);
  void UpdateTruesize(const driver::BpfCounters* counters);

  SeriesOptions options_;
  CounterSeries irq_handler_calls_;
  CounterSeries irq_handler_seconds_;
  CounterSeries hardirq_seconds_;
  CounterSeries softirq_seconds_;
  CounterSums softirq_seconds_totals_;  // the windows' estimates added up
  CounterSeries softirq_raised_;
  CounterSeries softirq_untimed_seconds_;
  CounterSeries napi_polls_;
  CounterSeries napi_packets_;
  CounterSeries napi_budget_exhausted_;
  CounterSeries napi_tx_completions_;
  GaugeSeries napi_budget_;
  HistogramSeries napi_work_;
  // The windows' estimates added up (the probes see part of the time while slotted).
  CounterSums napi_polls_totals_;
  CounterSums napi_packets_totals_;
  CounterSums napi_exhausted_totals_;
  CounterSums napi_tx_totals_;
  std::map<prometheus::Labels, std::pair<std::vector<double>, double>> napi_work_totals_;
  CounterSeries drops_;
  CounterSums drops_totals_;
  CounterSeries socket_enqueues_;
  CounterSeries socket_rcvqueue_full_;
  CounterSeries socket_udp_queue_failures_;
  GaugeSeries socket_rcvbuf_;
  GaugeSeries socket_peak_fill_;
  GaugeSeries socket_drain_gap_;
  GaugeSeries socket_truesize_;
  HistogramSeries truesize_;
};

}  // namespace nictune::metrics
