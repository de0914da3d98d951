// SPDX-License-Identifier: Apache-2.0
// Window figures from procfs and sysfs counters.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/model/counter_delta.h"
#include "agent/model/softirq_time.h"
#include "agent/model/window_parts.h"

namespace nictune::model::internal {
namespace {

double PerSecond(uint64_t delta, double seconds) { return static_cast<double>(delta) / seconds; }

std::optional<CpuSplit> SplitOf(const procfs::CpuTimes& a, const procfs::CpuTimes& b) {
  const auto d = [](uint64_t x, uint64_t y) { return static_cast<double>(ResettingDelta64(x, y)); };
  // guest time is already included in user time, so it is not added again.
  const double user = d(a.user, b.user) + d(a.nice, b.nice);
  const double system = d(a.system, b.system);
  const double hardirq = d(a.irq, b.irq);
  const double softirq = d(a.softirq, b.softirq);
  const double idle = d(a.idle, b.idle) + d(a.iowait, b.iowait);
  const double steal = d(a.steal, b.steal);
  const double total = user + system + hardirq + softirq + idle + steal;
  if (total <= 0) return std::nullopt;  // no tick elapsed: nothing to divide
  return CpuSplit{.user = user / total,
                  .system = system / total,
                  .hardirq = hardirq / total,
                  .softirq = softirq / total,
                  .idle = idle / total,
                  .steal = steal / total};
}

// Per-CPU softirq rate of one vector; CPUs are matched by id because offline CPUs are absent.
void AddSoftirqRate(const procfs::SoftirqTable& before, const procfs::SoftirqTable& after,
                    uint32_t vector, double seconds, Window& out,
                    std::optional<double> CpuWindow::*field) {
  for (const auto& [cpu, count] : ProcSoftirqCounts(before, after, vector)) {
    CpuEntry(out, cpu).*field = PerSecond(count, seconds);
  }
}

}  // namespace

void AddProcfsCpus(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  if (before.stat && after.stat) {
    for (const auto& b : after.stat->cpus) {
      for (const auto& a : before.stat->cpus) {
        if (a.cpu == b.cpu) CpuEntry(out, b.cpu).split = SplitOf(a, b);
      }
    }
  }
  if (before.softirqs && after.softirqs) {
    AddSoftirqRate(*before.softirqs, *after.softirqs, procfs::kNetRxSoftirq, seconds, out,
                   &CpuWindow::net_rx_softirqs_per_s);
    AddSoftirqRate(*before.softirqs, *after.softirqs, procfs::kNetTxSoftirq, seconds, out,
                   &CpuWindow::net_tx_softirqs_per_s);
  }
  if (before.softnet && after.softnet) {
    for (const auto& b : *after.softnet) {
      for (const auto& a : *before.softnet) {
        if (a.cpu != b.cpu) continue;
        CpuWindow& c = CpuEntry(out, static_cast<int>(b.cpu));
        c.softnet_processed_per_s = PerSecond(WrappingDelta32(a.processed, b.processed), seconds);
        c.softnet_dropped_per_s = PerSecond(WrappingDelta32(a.dropped, b.dropped), seconds);
        c.time_squeeze_per_s = PerSecond(WrappingDelta32(a.time_squeeze, b.time_squeeze), seconds);
        c.backlog_len = b.backlog_len;
      }
    }
  }
  std::sort(out.cpus.begin(), out.cpus.end(),
            [](const CpuWindow& x, const CpuWindow& y) { return x.cpu < y.cpu; });
}

void AddProcfsIrqs(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  if (!before.interrupts || !after.interrupts) return;
  std::map<uint32_t, const procfs::InterruptLine*> earlier;
  for (const auto& line : before.interrupts->lines) {
    if (line.irq) earlier[*line.irq] = &line;
  }
  const auto& cpu_ids = after.interrupts->cpu_ids;
  const auto& before_ids = before.interrupts->cpu_ids;
  // Column j of `after` is column before_column[j] of `before` (the same CPU), or none.
  std::vector<std::optional<size_t>> before_column(cpu_ids.size());
  for (size_t j = 0; j < cpu_ids.size(); ++j) {
    const auto i = std::find(before_ids.begin(), before_ids.end(), cpu_ids[j]);
    if (i != before_ids.end()) before_column[j] = static_cast<size_t>(i - before_ids.begin());
  }
  for (const auto& line : after.interrupts->lines) {
    if (!line.irq) continue;
    const auto it = earlier.find(*line.irq);
    if (it == earlier.end()) continue;  // appeared during the window: no baseline
    const procfs::InterruptLine& a = *it->second;
    IrqWindow w{.irq = *line.irq, .actions = line.actions, .chip = line.chip};
    for (size_t j = 0; j < line.per_cpu.size() && j < cpu_ids.size(); ++j) {
      if (!before_column[j] || *before_column[j] >= a.per_cpu.size()) continue;
      const uint64_t delta = ResettingDelta64(a.per_cpu[*before_column[j]], line.per_cpu[j]);
      if (delta == 0) continue;
      w.count += delta;
      w.per_cpu_per_s.emplace_back(cpu_ids[j], PerSecond(delta, seconds));
    }
    if (w.count == 0) continue;
    std::sort(w.per_cpu_per_s.begin(), w.per_cpu_per_s.end());
    w.per_s = PerSecond(w.count, seconds);
    out.irqs.push_back(std::move(w));
  }
}

void AddDevices(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  if (!before.devices || !after.devices) return;
  for (const auto& b : *after.devices) {
    const auto a = std::find_if(
        before.devices->begin(), before.devices->end(),
        [&](const procfs::NetDevice& d) { return d.ifindex == b.ifindex && d.name == b.name; });
    if (a == before.devices->end()) continue;
    DeviceWindow w{.name = b.name,
                   .ifindex = b.ifindex,
                   .driver = b.driver,
                   .rx_queues = b.rx_queues,
                   .tx_queues = b.tx_queues};
    for (const auto& [name, value] : b.statistics) {
      const auto prev = a->statistics.find(name);
      if (prev == a->statistics.end()) continue;
      w.per_s[name] = PerSecond(ResettingDelta64(prev->second, value), seconds);
    }
    out.devices.push_back(std::move(w));
  }
}

// Values in /proc/net/snmp that are settings or levels, not counters: a rise is not a rate.
bool IsGauge(std::string_view section, std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kGauges[] = {
      {"Ip", "Forwarding"}, {"Ip", "DefaultTTL"}, {"Tcp", "RtoAlgorithm"}, {"Tcp", "RtoMin"},
      {"Tcp", "RtoMax"},    {"Tcp", "MaxConn"},   {"Tcp", "CurrEstab"},
  };
  return std::find(std::begin(kGauges), std::end(kGauges), std::pair{section, name}) !=
         std::end(kGauges);
}

namespace {

// "Section.Name" per second of each counter that moved from `a` to `b`.
void AddCounterRates(const procfs::SnmpCounters& a, const procfs::SnmpCounters& b, double seconds,
                     std::map<std::string, double>& into) {
  for (const auto& [section, counters] : b) {
    const auto sa = a.find(section);
    if (sa == a.end()) continue;
    for (const auto& [name, value] : counters) {
      const auto ca = sa->second.find(name);
      if (ca == sa->second.end() || value <= ca->second || IsGauge(section, name)) continue;
      into[section + "." + name] = static_cast<double>(value - ca->second) / seconds;
    }
  }
}

}  // namespace

void AddProtocols(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  if (before.snmp && after.snmp) {
    AddCounterRates(*before.snmp, *after.snmp, seconds, out.protocol_per_s);
  }
  if (before.netstat && after.netstat) {
    AddCounterRates(*before.netstat, *after.netstat, seconds, out.protocol_per_s);
  }
  // Another namespace is read in both snapshots or not at all: one that came or went in the
  // window has no delta to take.
  for (const auto& [netns, counters] : after.netns_protocols) {
    const auto earlier = before.netns_protocols.find(netns);
    if (earlier == before.netns_protocols.end()) continue;
    std::map<std::string, double> rates;
    AddCounterRates(earlier->second, counters, seconds, rates);
    if (!rates.empty()) out.netns_protocol_per_s[netns] = std::move(rates);
  }
}

}  // namespace nictune::model::internal
