// SPDX-License-Identifier: Apache-2.0
#include "agent/store/window_series.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/procfs/softirqs.h"

namespace nictune::store {
namespace {

class SeriesBuilder {
 public:
  void Add(std::string name, Labels labels, double value) {
    // Kernel counter names are not ours to trust: one odd character must not fail the window.
    for (char& c : name) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') c = '_';
    }
    std::sort(labels.begin(), labels.end());
    out_.push_back({std::move(name), std::move(labels), value});
  }
  template <typename T>
  void AddIf(const std::optional<T>& value, std::string name, Labels labels) {
    if (value) Add(std::move(name), std::move(labels), static_cast<double>(*value));
  }
  std::vector<SeriesSample> Take() { return std::move(out_); }

 private:
  std::vector<SeriesSample> out_;
};

// Each CPU's series, or with --metrics_per_cpu=false their sum over CPUs, as /metrics has them.
class CpuSeries {
 public:
  explicit CpuSeries(bool per_cpu) : per_cpu_(per_cpu) {}
  void EmitTo(SeriesBuilder& out) const {
    for (const auto& [key, value] : sums_) out.Add(key.first, key.second, value);
  }
  template <typename T>
  void AddIf(const std::optional<T>& value, const std::string& name, Labels labels, int cpu) {
    if (value) Add(name, std::move(labels), cpu, static_cast<double>(*value));
  }
  void Add(const std::string& name, Labels labels, int cpu, double value) {
    if (per_cpu_) labels.emplace_back("cpu", std::to_string(cpu));
    std::sort(labels.begin(), labels.end());
    sums_[{name, std::move(labels)}] += value;
  }

