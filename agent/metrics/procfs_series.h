// SPDX-License-Identifier: Apache-2.0
// The procfs and sysfs part of /metrics: the kernel's cumulative counters from a Snapshot, named
// like node_exporter's (node_cpu_seconds_total, node_interrupts_total, node_softnet_*,
// node_network_*) so the two can be joined; netstat counters in snake_case, which promtool
// demands.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/metrics/series_options.h"
#include "agent/metrics/swept_series.h"
#include "agent/metrics/wrap_extender.h"
#include "agent/model/snapshot.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class ProcfsSeries {
 public:
  ProcfsSeries(prometheus::Registry& registry, const SeriesOptions& options);

  void Update(const model::Snapshot& snapshot);

 private:
  // One /proc/net/snmp or netstat counter, exported as nictune_netstat_<snake_case>_total.
  struct ProtocolCounter {
    std::string section;
    std::string name;
    std::unique_ptr<CounterSeries> series;
  };
  // One /sys/class/net/DEV/statistics file exported as nictune_network_*_total{device}.
  struct DeviceStatistic {
    std::string file;
    std::unique_ptr<CounterSeries> series;
  };
  enum class SoftnetColumn { kProcessed, kDropped, kTimeSqueeze, kReceivedRps, kFlowLimit };

  void UpdateCpuTimes(const model::Snapshot& snapshot);
  void UpdateInterrupts(const model::Snapshot& snapshot);
  void UpdateSoftirqs(const model::Snapshot& snapshot);
  void UpdateSoftnet(const model::Snapshot& snapshot);
  void UpdateProtocols(const model::Snapshot& snapshot);
  void UpdateDevices(const model::Snapshot& snapshot);

  bool interrupts_per_cpu_;
  bool per_cpu_;
  double seconds_per_tick_;  // /proc/stat counts in USER_HZ ticks
  CounterSeries cpu_seconds_;
  CounterSeries interrupts_;
  CounterSeries softirqs_;
  CounterSeries softnet_processed_;
  CounterSeries softnet_dropped_;
  CounterSeries softnet_times_squeezed_;
  CounterSeries softnet_received_rps_;
  CounterSeries softnet_flow_limit_;
  GaugeSeries softnet_backlog_;
  WrapExtender<std::pair<uint32_t, SoftnetColumn>> softnet_wraps_;
  std::vector<ProtocolCounter> protocols_;
  std::vector<DeviceStatistic> device_statistics_;
};

}  // namespace nictune::metrics
