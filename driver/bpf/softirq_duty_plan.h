// When the softirq timing programs (softirq_entry/exit) run. On a veth or NIC flood nearly every
// packet is its own softirq, and the kernel's dispatch to any program on those two tracepoints
// costs about as much as the programs do, so timing is duty-cycled: the pair stays attached
// whole while the busiest CPU runs few softirqs, and otherwise runs for one slot per period, long
// enough that the busiest CPU times about `timed_per_s` softirqs a second, at a random phase in
// each period so that the slots do not lock onto periodic load. Counts then come from
// /proc/softirqs and times are scaled from the slots (agent/model/softirq_time.h).
// Pure: the caller measures the rate and draws the phase (driver/bpf/softirq_duty_cycle.h).
#pragma once

#include <optional>

#include "absl/time/time.h"

namespace nictune::driver::bpf {

struct SoftirqDutyOptions {
  // Timed softirqs a second the slots aim at on the busiest CPU; 0 keeps the pair attached whole.
  double timed_per_s = 10000;
  // One slot per period; the rate is measured again at every period.
  absl::Duration period = absl::Milliseconds(200);
  // While attached whole the rate is measured this often (a map read of some microseconds), so
  // that a flood is duty-cycled soon after it starts.
  absl::Duration whole_recheck = absl::Milliseconds(50);
  // A slot would cover at least this share of the period: the pair stays attached whole instead,
  // since detaching would save at most as much again as it already costs.
  double whole_share = 0.5;
  // Shorter slots time more softirqs than asked rather than spend an attach on a handful.
  absl::Duration min_slot = absl::Milliseconds(1);
  // softirq_exit stays attached this long after softirq_entry goes, so that a softirq which
  // started in the slot is timed to its end when it is shorter than this: without it a long
  // softirq would be less likely to fit a slot than a short one, and times would read low.
  absl::Duration exit_tail = absl::Milliseconds(1);
};

struct SoftirqDutyPlan {
  bool whole = true;           // attached for the whole period
  absl::Duration slot_start;   // from the period's start; softirq_exit, then softirq_entry
  absl::Duration slot_length;  // softirq_entry attached this long, softirq_exit exit_tail more
  double share = 1;            // slot_length / period; 1 when whole
};

// The plan for the next period. `busiest_per_s`: the softirq rate of the busiest CPU while the
// pair was attached in the last period; nullopt when nothing was measured yet (attached whole,
// so that the next period measures). `phase`: a uniform draw in [0, 1) that places the slot.
SoftirqDutyPlan PlanSoftirqDuty(std::optional<double> busiest_per_s, double phase,
                                const SoftirqDutyOptions& options);

}  // namespace nictune::driver::bpf
