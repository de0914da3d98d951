// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/arrival_schedule.h"

#include <cmath>
#include <utility>

namespace nictune::driver::emulated {

ArrivalSchedule::ArrivalSchedule(std::vector<FlowSpec> flows, int64_t start_ns)
    : flows_(std::move(flows)), cursors_(flows_.size(), Cursor{.epoch_start_ns = start_ns}) {}

int64_t ArrivalSchedule::NextTime(size_t flow) const {
  const FlowSpec& spec = flows_[flow];
  if (!(spec.rate_pps > 0)) return kNever;
  const Cursor& cursor = cursors_[flow];
  const double on_time_ns = static_cast<double>(cursor.index_in_epoch) * 1e9 / spec.rate_pps;
  double wall_offset_ns = on_time_ns;
  if (spec.off_ns > 0) {
    const double on_ns = static_cast<double>(spec.on_ns);
    const double periods = std::floor(on_time_ns / on_ns);
    wall_offset_ns =
        periods * static_cast<double>(spec.on_ns + spec.off_ns) + (on_time_ns - periods * on_ns);
  }
  if (wall_offset_ns >= 9e18) return kNever;
  return cursor.epoch_start_ns + static_cast<int64_t>(wall_offset_ns);
}

Arrival ArrivalSchedule::Peek() const {
  Arrival earliest;
  for (size_t flow = 0; flow < flows_.size(); ++flow) {
    const int64_t time_ns = NextTime(flow);
    if (time_ns < earliest.time_ns) {
      earliest = Arrival{.time_ns = time_ns, .flow = flow, .sequence = cursors_[flow].sequence};
    }
  }
  return earliest;
}

void ArrivalSchedule::Pop() {
  const Arrival next = Peek();
  if (next.time_ns == kNever) return;
  ++cursors_[next.flow].index_in_epoch;
  ++cursors_[next.flow].sequence;
}

void ArrivalSchedule::SetRate(size_t flow, double rate_pps, int64_t now_ns) {
  flows_[flow].rate_pps = rate_pps;
  cursors_[flow].epoch_start_ns = now_ns;
  cursors_[flow].index_in_epoch = 0;
}

}  // namespace nictune::driver::emulated
