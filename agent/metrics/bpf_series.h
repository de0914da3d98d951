// The BPF part of /metrics: handler and softirq time, NAPI polls, drops, socket fill and truesize,
// as cumulative counters from the probes (since they were attached; softirq time since the agent
// started, from the windows' estimates) so that rate() works, plus the window's peaks as gauges.
// Per-socket series are kept for the top sockets only.
#pragma once

#include <cstddef>

#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class BpfSeries {
 public:
  // max_sockets: how many sockets get their own series, ranked by drops in the window, then by
  // peak fill.
  BpfSeries(prometheus::Registry& registry, size_t max_sockets);

  void Update(const model::Snapshot& snapshot, const model::Window& window);

 private:
  void UpdateIrqs(const driver::BpfCounters* counters);
  void UpdateSoftirqs(const driver::BpfCounters* counters, const model::Window& window);
  void UpdateNapis(const driver::BpfCounters* counters);
  void UpdateDrops(const driver::BpfCounters* counters);
  void UpdateSockets(const driver::BpfCounters* counters, const model::Window& window);
  void UpdateTruesize(const driver::BpfCounters* counters);

  size_t max_sockets_;
  CounterSeries irq_handler_calls_;
  CounterSeries irq_handler_seconds_;
  CounterSeries softirq_seconds_;
  CounterSums softirq_seconds_totals_;  // the windows' estimates added up
  CounterSeries softirq_raised_;
  CounterSeries softirq_untimed_seconds_;
  CounterSeries softirq_timing_links_;
  CounterSeries softirq_timing_link_cpu_seconds_;
  CounterSeries napi_polls_;
  CounterSeries napi_packets_;
  CounterSeries napi_budget_exhausted_;
  CounterSeries napi_tx_completions_;
  GaugeSeries napi_budget_;
  HistogramSeries napi_work_;
  CounterSeries drops_;
  CounterSeries socket_enqueues_;
  CounterSeries socket_rcvqueue_full_;
  CounterSeries socket_udp_queue_failures_;
  GaugeSeries socket_rcvbuf_;
  GaugeSeries socket_peak_fill_;
  GaugeSeries socket_truesize_;
  HistogramSeries truesize_;
};

}  // namespace nictune::metrics
