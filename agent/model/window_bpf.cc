// SPDX-License-Identifier: Apache-2.0
// Window figures from the BPF probes' cumulative counters.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "agent/model/counter_delta.h"
#include "agent/model/window_parts.h"
#include "driver/probe_tracepoints.h"

namespace nictune::model::internal {
namespace {

// A hook attached for this share of a window, with no stretch begun in it, watched it whole: the
// two readings' clocks and the hook's are taken microseconds apart.
constexpr double kWholeShare = 0.999;

const driver::HookDuty* FindHook(const driver::BpfCounters& counters, const std::string& hook) {
  for (const driver::HookDuty& duty : counters.hooks) {
    if (duty.hook == hook) return &duty;
  }
  return nullptr;
}

// What a hook of the probe budget did over the window (driver::HookDuty).
struct HookInWindow {
  double attached_ns = 0;  // measured
  uint64_t starts = 0;     // stretches begun
  double span_ns = 0;      // the window
};

// nullopt for counters without the probe budget's hooks (a reading from probes attached whole).
std::optional<HookInWindow> HookDelta(const driver::BpfCounters& before,
                                      const driver::BpfCounters& after, const std::string& hook) {
  const driver::HookDuty* a = FindHook(after, hook);
  const driver::HookDuty* b = FindHook(before, hook);
  if (a == nullptr || b == nullptr || after.monotonic_ns <= before.monotonic_ns) return {};
  return HookInWindow{
      .attached_ns = static_cast<double>(ResettingDelta64(b->attached_ns, a->attached_ns)),
      .starts = ResettingDelta64(b->slots, a->slots),
      .span_ns = static_cast<double>(after.monotonic_ns - before.monotonic_ns)};
}

// The share of the window a hook's programs were attached; 1 for probes attached whole.
double HookCoverage(const driver::BpfCounters& before, const driver::BpfCounters& after,
                    const std::string& hook) {
  const std::optional<HookInWindow> delta = HookDelta(before, after, hook);
  if (!delta) return 1;
  return std::clamp(delta->attached_ns / delta->span_ns, 0.0, 1.0);
}

// A count seen over `share` of the window, scaled to the whole window.
uint64_t Scaled(uint64_t seen, double share) {
  return share >= 1 ? seen : static_cast<uint64_t>(std::llround(static_cast<double>(seen) / share));
}

Coverage CoverageOf(double share) {
  return Coverage{.share = share, .scaled_to = share < 1 ? "coverage" : ""};
}

void AddIrqTimes(const driver::BpfCounters& before, const driver::BpfCounters& after,
                 double seconds, Window& out) {
  const double share = HookCoverage(before, after, "irq");
  if (share <= 0) return;
  std::map<std::pair<uint32_t, uint32_t>, const driver::IrqCpuCounter*> earlier;
  for (const auto& c : before.irqs) earlier[{c.irq, c.cpu}] = &c;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> per_irq;  // irq -> (count, time_ns)
  for (const auto& c : after.irqs) {
    const auto it = earlier.find({c.irq, c.cpu});
    const uint64_t count =
        Scaled(it == earlier.end() ? c.count : ResettingDelta64(it->second->count, c.count), share);
    const uint64_t time_ns = Scaled(
        it == earlier.end() ? c.time_ns : ResettingDelta64(it->second->time_ns, c.time_ns), share);
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
  const double share = HookCoverage(before, after, "napi");
  const double tx_share = HookCoverage(before, after, "txshare");
  if (share <= 0) return;
  for (const auto& b : after.napis) {
    const auto a = std::find_if(before.napis.begin(), before.napis.end(), [&](const auto& n) {
      return n.napi_id == b.napi_id && n.ifindex == b.ifindex && n.thread_pid == b.thread_pid;
    });
    const driver::NapiCounter zero;
    const driver::NapiCounter& base = a == before.napis.end() ? zero : *a;
    const uint64_t polls = Scaled(ResettingDelta64(base.polls, b.polls), share);
    if (polls == 0) continue;
    const uint64_t work = Scaled(ResettingDelta64(base.work, b.work), share);
    const uint64_t tx =
        tx_share > 0 ? Scaled(ResettingDelta64(base.tx_completions, b.tx_completions), tx_share)
                     : 0;
    NapiWindow w{.napi_id = b.napi_id,
                 .ifindex = b.ifindex,
                 .thread_pid = b.thread_pid,
                 .device = b.device,
                 .polls = polls};
    w.coverage = CoverageOf(share);
    w.other_namespace =
        b.netns_inode != 0 && after.netns_inode != 0 && b.netns_inode != after.netns_inode;
    w.polls_per_s = static_cast<double>(polls) / seconds;
    w.work_per_s = static_cast<double>(work) / seconds;
    w.packets_per_poll = static_cast<double>(work) / static_cast<double>(polls);
    w.budget_exhausted_fraction =
        static_cast<double>(
            Scaled(ResettingDelta64(base.budget_exhausted, b.budget_exhausted), share)) /
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

// What the drop totals are exact for: a key's group (driver::DropOrigin). The keys of a group
// split its drops between ports and sockets as far as the map still holds them.
using DropGroup = std::tuple<bool, uint32_t, uint16_t, uint8_t, int32_t, uint32_t, std::string>;

DropGroup GroupOf(const driver::DropCounter& d) {
  return {d.origin == driver::DropOrigin::kMapFull,
          d.reason,
          d.protocol,
          d.l4_protocol,
          d.ifindex,
          d.netns_inode,
          d.device};
}

std::map<DropGroup, uint64_t> GroupTotals(const std::vector<driver::DropCounter>& drops) {
  std::map<DropGroup, uint64_t> totals;
  for (const driver::DropCounter& d : drops) totals[GroupOf(d)] += d.count;
  return totals;
}

DropWindow DropRow(const driver::DropCounter& d, uint64_t count, double seconds, double share,
                   uint32_t own_netns, const Window& out) {
  // The probe names the device by the kernel's name, qualified with its namespace when one of
  // ours has that name too (driver/bpf/device_names.h). Only an unnamed drop is matched by
  // ifindex, or a drop in a container's namespace would be charged to whichever host device
  // happens to share its ifindex.
  std::string device = d.device;
  if (device.empty() && d.origin != driver::DropOrigin::kMapFull) {
    const auto named = std::find_if(out.devices.begin(), out.devices.end(),
                                    [&](const auto& dev) { return dev.ifindex == d.ifindex; });
    if (named != out.devices.end()) device = named->name;
  }
  return DropWindow{
      .reason = d.reason,
      .reason_name = d.reason_name,
      .protocol = d.protocol,
      .l4_protocol = d.l4_protocol,
      .ifindex = d.ifindex,
      .device = device,
      .local_port = d.local_port,
      .socket_cookie = d.socket_cookie,
      .count = count,
      .per_s = static_cast<double>(count) / seconds,
      .coverage = CoverageOf(share),
      .netns_inode = d.netns_inode,
      .other_namespace = d.netns_inode != 0 && own_netns != 0 && d.netns_inode != own_netns,
      .map_full = d.origin == driver::DropOrigin::kMapFull};
}

// Each group's drops exactly (its held keys, the pruned keys' sum and the map-full count
// together), split by key as far as the held keys tell; what they do not (keys pruned or
// re-created within the window, drops that found the map full) is one row of the group with
// neither port nor socket.
void AddDrops(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
              Window& out) {
  const double share = HookCoverage(before, after, "drops");
  if (share <= 0) return;
  const auto key = [](const driver::DropCounter& d) {
    return std::tuple(d.reason, d.protocol, d.l4_protocol, d.ifindex, d.netns_inode, d.device,
                      d.local_port, d.socket_cookie);
  };
  std::map<decltype(key(driver::DropCounter{})), uint64_t> earlier;
  for (const auto& d : before.drops) {
    if (d.origin == driver::DropOrigin::kKey) earlier[key(d)] = d.count;
  }
  const std::map<DropGroup, uint64_t> totals_before = GroupTotals(before.drops);
  std::map<DropGroup, std::pair<uint64_t, const driver::DropCounter*>> groups;  // total, a member
  std::map<DropGroup, uint64_t> by_key;
  for (const auto& d : after.drops) {
    auto& group = groups[GroupOf(d)];
    group.first += d.count;
    group.second = &d;
    if (d.origin != driver::DropOrigin::kKey) continue;
    const auto it = earlier.find(key(d));
    const uint64_t count = it == earlier.end() ? d.count : ResettingDelta64(it->second, d.count);
    if (count == 0) continue;
    by_key[GroupOf(d)] += count;
    out.drops.push_back(DropRow(d, Scaled(count, share), seconds, share, after.netns_inode, out));
  }
  for (const auto& [group, entry] : groups) {
    const auto then = totals_before.find(group);
    const uint64_t exact =
        ResettingDelta64(then == totals_before.end() ? 0 : then->second, entry.first);
    const uint64_t keyed = by_key[group];
    if (exact <= keyed) continue;
    driver::DropCounter rest = *entry.second;
    rest.local_port = 0;
    rest.socket_cookie = 0;
    out.drops.push_back(
        DropRow(rest, Scaled(exact - keyed, share), seconds, share, after.netns_inode, out));
  }
  std::sort(out.drops.begin(), out.drops.end(),
            [](const DropWindow& x, const DropWindow& y) { return x.count > y.count; });
}

// The longest wait the socket-fill probe could time in the window. It pairs a read only with a
// wait begun in the same stretch of its watching (docs/design.md, glossary: stretch), so while
// the probe budget samples it no wait longer than its slot is seen: the window's mean stretch,
// counting one more for a stretch the window may have begun in (the lower figure: it claims no
// wait was seen that was not). +inf while one stretch spans the window; 0 when nothing was timed.
double DrainGapSeenBelow(const driver::BpfCounters& before, const driver::BpfCounters& after) {
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  if (!after.drain_gap_timed) return 0;
  const std::optional<HookInWindow> delta =
      HookDelta(before, after, std::string(driver::kSocketFillConcern));
  if (!delta) return kNoLimit;
  if (delta->attached_ns <= 0) return 0;
  if (delta->starts == 0 && delta->attached_ns >= kWholeShare * delta->span_ns) return kNoLimit;
  return delta->attached_ns / static_cast<double>(delta->starts + 1) * 1e-9;
}

void AddSockets(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
                Window& out) {
  const double share = HookCoverage(before, after, std::string(driver::kSocketFillConcern));
  const double seen_below_s = DrainGapSeenBelow(before, after);
  const double fail_share = HookCoverage(before, after, "udp_fail");
  std::map<uint64_t, const driver::SocketFill*> earlier;
  for (const auto& s : before.sockets) earlier[s.key.cookie] = &s;
  for (const auto& s : after.sockets) {
    const auto it = earlier.find(s.key.cookie);
    const driver::SocketFill zero;
    const driver::SocketFill& base = it == earlier.end() ? zero : *it->second;
    const uint64_t enqueues =
        share > 0 ? Scaled(ResettingDelta64(base.enqueues, s.enqueues), share) : 0;
    const uint64_t samples = ResettingDelta64(base.truesize_samples, s.truesize_samples);
    const uint64_t truesize = ResettingDelta64(base.truesize_sum, s.truesize_sum);
    SocketWindow w{
        .key = s.key,
        .enqueues_per_s = static_cast<double>(enqueues) / seconds,
        .rcvbuf = s.rcvbuf,
        .peak_fill = s.peak_fill,  // peaks are reset by every Read(): this window's
        .longest_drain_gap_s = static_cast<double>(s.longest_drain_gap_ns) * 1e-9,
        .open_drain_wait_s = static_cast<double>(s.open_drain_wait_ns) * 1e-9,
        .drain_gap_seen_below_s = seen_below_s,
        .rcvqueue_full =
            share > 0 ? Scaled(ResettingDelta64(base.rcvqueue_full, s.rcvqueue_full), share) : 0,
        .udp_queue_failures =
            fail_share > 0 ? Scaled(ResettingDelta64(base.udp_queue_failures, s.udp_queue_failures),
                                    fail_share)
                           : 0,
        .coverage = CoverageOf(share)};
    if (samples > 0) {
      w.mean_truesize = static_cast<double>(truesize) / static_cast<double>(samples);
    } else if (s.truesize_samples > 0) {
      // A window between the probe's slots: a socket's charge per packet changes with its
      // traffic, not from one window to the next, and a gauge that blinked out would read empty.
      w.mean_truesize =
          static_cast<double>(s.truesize_sum) / static_cast<double>(s.truesize_samples);
    }
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
    // An ifindex is unique only inside its namespace.
    const auto a = std::find_if(before.truesize.begin(), before.truesize.end(), [&](const auto& t) {
      return t.ifindex == b.ifindex && t.netns_inode == b.netns_inode;
    });
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
    w.other_namespace =
        b.netns_inode != 0 && after.netns_inode != 0 && b.netns_inode != after.netns_inode;
    out.truesize.push_back(std::move(w));
  }
}

// A device's NAPI instances, seen for part of the window, scaled so that their work adds up to
// the packets the device received (exact): each instance keeps its sampled share of the work and
// its packets per poll.
void ScaleNapisToDevices(Window& out) {
  for (const DeviceWindow& device : out.devices) {
    const auto rx = device.per_s.find("rx_packets");
    if (rx == device.per_s.end()) continue;
    double sampled = 0;
    for (const NapiWindow& napi : out.napis) {
      if (napi.device == device.name && napi.coverage.share < 1) sampled += napi.work_per_s;
    }
    if (!(sampled > 0)) continue;
    const double factor = rx->second / sampled;
    for (NapiWindow& napi : out.napis) {
      if (napi.device != device.name || napi.coverage.share >= 1) continue;
      napi.polls_per_s *= factor;
      napi.work_per_s *= factor;
      napi.tx_completions_per_s *= factor;
      napi.polls = static_cast<uint64_t>(std::llround(static_cast<double>(napi.polls) * factor));
      napi.coverage.scaled_to = "rx_packets";
    }
  }
}

// UDP receive-buffer drops in one namespace, seen for part of the window, scaled to the
// namespace's own count (Udp.RcvbufErrors, exact): the sample says how they split between
// sockets, ports and devices. A count the sample did not see at all is kept as one unattributed
// drop. The probes key the agent's own namespace 0 where they could not tell it. True when a
// drop was added or scaled.
bool ScaleNamespaceSocketDrops(uint32_t netns, bool own, double errors_per_s, Window& out) {
  const double exact = errors_per_s * out.seconds;
  const auto ours = [netns, own](const DropWindow& d) {
    return d.reason_name == kSocketRcvbuffReason && d.l4_protocol == 17 && d.protocol == 0x0800 &&
           (d.netns_inode == netns || (own && d.netns_inode == 0));
  };
  double sampled = 0;
  bool partial = false;
  for (const DropWindow& d : out.drops) {
    if (!ours(d)) continue;
    sampled += static_cast<double>(d.count);
    partial |= d.coverage.share < 1;
  }
  if (!(exact > 0) || (!partial && sampled > 0)) return false;
  if (!(sampled > 0)) {
    out.drops.push_back(DropWindow{.reason_name = std::string(kSocketRcvbuffReason),
                                   .protocol = 0x0800,
                                   .l4_protocol = 17,
                                   .count = static_cast<uint64_t>(std::llround(exact)),
                                   .per_s = errors_per_s,
                                   .coverage = {.share = 0, .scaled_to = "Udp.RcvbufErrors"},
                                   .netns_inode = netns,
                                   .unseen_by_sample = true});
    return true;
  }
  const double factor = exact / sampled;
  for (DropWindow& d : out.drops) {
    if (!ours(d)) continue;
    d.count = static_cast<uint64_t>(std::llround(static_cast<double>(d.count) * factor));
    d.per_s *= factor;
    d.coverage.scaled_to = "Udp.RcvbufErrors";
  }
  return true;
}

// Each namespace's sampled UDP receive-buffer drops scaled to its own Udp.RcvbufErrors: the
// agent's from its /proc/net/snmp, every other one's as the socket census read it.
void ScaleSocketDropsToSnmp(uint32_t own_netns, Window& out) {
  const auto errors_per_s = [](const std::map<std::string, double>& counters) {
    const auto errors = counters.find("Udp.RcvbufErrors");
    return errors == counters.end() ? 0.0 : errors->second;
  };
  bool changed = ScaleNamespaceSocketDrops(own_netns, true, errors_per_s(out.protocol_per_s), out);
  for (const auto& [netns, counters] : out.netns_protocol_per_s) {
    if (netns == own_netns) continue;
    changed |= ScaleNamespaceSocketDrops(netns, false, errors_per_s(counters), out);
  }
  if (!changed) return;
  std::sort(out.drops.begin(), out.drops.end(),
            [](const DropWindow& x, const DropWindow& y) { return x.count > y.count; });
}

void AddProbes(const driver::BpfCounters& before, const driver::BpfCounters& after, Window& out) {
  for (const driver::HookDuty& duty : after.hooks) {
    out.probes.push_back(ProbeWindow{.hook = duty.hook,
                                     .mode = duty.mode,
                                     .coverage = HookCoverage(before, after, duty.hook),
                                     .events_per_s = duty.events_per_s,
                                     .cost_ns_per_event = duty.cost_ns_per_event,
                                     .cost_measured = duty.cost_measured});
  }
  if (!after.hooks.empty()) {
    out.probe_budget = ProbeBudgetWindow{.cpu_share = after.budget.budget_cpu_share,
                                         .planning_cpu_share = after.budget.planning_cpu_share,
                                         .planned_cpu_share = after.budget.planned_ns_per_s / 1e9,
                                         .over_budget = after.budget.over_budget};
  }
}

}  // namespace

void AddBpf(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
            Window& out) {
  AddProbes(before, after, out);
  AddIrqTimes(before, after, seconds, out);
  AddNapis(before, after, seconds, out);
  ScaleNapisToDevices(out);
  AddDrops(before, after, seconds, out);
  ScaleSocketDropsToSnmp(after.netns_inode, out);
  AddSockets(before, after, seconds, out);
  AddTruesize(before, after, out);
  std::sort(out.cpus.begin(), out.cpus.end(),
            [](const CpuWindow& x, const CpuWindow& y) { return x.cpu < y.cpu; });
}

}  // namespace nictune::model::internal