 private:
  bool per_cpu_;
  std::map<std::pair<std::string, Labels>, double> sums_;
};

void AddCpus(const model::Window& window, const WindowSeriesOptions& options, SeriesBuilder& out) {
  const std::string net_rx = metrics::SoftirqVectorName(procfs::kNetRxSoftirq);
  const std::string net_tx = metrics::SoftirqVectorName(procfs::kNetTxSoftirq);
  CpuSeries series(options.per_cpu);
  for (const model::CpuWindow& c : window.cpus) {
    if (c.split) {
      // node_cpu_seconds_total's modes; its rate is the share of the CPU's time.
      const std::pair<const char*, double> modes[] = {
          {"user", c.split->user},       {"system", c.split->system}, {"irq", c.split->hardirq},
          {"softirq", c.split->softirq}, {"idle", c.split->idle},     {"steal", c.split->steal}};
      for (const auto& [mode, share] : modes) {
        series.Add(metrics::family::kCpuSecondsTotal, {{"mode", mode}}, c.cpu, share);
      }
    }
    series.AddIf(c.bpf_hardirq_share, metrics::family::kHardirqSecondsTotal, {}, c.cpu);
    series.AddIf(c.bpf_net_rx_share, metrics::family::kSoftirqSecondsTotal, {{"vector", net_rx}},
                 c.cpu);
    series.AddIf(c.bpf_net_tx_share, metrics::family::kSoftirqSecondsTotal, {{"vector", net_tx}},
                 c.cpu);
    series.AddIf(c.net_rx_softirqs_per_s, metrics::family::kSoftirqsTotal, {{"vector", net_rx}},
                 c.cpu);
    series.AddIf(c.net_tx_softirqs_per_s, metrics::family::kSoftirqsTotal, {{"vector", net_tx}},
                 c.cpu);
    series.AddIf(c.softnet_processed_per_s, metrics::family::kSoftnetProcessedTotal, {}, c.cpu);
    series.AddIf(c.softnet_dropped_per_s, metrics::family::kSoftnetDroppedTotal, {}, c.cpu);
    series.AddIf(c.time_squeeze_per_s, metrics::family::kSoftnetTimesSqueezedTotal, {}, c.cpu);
    series.AddIf(c.backlog_len, metrics::family::kSoftnetBacklogPackets, {}, c.cpu);
  }
  series.EmitTo(out);
}

void AddIrqs(const model::Window& window, const WindowSeriesOptions& options, SeriesBuilder& out) {
  for (const model::IrqWindow& i : window.irqs) {
    const std::string irq = std::to_string(i.irq);
    if (!options.interrupts_per_cpu) {
      out.Add(metrics::family::kInterruptsTotal,
              {{"irq", irq}, {"devices", i.actions}, {"chip", i.chip}}, i.per_s);
    }
    for (const auto& [cpu, rate] : i.per_cpu_per_s) {
      if (!options.interrupts_per_cpu) break;
      out.Add(
          metrics::family::kInterruptsTotal,
          {{"irq", irq}, {"cpu", std::to_string(cpu)}, {"devices", i.actions}, {"chip", i.chip}},
          rate);
    }
    out.AddIf(i.handler_time_share, metrics::family::kIrqHandlerSecondsTotal, {{"irq", irq}});
  }
}

// Per /metrics' NAPI series: the other namespaces' instances add up to one.
void AddNapis(const model::Window& window, SeriesBuilder& out) {
  struct Rates {
    double polls = 0;
    double work = 0;
    double exhausted = 0;
    double tx = 0;
    uint32_t budget = 0;  // the last instance's, as /metrics has it
  };
  std::map<prometheus::Labels, Rates> per_series;
  for (const model::NapiWindow& n : window.napis) {
    Rates& r = per_series[metrics::NapiLabels(n)];
    r.polls += n.polls_per_s;
    r.work += n.work_per_s;
    r.exhausted += n.budget_exhausted_fraction * n.polls_per_s;
    r.tx += n.tx_completions_per_s;
    r.budget = n.budget;
  }
  for (const auto& [prometheus_labels, r] : per_series) {
    const Labels labels(prometheus_labels.begin(), prometheus_labels.end());
    out.Add(metrics::family::kNapiPollsTotal, labels, r.polls);
    out.Add(metrics::family::kNapiPacketsTotal, labels, r.work);
    out.Add(metrics::family::kNapiBudgetExhaustedTotal, labels, r.exhausted);
    out.Add(metrics::family::kNapiTxCompletionsTotal, labels, r.tx);
    out.Add(metrics::family::kNapiBudgetPackets, labels, static_cast<double>(r.budget));
  }
}

// Each threaded poller's share of a CPU, the rate of its /metrics counter; an emulated NIC's
// pollers add up to one, as there.
void AddNapiPollers(const model::Window& window, SeriesBuilder& out) {
  std::map<prometheus::Labels, double> shares;
  for (const model::NapiPollerWindow& p : window.napi_pollers) {
    shares[metrics::NapiPollerLabels(p.poller)] += p.cpu_share;
  }
  for (const auto& [labels, share] : shares) {
    out.Add(metrics::family::kNapiPollerCpuSecondsTotal, Labels(labels.begin(), labels.end()),
            share);
  }
}

void AddDevices(const model::Window& window, SeriesBuilder& out) {
  for (const model::DeviceWindow& d : window.devices) {
    for (const auto& [statistic, rate] : d.per_s) {
      out.Add(metrics::DeviceCounterMetricName(statistic), {{"device", d.name}}, rate);
    }
  }
}

void AddDrops(const model::Window& window, SeriesBuilder& out) {
  std::map<prometheus::Labels, double> per_s;  // a series sums the keys of its ports and sockets
  for (const model::DropWindow& d : window.drops) per_s[metrics::DropLabels(d)] += d.per_s;
  for (const auto& [labels, rate] : per_s) {
    out.Add(metrics::family::kSkbDropsTotal, Labels(labels.begin(), labels.end()), rate);
  }
}

void AddSockets(const model::Window& window, const WindowSeriesOptions& options,
                SeriesBuilder& out) {
  const std::vector<const model::SocketWindow*> ranked =
      metrics::TopSockets(window.sockets, options.max_sockets);
  const double seconds = window.seconds > 0 ? window.seconds : 1;
  for (const model::SocketWindow* s : ranked) {
    const Labels labels{{"netns", std::to_string(s->key.netns_inode)},
                        {"port", std::to_string(s->key.local_port)},
                        {"proto", metrics::ProtocolName(0, s->key.protocol)},
                        {"socket", std::to_string(s->key.cookie)}};
    out.Add(metrics::family::kSocketEnqueuesTotal, labels, s->enqueues_per_s);
    out.Add(metrics::family::kSocketRcvqueueFullTotal, labels,
            static_cast<double>(s->rcvqueue_full) / seconds);
    out.Add(metrics::family::kSocketUdpQueueFailuresTotal, labels,
            static_cast<double>(s->udp_queue_failures) / seconds);
    out.Add(metrics::family::kSocketReceiveBufferBytes, labels, static_cast<double>(s->rcvbuf));
    out.Add(metrics::family::kSocketReceiveBufferPeakFillRatio, labels, s->peak_fill);
    if (s->drain_gap_seen_below_s > 0) {  // else no read was timed: unknown, not 0
      out.Add(metrics::family::kSocketDrainGapSeconds, labels, model::LongestDrainWait(*s));
    }
    out.AddIf(s->mean_truesize, metrics::family::kSocketTruesizeMeanBytes, labels);
  }
}

// /metrics has the whole histogram (nictune_rx_truesize_bytes); history keeps its mean, per
// device as /metrics labels them: the other namespaces' devices are one.
void AddTruesize(const model::Window& window, SeriesBuilder& out) {
  std::map<std::string, std::pair<double, uint64_t>> bytes_and_samples;
  for (const model::TruesizeWindow& t : window.truesize) {
    if (t.samples == 0) continue;
    auto& [bytes, samples] =
        bytes_and_samples[t.other_namespace ? metrics::kOtherNamespacesDevice : t.device];
    bytes += t.mean_bytes * static_cast<double>(t.samples);
    samples += t.samples;
  }
  for (const auto& [device, sums] : bytes_and_samples) {
    out.Add(metrics::family::kRxTruesizeMeanBytes, {{"device", device}},
            sums.first / static_cast<double>(sums.second));
  }
}

// The snmp and netstat counters /metrics exports, under its names; the kernel's others are left
// out of history as they are of /metrics (the series budget).
void AddProtocols(const model::Window& window, SeriesBuilder& out) {
  for (const metrics::ProtocolCounterName& counter : metrics::kProtocolCounters) {
    const auto rate = window.protocol_per_s.find(absl::StrCat(counter.section, ".", counter.name));
    if (rate == window.protocol_per_s.end()) continue;
    out.Add(metrics::ProtocolCounterMetric(counter), {}, rate->second);
  }
}

// The emulated NICs' rates under their /metrics names, as every counter's history is kept.
void AddEmulatedNics(const model::Window& window, SeriesBuilder& out) {
  for (const model::EmulatedNicWindow& e : window.emulated_nics) {
    const Labels labels = {{"device", e.device}};
    out.Add(metrics::family::kEmulatedNicInterruptsTotal, labels, e.interrupts_per_s);
    out.Add(metrics::family::kEmulatedNicDeliveredPacketsTotal, labels, e.delivered_per_s);
    out.Add(metrics::family::kEmulatedNicMissedPacketsTotal, labels, e.missed_per_s);
  }
}

}  // namespace

std::vector<SeriesSample> WindowSeries(const model::Window& window,
                                       const WindowSeriesOptions& options) {
  SeriesBuilder out;
  AddCpus(window, options, out);
  AddIrqs(window, options, out);
  AddNapis(window, out);
  AddNapiPollers(window, out);
  AddDevices(window, out);
  AddDrops(window, out);
  AddSockets(window, options, out);
  AddTruesize(window, out);
  AddProtocols(window, out);
  AddEmulatedNics(window, out);
  return out.Take();
}

}  // namespace nictune::store
