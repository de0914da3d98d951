// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/procfs_series.h"

#include <unistd.h>

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"
#include "driver/link_statistics.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/metrics/series_shapes.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace nictune::metrics {
namespace {

std::string Cpu(int cpu) { return std::to_string(cpu); }

double SecondsPerTick() {
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  return ticks_per_second > 0 ? 1.0 / static_cast<double>(ticks_per_second) : 0.01;
}

}  // namespace

ProcfsSeries::ProcfsSeries(prometheus::Registry& r, const SeriesOptions& options)
    : interrupts_per_cpu_(options.interrupts_per_cpu),
      per_cpu_(options.per_cpu),
      seconds_per_tick_(SecondsPerTick()),
      cpu_seconds_(CounterFamily(r, metrics::family::kCpuSecondsTotal)),
      interrupts_(CounterFamily(r, metrics::family::kInterruptsTotal)),
      softirqs_(CounterFamily(r, metrics::family::kSoftirqsTotal)),
      softnet_processed_(CounterFamily(r, metrics::family::kSoftnetProcessedTotal)),
      softnet_dropped_(CounterFamily(r, metrics::family::kSoftnetDroppedTotal)),
      softnet_times_squeezed_(CounterFamily(r, metrics::family::kSoftnetTimesSqueezedTotal)),
      softnet_received_rps_(CounterFamily(r, metrics::family::kSoftnetReceivedRpsTotal)),
      softnet_flow_limit_(CounterFamily(r, metrics::family::kSoftnetFlowLimitCountTotal)),
      softnet_backlog_(GaugeFamily(r, metrics::family::kSoftnetBacklogPackets)) {
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    protocols_.push_back(ProtocolCounter{
        .section = std::string(counter.section),
        .name = std::string(counter.name),
        .series =
            std::make_unique<CounterSeries>(CounterFamily(r, ProtocolCounterMetric(counter)))});
  }
  for (const std::string_view file : driver::kLinkStatisticNames) {
    device_statistics_.push_back(DeviceStatistic{
        .file = std::string(file),
        .series = std::make_unique<CounterSeries>(
            CounterFamily(r, DeviceCounterMetricName(std::string(file))))});
  }
}

void ProcfsSeries::Update(const model::Snapshot& snapshot) {
  UpdateCpuTimes(snapshot);
  UpdateInterrupts(snapshot);
  UpdateSoftirqs(snapshot);
  UpdateSoftnet(snapshot);
  UpdateProtocols(snapshot);
  UpdateDevices(snapshot);
}

void ProcfsSeries::UpdateCpuTimes(const model::Snapshot& snapshot) {
  CounterSums totals;
  if (snapshot.stat) {
    for (const procfs::CpuTimes& cpu : snapshot.stat->cpus) {
      const uint64_t ticks[] = {cpu.user,   cpu.nice, cpu.system,  cpu.idle,
                                cpu.iowait, cpu.irq,  cpu.softirq, cpu.steal};
      static_assert(std::size(ticks) == std::size(kCpuModes));
      for (size_t i = 0; i < std::size(kCpuModes); ++i) {
        totals.Add(WithCpu({{"mode", std::string(kCpuModes[i])}}, cpu.cpu, per_cpu_),
                   static_cast<double>(ticks[i]) * seconds_per_tick_);
      }
    }
  }
  totals.PublishTo(cpu_seconds_);
}

void ProcfsSeries::UpdateInterrupts(const model::Snapshot& snapshot) {
  if (snapshot.interrupts) {
    const auto& cpu_ids = snapshot.interrupts->cpu_ids;
    for (const auto& line : snapshot.interrupts->lines) {
      // Lines that never fired are left out: most of a large machine's table, and no signal.
      if (!line.irq || line.total == 0) continue;
      if (!interrupts_per_cpu_) {
        interrupts_.Set(
            {{"irq", std::to_string(*line.irq)}, {"devices", line.actions}, {"chip", line.chip}},
            static_cast<double>(line.total));
        continue;
      }
      for (size_t i = 0; i < line.per_cpu.size() && i < cpu_ids.size(); ++i) {
        interrupts_.Set({{"irq", std::to_string(*line.irq)},
                         {"cpu", Cpu(cpu_ids[i])},
                         {"devices", line.actions},
                         {"chip", line.chip}},
                        static_cast<double>(line.per_cpu[i]));
      }
    }
  }
  interrupts_.Sweep();
}

