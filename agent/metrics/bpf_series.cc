// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/bpf_series.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/series_shapes.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"

namespace nictune::metrics {
namespace {

// The probes' entries of one kind, none when BPF was not read.
template <typename T>
const std::vector<T>& Items(const driver::BpfCounters* counters,
                            std::vector<T> driver::BpfCounters::*field) {
  static const std::vector<T> kNone;
  return counters != nullptr ? counters->*field : kNone;
}

double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

BpfSeries::BpfSeries(prometheus::Registry& r, const SeriesOptions& options)
    : options_(options),
      irq_handler_calls_(CounterFamily(r, metrics::family::kIrqHandlerCallsTotal)),
      irq_handler_seconds_(CounterFamily(r, metrics::family::kIrqHandlerSecondsTotal)),
      hardirq_seconds_(CounterFamily(r, metrics::family::kHardirqSecondsTotal)),
      softirq_seconds_(CounterFamily(r, metrics::family::kSoftirqSecondsTotal)),
      softirq_raised_(CounterFamily(r, metrics::family::kSoftirqRaisedTotal)),
      softirq_untimed_seconds_(CounterFamily(r, metrics::family::kSoftirqUntimedSecondsTotal)),
      napi_polls_(CounterFamily(r, metrics::family::kNapiPollsTotal)),
      napi_packets_(CounterFamily(r, metrics::family::kNapiPacketsTotal)),
      napi_budget_exhausted_(CounterFamily(r, metrics::family::kNapiBudgetExhaustedTotal)),
      napi_tx_completions_(CounterFamily(r, metrics::family::kNapiTxCompletionsTotal)),
      napi_budget_(GaugeFamily(r, metrics::family::kNapiBudgetPackets)),
      napi_work_(HistogramFamily(r, metrics::family::kNapiPollWorkPackets), kNapiWorkBoundaries),
      drops_(CounterFamily(r, metrics::family::kSkbDropsTotal)),
      socket_enqueues_(CounterFamily(r, metrics::family::kSocketEnqueuesTotal)),
      socket_rcvqueue_full_(CounterFamily(r, metrics::family::kSocketRcvqueueFullTotal)),
      socket_udp_queue_failures_(CounterFamily(r, metrics::family::kSocketUdpQueueFailuresTotal)),
      socket_rcvbuf_(GaugeFamily(r, metrics::family::kSocketReceiveBufferBytes)),
      socket_peak_fill_(GaugeFamily(r, metrics::family::kSocketReceiveBufferPeakFillRatio)),
      socket_drain_gap_(GaugeFamily(r, metrics::family::kSocketDrainGapSeconds)),
      socket_truesize_(GaugeFamily(r, metrics::family::kSocketTruesizeMeanBytes)),
      truesize_(HistogramFamily(r, metrics::family::kRxTruesizeBytes), TruesizeBoundaries()) {}

void BpfSeries::Update(const model::Snapshot& snapshot, const model::Window& window) {
  const driver::BpfCounters* counters = snapshot.bpf ? &*snapshot.bpf : nullptr;
  UpdateIrqs(counters);
  UpdateSoftirqs(counters, window);
  UpdateNapis(window);
  UpdateDrops(window);
  UpdateSockets(counters, window);
  UpdateTruesize(counters);
}

void BpfSeries::UpdateIrqs(const driver::BpfCounters* counters) {
  CounterSums calls;
  CounterSums seconds;
  CounterSums per_cpu;
  for (const auto& c : Items(counters, &driver::BpfCounters::irqs)) {
    if (c.count == 0) continue;
    per_cpu.Add(WithCpu({}, static_cast<int>(c.cpu), options_.per_cpu), Seconds(c.time_ns));
    prometheus::Labels labels{{"irq", std::to_string(c.irq)}};
    if (options_.interrupts_per_cpu) labels.emplace("cpu", std::to_string(c.cpu));
    calls.Add(labels, static_cast<double>(c.count));
    seconds.Add(labels, Seconds(c.time_ns));
  }
  calls.PublishTo(irq_handler_calls_);
  seconds.PublishTo(irq_handler_seconds_);
  per_cpu.PublishTo(hardirq_seconds_);
}

void BpfSeries::UpdateSoftirqs(const driver::BpfCounters* counters, const model::Window& window) {
  CounterSums raised;
  // softirq_raise is opt-in: without it every vector and CPU would be a series of zeros.
  for (const auto& c : Items(counters, &driver::BpfCounters::softirqs)) {
    if (c.raised == 0) continue;
    raised.Add(WithCpu({{"vector", SoftirqVectorName(c.vector)}}, static_cast<int>(c.cpu),
                       options_.per_cpu),
               static_cast<double>(c.raised));
  }
  raised.PublishTo(softirq_raised_);
  if (counters != nullptr) {
    softirq_untimed_seconds_.Set({}, Seconds(counters->softirq_duty.untimed_ns));
  }
  softirq_untimed_seconds_.Sweep();
  // The probes' time_ns is the time of the softirqs they timed, weighted; while duty-cycled that
  // is no estimate of the whole (the window's is: agent/model/softirq_time.h), so the counter adds
  // up the windows'.
  for (const model::SoftirqWindow& s : window.softirqs) {
    softirq_seconds_totals_.Add(WithCpu({{"vector", SoftirqVectorName(s.vector)}},
                                        static_cast<int>(s.cpu), options_.per_cpu),
                                s.time_ns / 1e9);
  }
  softirq_seconds_totals_.PublishTo(softirq_seconds_);
}

// The windows' figures added up, not the probes' counters: while the probe budget slots a hook,
// its programs see part of the time, and the window scales what they saw to the whole
// (agent/model/window.h Coverage). The histogram's buckets are the polls sampled, scaled to the
// polls estimated, so that its _count agrees with nictune_napi_polls_total.
void BpfSeries::UpdateNapis(const model::Window& window) {
  const size_t bounds = kNapiWorkBoundaries.size();
  for (const model::NapiWindow& n : window.napis) {
    const prometheus::Labels labels = NapiLabels(n);
    napi_polls_totals_.Add(labels, n.polls_per_s * window.seconds);
    napi_packets_totals_.Add(labels, n.work_per_s * window.seconds);
    napi_exhausted_totals_.Add(labels,
                               n.budget_exhausted_fraction * n.polls_per_s * window.seconds);
    napi_tx_totals_.Add(labels, n.tx_completions_per_s * window.seconds);
    napi_budget_.Set(labels, static_cast<double>(n.budget));
    uint64_t sampled = 0;
    for (const uint64_t polls : n.work_histogram) sampled += polls;
    if (sampled == 0) continue;
    const double scale = n.polls_per_s * window.seconds / static_cast<double>(sampled);
    auto& [buckets, sum] = napi_work_totals_[labels];
    buckets.resize(bounds + 1, 0.0);
    sum += n.work_per_s * window.seconds;
    // Histogram bucket w holds polls of exactly w packets (the last one: more than the buckets).
    for (size_t w = 0; w < n.work_histogram.size(); ++w) {
      const bool overflow = w + 1 == n.work_histogram.size();
      const auto first_bound = std::lower_bound(kNapiWorkBoundaries.begin(),
                                                kNapiWorkBoundaries.end(), static_cast<double>(w));
      const size_t slot =
          overflow ? bounds : static_cast<size_t>(first_bound - kNapiWorkBoundaries.begin());
      buckets[slot] += static_cast<double>(n.work_histogram[w]) * scale;
    }
  }
  napi_polls_totals_.PublishTo(napi_polls_);
  napi_packets_totals_.PublishTo(napi_packets_);
  napi_exhausted_totals_.PublishTo(napi_budget_exhausted_);
  napi_tx_totals_.PublishTo(napi_tx_completions_);
  napi_budget_.Sweep();
  // A NAPI instance's histogram goes with its counters (CounterSums forgets the idle ones).
  std::erase_if(napi_work_totals_,
                [this](const auto& entry) { return !napi_polls_totals_.Contains(entry.first); });
  for (const auto& [labels, histogram] : napi_work_totals_) {
    napi_work_.Set(labels, histogram.first, histogram.second);
  }
  napi_work_.Sweep();
}

// The windows' drops added up: scaled to the whole window while the probe budget slots the drop
// probe, and to Udp.RcvbufErrors for this namespace's UDP receive-buffer drops.
void BpfSeries::UpdateDrops(const model::Window& window) {
  for (const model::DropWindow& d : window.drops) {
    drops_totals_.Add(DropLabels(d), static_cast<double>(d.count));
  }
  drops_totals_.PublishTo(drops_);
}

void BpfSeries::UpdateSockets(const driver::BpfCounters* counters, const model::Window& window) {
  std::map<uint64_t, const model::SocketWindow*> top;
  for (const auto* s : TopSockets(window.sockets, options_.max_sockets)) top[s->key.cookie] = s;

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
    // No read was timed: the gap is unknown, not 0.
    if (w.drain_gap_seen_below_s > 0) socket_drain_gap_.Set(labels, model::LongestDrainWait(w));
    if (w.mean_truesize) socket_truesize_.Set(labels, *w.mean_truesize);
  }
  socket_enqueues_.Sweep();
  socket_rcvqueue_full_.Sweep();
  socket_udp_queue_failures_.Sweep();
  socket_rcvbuf_.Sweep();
  socket_peak_fill_.Sweep();
  socket_drain_gap_.Sweep();
  socket_truesize_.Sweep();
}

void BpfSeries::UpdateTruesize(const driver::BpfCounters* counters) {
  const size_t bounds = truesize_.boundaries().size();
  std::map<prometheus::Labels, std::pair<std::vector<double>, double>> histograms;
  for (const auto& t : Items(counters, &driver::BpfCounters::truesize)) {
    if (t.samples == 0) continue;
    const bool other_namespace =
        t.netns_inode != 0 && counters->netns_inode != 0 && t.netns_inode != counters->netns_inode;
    auto& [buckets, sum] =
        histograms[{{"device", other_namespace ? kOtherNamespacesDevice : t.device}}];
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
