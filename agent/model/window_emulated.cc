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
            b.counters.stalls >= a->counters.stalls ? b.counters.stalls - a->counters.stalls : 0});
  }
}

}  // namespace nictune::model::internal