void ProcfsSeries::UpdateSoftirqs(const model::Snapshot& snapshot) {
  CounterSums totals;
  if (snapshot.softirqs) {
    const auto& cpu_ids = snapshot.softirqs->cpu_ids;
    for (const auto& row : snapshot.softirqs->rows) {
      for (size_t i = 0; i < row.per_cpu.size() && i < cpu_ids.size(); ++i) {
        totals.Add(WithCpu({{"vector", row.vector}}, cpu_ids[i], per_cpu_),
                   static_cast<double>(row.per_cpu[i]));
      }
    }
  }
  totals.PublishTo(softirqs_);
}

void ProcfsSeries::UpdateSoftnet(const model::Snapshot& snapshot) {
  CounterSums processed, dropped, squeezed, received_rps, flow_limit;
  std::map<prometheus::Labels, double> backlog;
  if (snapshot.softnet) {
    for (const auto& row : *snapshot.softnet) {
      const prometheus::Labels labels = WithCpu({}, static_cast<int>(row.cpu), per_cpu_);
      const auto add = [&](CounterSums& sums, SoftnetColumn column, uint32_t raw) {
        sums.Add(labels, static_cast<double>(softnet_wraps_.Extend({row.cpu, column}, raw)));
      };
      add(processed, SoftnetColumn::kProcessed, row.processed);
      add(dropped, SoftnetColumn::kDropped, row.dropped);
      add(squeezed, SoftnetColumn::kTimeSqueeze, row.time_squeeze);
      if (row.received_rps) add(received_rps, SoftnetColumn::kReceivedRps, *row.received_rps);
      if (row.flow_limit_count) add(flow_limit, SoftnetColumn::kFlowLimit, *row.flow_limit_count);
      if (row.backlog_len) backlog[labels] += static_cast<double>(*row.backlog_len);
    }
  }
  softnet_wraps_.Sweep();
  processed.PublishTo(softnet_processed_);
  dropped.PublishTo(softnet_dropped_);
  squeezed.PublishTo(softnet_times_squeezed_);
  received_rps.PublishTo(softnet_received_rps_);
  flow_limit.PublishTo(softnet_flow_limit_);
  for (const auto& [labels, packets] : backlog) softnet_backlog_.Set(labels, packets);
  softnet_backlog_.Sweep();
}

void ProcfsSeries::UpdateProtocols(const model::Snapshot& snapshot) {
  for (ProtocolCounter& counter : protocols_) {
    for (const auto* table : {&snapshot.snmp, &snapshot.netstat}) {
      if (!table->has_value()) continue;
      const auto section = (*table)->find(counter.section);
      if (section == (*table)->end()) continue;
      const auto value = section->second.find(counter.name);
      if (value == section->second.end() || value->second < 0) continue;
      counter.series->Set({}, static_cast<double>(value->second));
    }
    counter.series->Sweep();
  }
}

void ProcfsSeries::UpdateDevices(const model::Snapshot& snapshot) {
  for (DeviceStatistic& statistic : device_statistics_) {
    if (snapshot.devices) {
      for (const auto& device : *snapshot.devices) {
        const auto value = device.statistics.find(statistic.file);
        if (value == device.statistics.end()) continue;
        statistic.series->Set({{"device", device.name}}, static_cast<double>(value->second));
      }
    }
    statistic.series->Sweep();
  }
}

}  // namespace nictune::metrics
