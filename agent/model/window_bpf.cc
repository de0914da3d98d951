// Window figures from the BPF probes' cumulative counters.
#include <algorithm>
#include <map>
#include <tuple>

#include "agent/model/counter_delta.h"
#include "agent/model/window_parts.h"

namespace nictune::model::internal {
namespace {

void AddIrqTimes(const driver::BpfCounters& before, const driver::BpfCounters& after,
                 double seconds, Window& out) {
  std::map<std::pair<uint32_t, uint32_t>, const driver::IrqCpuCounter*> earlier;
  for (const auto& c : before.irqs) earlier[{c.irq, c.cpu}] = &c;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> per_irq;  // irq -> (count, time_ns)
  for (const auto& c : after.irqs) {
    const auto it = earlier.find({c.irq, c.cpu});
    const uint64_t count =
        it == earlier.end() ? c.count : ResettingDelta64(it->second->count, c.count);
    const uint64_t time_ns =
        it == earlier.end() ? c.time_ns : ResettingDelta64(it->second->time_ns, c.time_ns);
    if (count == 0) continue;
    per_irq[c.irq].first += count;
    per_irq[c.irq].second += time_ns;
    AddShare(CpuEntry(out, static_cast<int>(c.cpu)).bpf_hardirq_share,
             static_cast<double>(time_ns) / (seconds * 1e9));
  }
  for (const auto& [irq, totals] : per_irq) {
    auto w = std::find_if(out.irqs.begin(), out.irqs.end(),
                          [irq = irq](const IrqWindow& i) { return i.irq == irq; });
    if (w == out.irqs.end()) {
      // /proc/interrupts was unreadable or the irq is new: the probes' count stands alone.
      out.irqs.push_back(IrqWindow{.irq = irq,
                                   .count = totals.first,
                                   .per_s = static_cast<double>(totals.first) / seconds,
                                   .source = Source::kBpf});
      w = out.irqs.end() - 1;
    }
    w->handler_time_share = static_cast<double>(totals.second) / (seconds * 1e9);
    w->mean_handler_ns = static_cast<double>(totals.second) / static_cast<double>(totals.first);
  }
}

void AddNapis(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
              Window& out) {
  for (const auto& b : after.napis) {
    const auto a = std::find_if(before.napis.begin(), before.napis.end(), [&](const auto& n) {
      return n.napi_id == b.napi_id && n.ifindex == b.ifindex;
    });
    const driver::NapiCounter zero;
    const driver::NapiCounter& base = a == before.napis.end() ? zero : *a;
    const uint64_t polls = ResettingDelta64(base.polls, b.polls);
    if (polls == 0) continue;
    const uint64_t work = ResettingDelta64(base.work, b.work);
    const uint64_t tx = ResettingDelta64(base.tx_completions, b.tx_completions);
    NapiWindow w{.napi_id = b.napi_id, .ifindex = b.ifindex, .device = b.device, .polls = polls};
    w.polls_per_s = static_cast<double>(polls) / seconds;
    w.work_per_s = static_cast<double>(work) / seconds;
    w.packets_per_poll = static_cast<double>(work) / static_cast<double>(polls);
    w.budget_exhausted_fraction =
        static_cast<double>(ResettingDelta64(base.budget_exhausted, b.budget_exhausted)) /
        static_cast<double>(polls);
    w.budget = b.last_budget;
    w.tx_completions_per_s = static_cast<double>(tx) / seconds;
    w.rx_share = work + tx == 0 ? 1.0 : static_cast<double>(work) / static_cast<double>(work + tx);
    w.work_histogram.resize(b.work_histogram.size());
    for (size_t i = 0; i < b.work_histogram.size(); ++i) {
      const uint64_t prev = i < base.work_histogram.size() ? base.work_histogram[i] : 0;
      w.work_histogram[i] = ResettingDelta64(prev, b.work_histogram[i]);
    }
    out.napis.push_back(std::move(w));
  }
}

void AddDrops(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
              Window& out) {
  const auto key = [](const driver::DropCounter& d) {
    return std::tuple(d.reason, d.protocol, d.l4_protocol, d.ifindex, d.netns_inode, d.device,
                      d.local_port, d.socket_cookie);
  };
  std::map<decltype(key(driver::DropCounter{})), uint64_t> earlier;
  for (const auto& d : before.drops) earlier[key(d)] = d.count;
  for (const auto& d : after.drops) {
    const auto it = earlier.find(key(d));
    const uint64_t count = it == earlier.end() ? d.count : ResettingDelta64(it->second, d.count);
    if (count == 0) continue;
    // The probe names the device by the kernel's name, qualified with its namespace when one of
    // ours has that name too (driver/bpf/device_names.h). Only an unnamed drop is matched by
    // ifindex, or a drop in a container's namespace would be charged to whichever host device
    // happens to share its ifindex.
    std::string device = d.device;
    if (device.empty()) {
      const auto named = std::find_if(out.devices.begin(), out.devices.end(),
                                      [&](const auto& dev) { return dev.ifindex == d.ifindex; });
      if (named != out.devices.end()) device = named->name;
    }
    out.drops.push_back(DropWindow{.reason = d.reason,
                                   .reason_name = d.reason_name,
                                   .protocol = d.protocol,
                                   .l4_protocol = d.l4_protocol,
                                   .ifindex = d.ifindex,
                                   .device = device,
                                   .local_port = d.local_port,
                                   .socket_cookie = d.socket_cookie,
                                   .count = count,
                                   .per_s = static_cast<double>(count) / seconds});
  }
  std::sort(out.drops.begin(), out.drops.end(),
            [](const DropWindow& x, const DropWindow& y) { return x.count > y.count; });
}

void AddSockets(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
                Window& out) {
  std::map<uint64_t, const driver::SocketFill*> earlier;
  for (const auto& s : before.sockets) earlier[s.key.cookie] = &s;
  for (const auto& s : after.sockets) {
    const auto it = earlier.find(s.key.cookie);
    const driver::SocketFill zero;
    const driver::SocketFill& base = it == earlier.end() ? zero : *it->second;
    const uint64_t enqueues = ResettingDelta64(base.enqueues, s.enqueues);
    const uint64_t samples = ResettingDelta64(base.truesize_samples, s.truesize_samples);
    const uint64_t truesize = ResettingDelta64(base.truesize_sum, s.truesize_sum);
    SocketWindow w{
        .key = s.key,
        .enqueues_per_s = static_cast<double>(enqueues) / seconds,
        .rcvbuf = s.rcvbuf,
        .peak_fill = s.peak_fill,  // peaks are reset by every Read(): this window's
        .rcvqueue_full = ResettingDelta64(base.rcvqueue_full, s.rcvqueue_full),
        .udp_queue_failures = ResettingDelta64(base.udp_queue_failures, s.udp_queue_failures)};
    if (samples > 0) w.mean_truesize = static_cast<double>(truesize) / static_cast<double>(samples);
    if (enqueues == 0 && w.rcvqueue_full == 0 && w.udp_queue_failures == 0 && w.peak_fill == 0) {
      continue;
    }
    out.sockets.push_back(w);
  }
  std::sort(out.sockets.begin(), out.sockets.end(),
            [](const SocketWindow& x, const SocketWindow& y) { return x.peak_fill > y.peak_fill; });
}

double BucketUpperBound(size_t bucket) { return static_cast<double>(uint64_t{2} << bucket); }

double Quantile(const std::vector<uint64_t>& buckets, uint64_t total, double q) {
  const double rank = q * static_cast<double>(total);
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    seen += buckets[b];
    if (static_cast<double>(seen) >= rank) return BucketUpperBound(b);
  }
  return BucketUpperBound(buckets.empty() ? 0 : buckets.size() - 1);
}

void AddTruesize(const driver::BpfCounters& before, const driver::BpfCounters& after, Window& out) {
  for (const auto& b : after.truesize) {
    const auto a = std::find_if(before.truesize.begin(), before.truesize.end(),
                                [&](const auto& t) { return t.ifindex == b.ifindex; });
    const driver::TruesizeHistogram zero;
    const driver::TruesizeHistogram& base = a == before.truesize.end() ? zero : *a;
    const uint64_t samples = ResettingDelta64(base.samples, b.samples);
    if (samples == 0) continue;
    TruesizeWindow w{.ifindex = b.ifindex, .device = b.device, .samples = samples};
    w.mean_bytes =
        static_cast<double>(ResettingDelta64(base.bytes, b.bytes)) / static_cast<double>(samples);
    w.buckets.resize(b.buckets.size());
    for (size_t i = 0; i < b.buckets.size(); ++i) {
      const uint64_t prev = i < base.buckets.size() ? base.buckets[i] : 0;
      w.buckets[i] = ResettingDelta64(prev, b.buckets[i]);
    }
    w.p50_bytes = Quantile(w.buckets, samples, 0.5);
    w.p99_bytes = Quantile(w.buckets, samples, 0.99);
    out.truesize.push_back(std::move(w));
  }
}

}  // namespace

void AddBpf(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
            Window& out) {
  AddIrqTimes(before, after, seconds, out);
  AddNapis(before, after, seconds, out);
  AddDrops(before, after, seconds, out);
  AddSockets(before, after, seconds, out);
  AddTruesize(before, after, out);
  std::sort(out.cpus.begin(), out.cpus.end(),
            [](const CpuWindow& x, const CpuWindow& y) { return x.cpu < y.cpu; });
}

}  // namespace nictune::model::internal
