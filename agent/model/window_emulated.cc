// SPDX-License-Identifier: Apache-2.0
// Window figures from the emulated NICs' own counters.
#include <algorithm>

#include "agent/model/window_parts.h"

namespace nictune::model::internal {
namespace {

bool Restarted(const driver::emulated::EmulatedNicCounters& before,
               const driver::emulated::EmulatedNicCounters& after) {
  return after.elapsed_ns < before.elapsed_ns || after.interrupts < before.interrupts ||
         after.delivered < before.delivered || after.missed < before.missed;
}

// The queues' rates over the device's span; none unless both readings have the same queues.
std::vector<NicQueueWindow> QueueWindows(const EmulatedNicReading& before,
                                         const EmulatedNicReading& after, double span) {
  std::vector<NicQueueWindow> queues;
  if (before.queues.size() != after.queues.size()) return queues;
  for (size_t queue = 0; queue < after.queues.size(); ++queue) {
    const driver::emulated::EmulatedNicCounters& a = before.queues[queue];
    const driver::emulated::EmulatedNicCounters& b = after.queues[queue];
    if (Restarted(a, b)) return {};
    queues.push_back(
        NicQueueWindow{.queue = static_cast<uint32_t>(queue),
                       .napi_thread = static_cast<uint32_t>(b.napi_thread),
                       .interrupts = b.interrupts - a.interrupts,
                       .interrupts_per_s = static_cast<double>(b.interrupts - a.interrupts) / span,
                       .delivered_per_s = static_cast<double>(b.delivered - a.delivered) / span,
                       .missed_per_s = static_cast<double>(b.missed - a.missed) / span});
  }
  return queues;
}

}  // namespace

void AddEmulatedNics(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  for (const EmulatedNicReading& b : after.emulated_nics) {
    const auto a = std::find_if(before.emulated_nics.begin(), before.emulated_nics.end(),
                                [&](const EmulatedNicReading& r) { return r.device == b.device; });
    // No baseline: the NIC did not answer at the window's start, or it was started again.
    if (a == before.emulated_nics.end() || Restarted(a->counters, b.counters)) continue;
    const int64_t span_ns = b.counters.elapsed_ns - a->counters.elapsed_ns;
    const double span = span_ns > 0 ? static_cast<double>(span_ns) / 1e9 : seconds;
    const auto per_s = [span](uint64_t from, uint64_t to) {
      return static_cast<double>(to - from) / span;
    };
    out.emulated_nics.push_back(EmulatedNicWindow{
        .device = b.device,
        .seconds = span,
        .interrupts = b.counters.interrupts - a->counters.interrupts,
        .interrupts_per_s = per_s(a->counters.interrupts, b.counters.interrupts),
        .delivered_per_s = per_s(a->counters.delivered, b.counters.delivered),
        .missed_per_s = per_s(a->counters.missed, b.counters.missed),
        .stalls =
            b.counters.stalls >= a->counters.stalls ? b.counters.stalls - a->counters.stalls : 0,
        .stall_seconds = b.counters.stall_late_ns_total >= a->counters.stall_late_ns_total
                             ? static_cast<double>(b.counters.stall_late_ns_total -
                                                   a->counters.stall_late_ns_total) /
                                   1e9
                             : 0,
        .queues = QueueWindows(*a, b, span)});
  }
}

}  // namespace nictune::model::internal
