// SPDX-License-Identifier: Apache-2.0
// How the BPF probes share one CPU budget (the probe budget, driver/bpf/README.md): every hook
// (a concern's programs that attach together) whose cost fits stays attached whole, and the
// costliest ones run in slots, as long as the budget allows after the whole ones and after the
// link operations the slots themselves cost. A period holds as many short slots as the link
// operations allow, spread over it, so that a load that changes within the period is seen in
// each of its phases. Pure: the caller measures each hook's event rate and cost, and draws the
// slots' phase (probe_duty_cycle.h runs it).
//
// A slot either attaches and detaches a hook's handlers, or, for a hook whose programs check a
// gate, opens and closes the gate while the handlers stay attached (gated): then every event
// costs its dispatch and the check outside the slots, and the slots cost no link operations. Each
// sampled hook takes whichever costs less at its rate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "driver/probe_budget_default.h"

namespace nictune::driver::bpf {

struct HookLoad {
  std::string name;            // "softirq", "napi", "irq", "drops", ...
  bool wanted = true;          // false: kept detached (a per-packet probe switched off)
  bool never_slotted = false;  // attached whole whatever it costs
  // Events a second while attached (the hook's own counter); nullopt while unmeasured, and then
  // the hook is attached whole, so that the next period measures it.
  std::optional<double> events_per_s;
  double cost_ns_per_event = 0;  // every program run an event makes, dispatch and body
  int link_operations = 2;       // attaches and detaches one slot takes, over its handlers
  // CPU time of one of them as measured on this host; 0 until measured: the option's figure.
  double link_operation_ns = 0;
  // Hooks that must be attached whenever this one is (the tx share reads the softirq programs'
  // NET_RX flag and gives its counts to napi_poll).
  std::vector<std::string> needs;
  // What an event costs while the hook's gate is closed (its programs' dispatch and the check);
  // 0: its programs have no gate.
  double gate_ns_per_event = 0;
};

struct BudgetOptions {
  // The share of one CPU every program together may use; nullopt: no limit, everything whole.
  std::optional<double> cpu_share = kDefaultProbeBudget;
  absl::Duration period = absl::Seconds(1);
  // A shorter slot sees too few events to be worth its link operations.
  absl::Duration min_slot = absl::Milliseconds(1);
  // Slots a period at most, and the share of the budget left after the whole hooks that their
  // link operations may take: each slot more spreads the sample wider and costs its links.
  int max_slots_per_period = 10;
  double max_link_share = 0.5;
  // Handlers that end an event (softirq_exit, irq_handler_exit) stay attached this long after the
  // slot, so that an event which began in it is seen to its end.
  absl::Duration exit_tail = absl::Milliseconds(1);
  // A slot's hooks with gates open this long after its link operations: the text they patch on
  // every CPU holds the traffic up, and the backlog it leaves would land in what is measured.
  // Hooks without gates measure from their attach, as their events count from then.
  absl::Duration link_settle = absl::Milliseconds(1);
  // CPU time of one link attach or detach until a hook's own are measured (HookLoad): the slots'
  // link operations come out of the budget. Measured here at 200 us each, to the thread that
  // makes them (tests/bpf/probe_budget_test.cc prints them).
  double link_operation_ns = 200'000;
};

// kSlotted: attached for the slots only; kGated: attached throughout, its gate open for the slots.
enum class HookMode { kDetached, kWhole, kSlotted, kGated };

struct HookPlan {
  std::string name;
  HookMode mode = HookMode::kWhole;
  double cost_ns_per_s = 0;  // what the plan expects it to cost, its link operations included
};

// Measures in slots, by its links or its gate.
inline bool Sampled(HookMode mode) {
  return mode == HookMode::kSlotted || mode == HookMode::kGated;
}

// Slotted hooks that need each other share a slot; the others each have one of their own, apart
// in time, so that a hook's slot does not carry another's programs (a softirq timed while
// napi_poll's program runs inside it reads longer by that program).
struct SlotGroup {
  std::vector<size_t> hooks;  // indices into the loads, in their order
  absl::Duration start;       // from the period's start
};

struct ProbeBudgetPlan {
  std::vector<HookPlan> hooks;   // in the order of the loads
  std::vector<SlotGroup> slots;  // in time order, none overlapping; each group slots_per_period
                                 // (of the slotted and the gated hooks)
  int slots_per_period = 0;      // of each group; 0 when nothing is slotted
  absl::Duration
      slot_length;  // each slot's event handlers attached this long, exits exit_tail more
  // Periods each slot spans: above 1 when even one shortest slot a period would cost more than
  // the budget (link operations dear on this host, a tiny budget), so the slots run only in one
  // period of so many and the others leave the slotted hooks detached.
  int periods_per_slot = 1;
  // slots_per_period * slot_length / (period * periods_per_slot); 1 when nothing is slotted.
  double share = 1;
  double planned_ns_per_s = 0;  // the plan's cost in CPU ns a second, averaged over its periods
  // Even the shortest slots, once in kMaxPeriodsPerSlot periods, cost more than the budget allows.
  bool over_budget = false;
};

// The longest a slotted hook goes unsampled: a slot at least every this many periods.
inline constexpr int kMaxPeriodsPerSlot = 30;

// `phase`: a uniform draw in [0, 1) that places the first slot in its part of the period, so that
// slots do not lock onto periodic load; the later ones follow at golden-ratio steps of it.
ProbeBudgetPlan PlanProbeBudget(const std::vector<HookLoad>& loads, double phase,
                                const BudgetOptions& options);

}  // namespace nictune::driver::bpf
