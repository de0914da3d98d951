#include "agent/metrics/procfs_series.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "agent/metrics/families.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/protocol_counters.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace nictune::metrics {
namespace {

// The statistics files every device has (struct rtnl_link_stats64); drivers may add none here.
constexpr absl::string_view kDeviceStatistics[] = {
    "rx_packets",        "tx_packets",        "rx_bytes",         "tx_bytes",
    "rx_errors",         "tx_errors",         "rx_dropped",       "tx_dropped",
    "multicast",         "collisions",        "rx_length_errors", "rx_over_errors",
    "rx_crc_errors",     "rx_frame_errors",   "rx_fifo_errors",   "rx_missed_errors",
    "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",   "tx_heartbeat_errors",
    "tx_window_errors",  "rx_compressed",     "tx_compressed",    "rx_nohandler",
};

std::string Cpu(int cpu) { return std::to_string(cpu); }

}  // namespace

ProcfsSeries::ProcfsSeries(prometheus::Registry& r)
    : interrupts_(
          CounterFamily(r, "nictune_interrupts_total",
                        "Interrupts per numbered irq line and CPU since boot (procfs "
                        "/proc/interrupts); as node_interrupts_total, irq is its type and devices "
                        "the handlers.")),
      softirqs_(
          CounterFamily(r, "nictune_softirqs_total",
                        "Softirq runs per vector and CPU since boot (procfs /proc/softirqs); as "
                        "node_softirqs_functions_total.")),
      softnet_processed_(CounterFamily(r, "nictune_softnet_processed_total",
                                       "Packets processed by the receive softirq per CPU (procfs "
                                       "/proc/net/softnet_stat, u32 extended to 64 bits).")),
      softnet_dropped_(CounterFamily(r, "nictune_softnet_dropped_total",
                                     "Packets dropped because the per-CPU backlog exceeded "
                                     "netdev_max_backlog (procfs /proc/net/softnet_stat).")),
      softnet_times_squeezed_(
          CounterFamily(r, "nictune_softnet_times_squeezed_total",
                        "Receive softirq runs that ended with work left because netdev_budget or "
                        "netdev_budget_usecs ran out (procfs /proc/net/softnet_stat).")),
      softnet_received_rps_(CounterFamily(r, "nictune_softnet_received_rps_total",
                                          "Packets steered to this CPU by RPS inter-processor "
                                          "interrupts (procfs /proc/net/softnet_stat).")),
      softnet_flow_limit_(CounterFamily(r, "nictune_softnet_flow_limit_count_total",
                                        "Packets dropped by the RPS flow limit (procfs "
                                        "/proc/net/softnet_stat).")),
      softnet_backlog_(GaugeFamily(r, "nictune_softnet_backlog_packets",
                                   "Packets waiting in the per-CPU input and process queues when "
                                   "sampled (procfs /proc/net/softnet_stat, kernel 5.10+).")) {
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    protocols_.push_back(
        ProtocolCounter{.section = std::string(counter.section),
                        .name = std::string(counter.name),
                        .series = std::make_unique<CounterSeries>(CounterFamily(
                            r, ProtocolCounterMetric(counter),
                            absl::StrCat(counter.section, " ", counter.name, " since boot (procfs ",
                                         ProtocolCounterFile(counter), "); node_exporter calls it ",
                                         NodeExporterProtocolCounterMetric(counter), ".")))});
  }
  for (const absl::string_view file : kDeviceStatistics) {
    device_statistics_.push_back(DeviceStatistic{
        .file = std::string(file),
        .series = std::make_unique<CounterSeries>(
            CounterFamily(r, DeviceCounterMetricName(std::string(file)),
                          absl::StrCat("Device counter ", file,
                                       " (sysfs /sys/class/net/DEVICE/statistics/", file, ").")))});
  }
}

void ProcfsSeries::Update(const model::Snapshot& snapshot) {
  UpdateInterrupts(snapshot);
  UpdateSoftirqs(snapshot);
  UpdateSoftnet(snapshot);
  UpdateProtocols(snapshot);
  UpdateDevices(snapshot);
}

void ProcfsSeries::UpdateInterrupts(const model::Snapshot& snapshot) {
  if (snapshot.interrupts) {
    const auto& cpu_ids = snapshot.interrupts->cpu_ids;
    for (const auto& line : snapshot.interrupts->lines) {
      // Lines that never fired are left out: most of a large machine's table, and no signal.
      if (!line.irq || line.total == 0) continue;
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
  if (snapshot.softirqs) {
    const auto& cpu_ids = snapshot.softirqs->cpu_ids;
    for (const auto& row : snapshot.softirqs->rows) {
      for (size_t i = 0; i < row.per_cpu.size() && i < cpu_ids.size(); ++i) {
        softirqs_.Set({{"vector", row.vector}, {"cpu", Cpu(cpu_ids[i])}},
                      static_cast<double>(row.per_cpu[i]));
      }
    }
  }
  softirqs_.Sweep();
}

void ProcfsSeries::UpdateSoftnet(const model::Snapshot& snapshot) {
  if (snapshot.softnet) {
    for (const auto& row : *snapshot.softnet) {
      const prometheus::Labels labels{{"cpu", std::to_string(row.cpu)}};
      const auto set = [&](CounterSeries& series, SoftnetColumn column, uint32_t raw) {
        series.Set(labels, static_cast<double>(softnet_wraps_.Extend({row.cpu, column}, raw)));
      };
      set(softnet_processed_, SoftnetColumn::kProcessed, row.processed);
      set(softnet_dropped_, SoftnetColumn::kDropped, row.dropped);
      set(softnet_times_squeezed_, SoftnetColumn::kTimeSqueeze, row.time_squeeze);
      if (row.received_rps) {
        set(softnet_received_rps_, SoftnetColumn::kReceivedRps, *row.received_rps);
      }
      if (row.flow_limit_count) {
        set(softnet_flow_limit_, SoftnetColumn::kFlowLimit, *row.flow_limit_count);
      }
      if (row.backlog_len) softnet_backlog_.Set(labels, static_cast<double>(*row.backlog_len));
    }
  }
  softnet_wraps_.Sweep();
  softnet_processed_.Sweep();
  softnet_dropped_.Sweep();
  softnet_times_squeezed_.Sweep();
  softnet_received_rps_.Sweep();
  softnet_flow_limit_.Sweep();
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
