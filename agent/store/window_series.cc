#include "agent/store/window_series.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/metrics/label_values.h"
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

void AddCpus(const model::Window& window, SeriesBuilder& out) {
  const std::string net_rx = metrics::SoftirqVectorName(procfs::kNetRxSoftirq);
  const std::string net_tx = metrics::SoftirqVectorName(procfs::kNetTxSoftirq);
  for (const model::CpuWindow& c : window.cpus) {
    const std::string cpu = std::to_string(c.cpu);
    if (c.split) {
      // node_cpu_seconds_total's modes; its rate is the share of the CPU's time.
      const std::pair<const char*, double> modes[] = {
          {"user", c.split->user},       {"system", c.split->system}, {"irq", c.split->hardirq},
          {"softirq", c.split->softirq}, {"idle", c.split->idle},     {"steal", c.split->steal}};
      for (const auto& [mode, share] : modes) {
        out.Add("nictune_cpu_seconds_total", {{"cpu", cpu}, {"mode", mode}}, share);
      }
    }
    out.AddIf(c.bpf_hardirq_share, "nictune_irq_handler_seconds_total", {{"cpu", cpu}});
    out.AddIf(c.bpf_net_rx_share, "nictune_softirq_seconds_total",
              {{"cpu", cpu}, {"vector", net_rx}});
    out.AddIf(c.bpf_net_tx_share, "nictune_softirq_seconds_total",
              {{"cpu", cpu}, {"vector", net_tx}});
    out.AddIf(c.net_rx_softirqs_per_s, "nictune_softirqs_total",
              {{"cpu", cpu}, {"vector", net_rx}});
    out.AddIf(c.net_tx_softirqs_per_s, "nictune_softirqs_total",
              {{"cpu", cpu}, {"vector", net_tx}});
    out.AddIf(c.softnet_processed_per_s, "nictune_softnet_processed_total", {{"cpu", cpu}});
    out.AddIf(c.softnet_dropped_per_s, "nictune_softnet_dropped_total", {{"cpu", cpu}});
    out.AddIf(c.time_squeeze_per_s, "nictune_softnet_times_squeezed_total", {{"cpu", cpu}});
    out.AddIf(c.backlog_len, "nictune_softnet_backlog_packets", {{"cpu", cpu}});
  }
}

void AddIrqs(const model::Window& window, SeriesBuilder& out) {
  for (const model::IrqWindow& i : window.irqs) {
    const std::string irq = std::to_string(i.irq);
    for (const auto& [cpu, rate] : i.per_cpu_per_s) {
      out.Add(
          "nictune_interrupts_total",
          {{"irq", irq}, {"cpu", std::to_string(cpu)}, {"devices", i.actions}, {"chip", i.chip}},
          rate);
    }
    out.AddIf(i.handler_time_share, "nictune_irq_handler_seconds_total", {{"irq", irq}});
  }
}

void AddNapis(const model::Window& window, SeriesBuilder& out) {
  for (const model::NapiWindow& n : window.napis) {
    const Labels labels{{"device", n.device}, {"napi_id", std::to_string(n.napi_id)}};
    out.Add("nictune_napi_polls_total", labels, n.polls_per_s);
    out.Add("nictune_napi_packets_total", labels, n.work_per_s);
    out.Add("nictune_napi_budget_exhausted_total", labels,
            n.budget_exhausted_fraction * n.polls_per_s);
    out.Add("nictune_napi_tx_completions_total", labels, n.tx_completions_per_s);
    out.Add("nictune_napi_budget_packets", labels, static_cast<double>(n.budget));
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
  for (const model::DropWindow& d : window.drops) {
    out.Add("nictune_skb_drops_total",
            {{"reason", d.reason_name.empty() ? std::to_string(d.reason) : d.reason_name},
             {"proto", metrics::ProtocolName(d.protocol, d.l4_protocol)},
             {"device", d.device},
             {"port", metrics::DropPortLabel(d.reason_name, d.socket_cookie, d.local_port)}},
            d.per_s);
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
    out.Add("nictune_socket_enqueues_total", labels, s->enqueues_per_s);
    out.Add("nictune_socket_rcvqueue_full_total", labels,
            static_cast<double>(s->rcvqueue_full) / seconds);
    out.Add("nictune_socket_udp_queue_failures_total", labels,
            static_cast<double>(s->udp_queue_failures) / seconds);
    out.Add("nictune_socket_receive_buffer_bytes", labels, static_cast<double>(s->rcvbuf));
    out.Add("nictune_socket_receive_buffer_peak_fill_ratio", labels, s->peak_fill);
    out.AddIf(s->mean_truesize, "nictune_socket_truesize_mean_bytes", labels);
  }
}

void AddTruesize(const model::Window& window, SeriesBuilder& out) {
  for (const model::TruesizeWindow& t : window.truesize) {
    if (t.samples == 0) continue;
    // /metrics has the whole histogram (nictune_rx_truesize_bytes); history keeps its mean.
    out.Add("nictune_rx_truesize_mean_bytes", {{"device", t.device}}, t.mean_bytes);
  }
}

void AddProtocols(const model::Window& window, SeriesBuilder& out) {
  for (const auto& [key, rate] : window.protocol_per_s) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos) continue;
    // "Udp.RcvbufErrors" -> nictune_netstat_Udp_RcvbufErrors_total, node_netstat_*'s spelling.
    out.Add(
        absl::StrCat("nictune_netstat_", key.substr(0, dot), "_", key.substr(dot + 1), "_total"),
        {}, rate);
  }
}

// The emulated NICs' rates under their /metrics names, as every counter's history is kept.
void AddEmulatedNics(const model::Window& window, SeriesBuilder& out) {
  for (const model::EmulatedNicWindow& e : window.emulated_nics) {
    const Labels labels = {{"device", e.device}};
    out.Add("nictune_emulated_nic_interrupts_total", labels, e.interrupts_per_s);
    out.Add("nictune_emulated_nic_delivered_packets_total", labels, e.delivered_per_s);
    out.Add("nictune_emulated_nic_missed_packets_total", labels, e.missed_per_s);
  }
}

}  // namespace

std::vector<SeriesSample> WindowSeries(const model::Window& window,
                                       const WindowSeriesOptions& options) {
  SeriesBuilder out;
  AddCpus(window, out);
  AddIrqs(window, out);
  AddNapis(window, out);
  AddDevices(window, out);
  AddDrops(window, out);
  AddSockets(window, options, out);
  AddTruesize(window, out);
  AddProtocols(window, out);
  AddEmulatedNics(window, out);
  return out.Take();
}

}  // namespace nictune::store
