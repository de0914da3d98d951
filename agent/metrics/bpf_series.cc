#include "agent/metrics/bpf_series.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "agent/metrics/families.h"
#include "agent/metrics/label_values.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"

namespace nictune::metrics {
namespace {

// Packets per poll: every power of two up to the default weight, and the weight itself, so that
// "used the whole budget" is its own bucket (63 < work <= 64).
const std::vector<double> kNapiWorkBoundaries = {0, 1, 2, 4, 8, 16, 32, 63, 64};

// The probes' truesize bucket b holds [2^b, 2^(b+1)) bytes, i.e. at most 2^(b+1) - 1: exact
// boundaries from 255 bytes (everything smaller folds into the first) to 1 MiB - 1.
constexpr size_t kFirstTruesizeBucket = 7;
std::vector<double> TruesizeBoundaries() {
  std::vector<double> out;
  for (size_t b = kFirstTruesizeBucket; b < driver::kTruesizeBuckets; ++b) {
    out.push_back(static_cast<double>((uint64_t{2} << b) - 1));
  }
  return out;
}

// The probes' entries of one kind, none when BPF was not read.
template <typename T>
const std::vector<T>& Items(const driver::BpfCounters* counters,
                            std::vector<T> driver::BpfCounters::*field) {
  static const std::vector<T> kNone;
  return counters != nullptr ? counters->*field : kNone;
}

double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

BpfSeries::BpfSeries(prometheus::Registry& r, size_t max_sockets)
    : max_sockets_(max_sockets),
      irq_handler_calls_(CounterFamily(r, "nictune_irq_handler_calls_total",
                                       "Hard irq handler runs per irq and CPU since the probes "
                                       "attached (bpf irq:irq_handler_entry).")),
      irq_handler_seconds_(CounterFamily(r, "nictune_irq_handler_seconds_total",
                                         "Time in hard irq handlers per irq and CPU (bpf "
                                         "irq:irq_handler_entry to irq:irq_handler_exit).")),
      softirq_seconds_(CounterFamily(
          r, "nictune_softirq_seconds_total",
          "Time in softirq handlers per vector and CPU since the agent started, each "
          "interval's estimate added up (bpf irq:softirq_entry to irq:softirq_exit; when "
          "softirqs are frequent timed in short slots, scaled to the count of /proc/softirqs).")),
      softirq_raised_(CounterFamily(r, "nictune_softirq_raised_total",
                                    "Softirqs raised per vector and CPU (bpf irq:softirq_raise).")),
      softirq_untimed_seconds_(CounterFamily(
          r, "nictune_softirq_untimed_seconds_total",
          "Time softirqs were counted but not timed since the probes attached: between the "
          "slots of duty-cycled timing (bpf irq:softirq_entry/exit attached for short slots "
          "when softirqs are frequent); 1 - rate() is the share of time softirqs were timed.")),
      softirq_timing_links_(CounterFamily(
          r, "nictune_softirq_timing_link_operations_total",
          "Attaches and detaches of the softirq timing programs by the duty cycle, by operation "
          "(attach, detach).")),
      softirq_timing_link_cpu_seconds_(CounterFamily(
          r, "nictune_softirq_timing_link_cpu_seconds_total",
          "CPU time the agent's duty-cycle thread spent in those attaches and detaches (the "
          "kernel patches the tracepoint and waits for every CPU), by operation.")),
      napi_polls_(CounterFamily(r, "nictune_napi_polls_total",
                                "NAPI polls per NAPI instance (bpf napi:napi_poll).")),
      napi_packets_(
          CounterFamily(r, "nictune_napi_packets_total",
                        "Receive work (packets) the NAPI polls reported (bpf napi:napi_poll).")),
      napi_budget_exhausted_(
          CounterFamily(r, "nictune_napi_budget_exhausted_total",
                        "NAPI polls that used their whole budget, so the instance "
                        "stayed scheduled (bpf napi:napi_poll).")),
      napi_tx_completions_(
          CounterFamily(r, "nictune_napi_tx_completions_total",
                        "Transmitted skbs freed inside the instance's receive polls, "
                        "the tx share of poll work (bpf skb:consume_skb).")),
      napi_budget_(GaugeFamily(r, "nictune_napi_budget_packets",
                               "Budget the last NAPI poll was given (bpf napi:napi_poll).")),
      napi_work_(HistogramFamily(r, "nictune_napi_poll_work_packets",
                                 "Packets of work per NAPI poll (bpf napi:napi_poll)."),
                 kNapiWorkBoundaries),
      drops_(
          CounterFamily(r, "nictune_skb_drops_total",
                        "Packets freed as drops by kernel drop reason, protocol, device and, for "
                        "drops at a socket, local port (bpf skb:kfree_skb).")),
      socket_enqueues_(CounterFamily(r, "nictune_socket_enqueues_total",
                                     "Packets queued to the socket, top sockets only (bpf "
                                     "sock:sk_data_ready, above the fill threshold).")),
      socket_rcvqueue_full_(
          CounterFamily(r, "nictune_socket_rcvqueue_full_total",
                        "Packets refused because the receive buffer was full, top "
                        "sockets only (bpf sock:sock_rcvqueue_full).")),
      socket_udp_queue_failures_(
          CounterFamily(r, "nictune_socket_udp_queue_failures_total",
                        "UDP packets the socket failed to queue, top sockets "
                        "only (bpf udp:udp_fail_queue_rcv_skb).")),
      socket_rcvbuf_(GaugeFamily(r, "nictune_socket_receive_buffer_bytes",
                                 "sk_rcvbuf at the socket's last event, top sockets only (bpf).")),
      socket_peak_fill_(
          GaugeFamily(r, "nictune_socket_receive_buffer_peak_fill_ratio",
                      "Peak rmem_alloc / sk_rcvbuf within the last window, top sockets "
                      "only (bpf sock:sk_data_ready).")),
      socket_truesize_(
          GaugeFamily(r, "nictune_socket_truesize_mean_bytes",
                      "Mean bytes charged per queued packet within the last window, top "
                      "sockets only (bpf sock:sk_data_ready).")),
      truesize_(
          HistogramFamily(r, "nictune_rx_truesize_bytes",
                          "skb truesize of received packets per device, a sample of one packet "
                          "in the probe's sample_every (bpf net:netif_receive_skb)."),
          TruesizeBoundaries()) {}

void BpfSeries::Update(const model::Snapshot& snapshot, const model::Window& window) {
  const driver::BpfCounters* counters = snapshot.bpf ? &*snapshot.bpf : nullptr;
  UpdateIrqs(counters);
  UpdateSoftirqs(counters, window);
  UpdateNapis(counters);
  UpdateDrops(counters);
  UpdateSockets(counters, window);
  UpdateTruesize(counters);
}

void BpfSeries::UpdateIrqs(const driver::BpfCounters* counters) {
  CounterSums calls;
  CounterSums seconds;
  for (const auto& c : Items(counters, &driver::BpfCounters::irqs)) {
    if (c.count == 0) continue;
    const prometheus::Labels labels{{"irq", std::to_string(c.irq)}, {"cpu", std::to_string(c.cpu)}};
    calls.Add(labels, static_cast<double>(c.count));
    seconds.Add(labels, Seconds(c.time_ns));
  }
  calls.PublishTo(irq_handler_calls_);
  seconds.PublishTo(irq_handler_seconds_);
}

void BpfSeries::UpdateSoftirqs(const driver::BpfCounters* counters, const model::Window& window) {
  CounterSums raised;
  for (const auto& c : Items(counters, &driver::BpfCounters::softirqs)) {
    if (c.count == 0 && c.raised == 0) continue;
    raised.Add({{"vector", SoftirqVectorName(c.vector)}, {"cpu", std::to_string(c.cpu)}},
               static_cast<double>(c.raised));
  }
  raised.PublishTo(softirq_raised_);
  if (counters != nullptr) {
    const driver::SoftirqDutyCounters& duty = counters->softirq_duty;
    softirq_untimed_seconds_.Set({}, Seconds(duty.untimed_ns));
    softirq_timing_links_.Set({{"operation", "attach"}}, static_cast<double>(duty.link_attaches));
    softirq_timing_links_.Set({{"operation", "detach"}}, static_cast<double>(duty.link_detaches));
    softirq_timing_link_cpu_seconds_.Set({{"operation", "attach"}},
                                         Seconds(duty.link_attach_cpu_ns));
    softirq_timing_link_cpu_seconds_.Set({{"operation", "detach"}},
                                         Seconds(duty.link_detach_cpu_ns));
  }
  softirq_untimed_seconds_.Sweep();
  softirq_timing_links_.Sweep();
  softirq_timing_link_cpu_seconds_.Sweep();
  // The probes' time_ns is the time of the softirqs they timed, weighted; while duty-cycled that
  // is no estimate of the whole (the window's is: agent/model/softirq_time.h), so the counter adds
  // up the windows'.
  for (const model::SoftirqWindow& s : window.softirqs) {
    softirq_seconds_totals_.Add(
        {{"vector", SoftirqVectorName(s.vector)}, {"cpu", std::to_string(s.cpu)}}, s.time_ns / 1e9);
  }
  softirq_seconds_totals_.PublishTo(softirq_seconds_);
}

void BpfSeries::UpdateNapis(const driver::BpfCounters* counters) {
  CounterSums polls;
  CounterSums packets;
  CounterSums exhausted;
  CounterSums tx;
  std::map<prometheus::Labels, std::pair<std::vector<double>, double>> work;
  const size_t bounds = kNapiWorkBoundaries.size();
  for (const auto& n : Items(counters, &driver::BpfCounters::napis)) {
    if (n.polls == 0) continue;
    const prometheus::Labels labels{{"napi_id", std::to_string(n.napi_id)}, {"device", n.device}};
    polls.Add(labels, static_cast<double>(n.polls));
    packets.Add(labels, static_cast<double>(n.work));
    exhausted.Add(labels, static_cast<double>(n.budget_exhausted));
    tx.Add(labels, static_cast<double>(n.tx_completions));
    napi_budget_.Set(labels, static_cast<double>(n.last_budget));
    auto& [buckets, sum] = work[labels];
    buckets.resize(bounds + 1, 0.0);
    sum += static_cast<double>(n.work);
    // Histogram bucket w holds polls of exactly w packets (the last one: more than the buckets).
    for (size_t w = 0; w < n.work_histogram.size(); ++w) {
      const bool overflow = w + 1 == n.work_histogram.size();
      const auto first_bound = std::lower_bound(kNapiWorkBoundaries.begin(),
                                                kNapiWorkBoundaries.end(), static_cast<double>(w));
      const size_t slot =
          overflow ? bounds : static_cast<size_t>(first_bound - kNapiWorkBoundaries.begin());
      buckets[slot] += static_cast<double>(n.work_histogram[w]);
    }
  }
  polls.PublishTo(napi_polls_);
  packets.PublishTo(napi_packets_);
  exhausted.PublishTo(napi_budget_exhausted_);
  tx.PublishTo(napi_tx_completions_);
  napi_budget_.Sweep();
  for (const auto& [labels, histogram] : work) {
    napi_work_.Set(labels, histogram.first, histogram.second);
  }
  napi_work_.Sweep();
}

void BpfSeries::UpdateDrops(const driver::BpfCounters* counters) {
  CounterSums drops;
  for (const auto& d : Items(counters, &driver::BpfCounters::drops)) {
    drops.Add({{"reason", d.reason_name.empty() ? std::to_string(d.reason) : d.reason_name},
               {"proto", ProtocolName(d.protocol, d.l4_protocol)},
               {"device", d.device},
               {"port", DropPortLabel(d.reason_name, d.socket_cookie, d.local_port)}},
              static_cast<double>(d.count));
  }
  drops.PublishTo(drops_);
}

void BpfSeries::UpdateSockets(const driver::BpfCounters* counters, const model::Window& window) {
  std::map<uint64_t, const model::SocketWindow*> top;
  for (const auto* s : TopSockets(window.sockets, max_sockets_)) top[s->key.cookie] = s;

  for (const auto& s : Items(counters, &driver::BpfCounters::sockets)) {
    const auto it = top.find(s.key.cookie);
    if (it == top.end()) continue;
    const model::SocketWindow& w = *it->second;
    const prometheus::Labels labels{{"socket", std::to_string(s.key.cookie)},
                                    {"proto", ProtocolName(0, s.key.protocol)},
                                    {"port", std::to_string(s.key.local_port)},
                                    {"netns", std::to_string(s.key.netns_inode)}};
    socket_enqueues_.Set(labels, static_cast<double>(s.enqueues));
    socket_rcvqueue_full_.Set(labels, static_cast<double>(s.rcvqueue_full));
    socket_udp_queue_failures_.Set(labels, static_cast<double>(s.udp_queue_failures));
    socket_rcvbuf_.Set(labels, static_cast<double>(w.rcvbuf));
    socket_peak_fill_.Set(labels, w.peak_fill);
    if (w.mean_truesize) socket_truesize_.Set(labels, *w.mean_truesize);
  }
  socket_enqueues_.Sweep();
  socket_rcvqueue_full_.Sweep();
  socket_udp_queue_failures_.Sweep();
  socket_rcvbuf_.Sweep();
  socket_peak_fill_.Sweep();
  socket_truesize_.Sweep();
}

void BpfSeries::UpdateTruesize(const driver::BpfCounters* counters) {
  const size_t bounds = truesize_.boundaries().size();
  std::map<prometheus::Labels, std::pair<std::vector<double>, double>> histograms;
  for (const auto& t : Items(counters, &driver::BpfCounters::truesize)) {
    if (t.samples == 0) continue;
    auto& [buckets, sum] = histograms[{{"device", t.device}}];
    buckets.resize(bounds + 1, 0.0);
    sum += static_cast<double>(t.bytes);
    for (size_t b = 0; b < t.buckets.size(); ++b) {
      const size_t slot = b < kFirstTruesizeBucket ? 0 : std::min(b - kFirstTruesizeBucket, bounds);
      buckets[slot] += static_cast<double>(t.buckets[b]);
    }
  }
  for (const auto& [labels, histogram] : histograms) {
    truesize_.Set(labels, histogram.first, histogram.second);
  }
  truesize_.Sweep();
}

}  // namespace nictune::metrics
