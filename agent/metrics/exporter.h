// SPDX-License-Identifier: Apache-2.0
// The /metrics exporter: publishes each sample into a prometheus-cpp registry and serializes it
// in the text format 0.0.4. Counters are the kernel's and the probes' cumulative counters, so
// Prometheus' rate() works at any scrape interval; gauges are levels and window peaks.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "agent/metrics/agent_series.h"
#include "agent/metrics/bpf_series.h"
#include "agent/metrics/emulated_nic_series.h"
#include "agent/metrics/map_pressure_series.h"
#include "agent/metrics/napi_poller_series.h"
#include "agent/metrics/probe_series.h"
#include "agent/metrics/procfs_series.h"
#include "agent/metrics/series_options.h"
#include "agent/metrics/socket_series.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class MetricsExporter {
 public:
  explicit MetricsExporter(SeriesOptions options = {});

  // Publishes the window that ends at `latest` (the later snapshot of the window). Safe to call
  // while another thread serializes.
  void Update(const model::Snapshot& latest, const model::Window& window, const AgentCost& cost);

  // The exposition, text format 0.0.4.
  std::string Text() const;

  // For series registered elsewhere but served with these (the service's health metrics).
  prometheus::Registry& registry() { return *registry_; }

 private:
  mutable std::mutex mutex_;  // a scrape sees one whole update, never half of one
  std::shared_ptr<prometheus::Registry> registry_;
  ProcfsSeries procfs_;
  BpfSeries bpf_;
  ProbeSeries probes_;
  MapPressureSeries maps_;
  SocketSeries sockets_;
  EmulatedNicSeries emulated_nics_;
  NapiPollerSeries napi_pollers_;
  AgentSeries agent_;
};

// The Content-Type of Text().
inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace nictune::metrics
