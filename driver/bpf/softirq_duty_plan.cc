#include "driver/bpf/softirq_duty_plan.h"

#include <algorithm>

namespace nictune::driver::bpf {

SoftirqDutyPlan PlanSoftirqDuty(std::optional<double> busiest_per_s, double phase,
                                const SoftirqDutyOptions& options) {
  const SoftirqDutyPlan whole;
  if (!busiest_per_s || !(*busiest_per_s > 0) || !(options.timed_per_s > 0)) return whole;
  const double share = options.timed_per_s / *busiest_per_s;
  if (share >= options.whole_share) return whole;
  const absl::Duration length =
      absl::Trunc(std::max(options.min_slot, options.period * share), absl::Microseconds(1));
  const absl::Duration free = options.period - length - options.exit_tail;
  if (free < absl::ZeroDuration()) return whole;
  return SoftirqDutyPlan{
      .whole = false,
      .slot_start = absl::Trunc(free * std::clamp(phase, 0.0, 1.0), absl::Microseconds(1)),
      .slot_length = length,
      .share = absl::FDivDuration(length, options.period)};
}

}  // namespace nictune::driver::bpf
