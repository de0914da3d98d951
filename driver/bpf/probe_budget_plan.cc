// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/probe_budget_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace nictune::driver::bpf {
namespace {

double WholeCost(const HookLoad& hook) {
  return hook.events_per_s ? *hook.events_per_s * hook.cost_ns_per_event : 0;
}

double LinkCost(const HookLoad& hook, const BudgetOptions& options) {
  const double each =
      hook.link_operation_ns > 0 ? hook.link_operation_ns : options.link_operation_ns;
  return hook.link_operations * each / absl::ToDoubleSeconds(options.period);
}

// What the hook's closed gate costs a second, slot or not; without a gate, or with one that
// costs an event as much as its whole program, more than anything.
double GateCost(const HookLoad& hook) {
  if (!(hook.gate_ns_per_event > 0) || hook.gate_ns_per_event >= hook.cost_ns_per_event) {
    return std::numeric_limits<double>::infinity();
  }
  return hook.events_per_s.value_or(0) * hook.gate_ns_per_event;
}

// Sampled by its gate: it costs less than one slot's link operations a period.
bool Gated(const HookLoad& hook, const BudgetOptions& options) {
  return GateCost(hook) < LinkCost(hook, options);
}

// Worth a slot: measured, allowed, and dearer whole than what sampling it costs beside its
// events (its gate, or its slot's link operations).
bool Slottable(const HookLoad& hook, const BudgetOptions& options) {
  return hook.wanted && hook.events_per_s && !hook.never_slotted &&
         WholeCost(hook) > std::min(GateCost(hook), LinkCost(hook, options));
}

// A hook that needs a slotted one runs only when that one does: it is slotted too.
void AddWhatNeedsTheSlotted(const std::vector<HookLoad>& loads, std::vector<bool>& slotted) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < loads.size(); ++i) {
      if (!loads[i].wanted || slotted[i] || loads[i].never_slotted) continue;
      for (const std::string& need : loads[i].needs) {
        const auto it = std::find_if(loads.begin(), loads.end(),
                                     [&](const HookLoad& h) { return h.name == need; });
        if (it != loads.end() && slotted[static_cast<size_t>(it - loads.begin())]) {
          slotted[i] = true;
          changed = true;
          break;
        }
      }
    }
  }
}

// What a plan pays whatever its slots' length: the whole hooks, the sampled hooks' gates, and the
// link operations of one slot of every hook sampled by its links.
struct FixedCosts {
  double whole = 0;
  double gates = 0;
  double links = 0;  // a slot's
};

FixedCosts Fixed(const std::vector<HookLoad>& loads, const std::vector<bool>& slotted,
                 const BudgetOptions& options) {
  FixedCosts fixed;
  for (size_t i = 0; i < loads.size(); ++i) {
    if (!loads[i].wanted) continue;
    if (!slotted[i]) {
      fixed.whole += WholeCost(loads[i]);
    } else if (Gated(loads[i], options)) {
      fixed.gates += GateCost(loads[i]);
    } else {
      fixed.links += LinkCost(loads[i], options);
    }
  }
  return fixed;
}

// The share of the period the slotted hooks can have once the whole ones, the gates and the link
// operations of `slots` slots a period are paid for.
double ShareLeft(const std::vector<HookLoad>& loads, const std::vector<bool>& slotted,
                 double budget_ns, const BudgetOptions& options, int slots = 1) {
  double slotted_cost = 0;
  for (size_t i = 0; i < loads.size(); ++i) {
    if (loads[i].wanted && slotted[i]) slotted_cost += WholeCost(loads[i]);
  }
  if (!(slotted_cost > 0)) return 0;
  const FixedCosts fixed = Fixed(loads, slotted, options);
  return (budget_ns - fixed.whole - fixed.gates - slots * fixed.links) / slotted_cost;
}

// Slots a period: more while their link operations stay within max_link_share of the budget the
// whole hooks leave, each slot stays min_slot long, and each group's slot and tail fit its part.
int ChooseSlotsPerPeriod(const std::vector<HookLoad>& loads, const std::vector<bool>& slotted,
                         size_t groups, double budget_ns, const BudgetOptions& options) {
  const FixedCosts fixed = Fixed(loads, slotted, options);
  int chosen = 1;
  for (int k = 2; k <= options.max_slots_per_period; ++k) {
    if (k * fixed.links > options.max_link_share * (budget_ns - fixed.whole - fixed.gates)) break;
    const double share = std::min(ShareLeft(loads, slotted, budget_ns, options, k), 1.0);
    const absl::Duration slot = options.period * (share / k);
    const absl::Duration part = options.period / (k * static_cast<int64_t>(groups));
    if (slot < options.min_slot || part < slot + options.exit_tail) break;
    chosen = k;
  }
  return chosen;
}

// The slotted set: the fewest of the costliest hooks whose slots fit the budget.
std::vector<bool> ChooseSlotted(const std::vector<HookLoad>& loads, double budget_ns,
                                const BudgetOptions& options, double& share, bool& over) {
  std::vector<size_t> order;
  for (size_t i = 0; i < loads.size(); ++i) {
    if (Slottable(loads[i], options)) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return WholeCost(loads[a]) > WholeCost(loads[b]); });
  const double min_share = absl::FDivDuration(options.min_slot, options.period);
  std::vector<bool> slotted(loads.size(), false);
  for (size_t k = 0; k < order.size(); ++k) {
    slotted[order[k]] = true;
    std::vector<bool> closed = slotted;
    AddWhatNeedsTheSlotted(loads, closed);
    share = ShareLeft(loads, closed, budget_ns, options);
    if (share >= min_share) {
      share = std::min(share, 1.0);
      return closed;
    }
  }
  AddWhatNeedsTheSlotted(loads, slotted);
  share = min_share;
  over = true;
  return slotted;
}

size_t IndexOf(const std::vector<HookLoad>& loads, const std::string& name) {
  const auto it =
      std::find_if(loads.begin(), loads.end(), [&](const HookLoad& h) { return h.name == name; });
  return static_cast<size_t>(it - loads.begin());
}

// The slotted hooks grouped by what they need: a hook and those it needs are in one group.
std::vector<SlotGroup> GroupSlotted(const std::vector<HookLoad>& loads,
                                    const std::vector<bool>& slotted) {
  std::vector<size_t> group(loads.size());
  for (size_t i = 0; i < loads.size(); ++i) group[i] = i;
  const auto root = [&group](size_t i) {
    while (group[i] != i) i = group[i];
    return i;
  };
  for (size_t i = 0; i < loads.size(); ++i) {
    if (!slotted[i]) continue;
    for (const std::string& need : loads[i].needs) {
      const size_t j = IndexOf(loads, need);
      if (j < loads.size() && slotted[j]) group[root(i)] = root(j);
    }
  }
  std::vector<SlotGroup> groups;
  std::vector<size_t> group_of_root(loads.size(), loads.size());
  for (size_t i = 0; i < loads.size(); ++i) {
    if (!slotted[i]) continue;
    size_t& g = group_of_root[root(i)];
    if (g == loads.size()) {
      g = groups.size();
      groups.emplace_back();
    }
    groups[g].hooks.push_back(i);
  }
  return groups;
}

// The fractional part of the golden ratio: phases at its steps spread evenly over [0, 1) for any
// count of slots, without a period of their own.
constexpr double kGoldenStep = 0.6180339887498949;

// Each of the slots_per_period cycles splits into a part for each group, its slot at that cycle's
// phase within it; one part for all the groups when the parts are too short for a slot and its
// tail.
void PlaceSlots(double phase, const BudgetOptions& options, ProbeBudgetPlan& plan) {
  std::vector<SlotGroup> groups = std::move(plan.slots);
  const absl::Duration cycle = options.period / plan.slots_per_period;
  absl::Duration part = cycle / static_cast<int64_t>(groups.size());
  if (part < plan.slot_length + options.exit_tail) {
    SlotGroup all;
    for (const SlotGroup& group : groups) {
      all.hooks.insert(all.hooks.end(), group.hooks.begin(), group.hooks.end());
    }
    std::sort(all.hooks.begin(), all.hooks.end());
    groups = {all};
    part = cycle;
  }
  const absl::Duration free = part - plan.slot_length - options.exit_tail;
  plan.slots.clear();
  for (int c = 0; c < plan.slots_per_period; ++c) {
    double cycle_phase = std::clamp(phase, 0.0, 1.0) + c * kGoldenStep;
    cycle_phase -= std::floor(cycle_phase);
    const absl::Duration offset = absl::Trunc(free * cycle_phase, absl::Microseconds(1));
    for (size_t g = 0; g < groups.size(); ++g) {
      plan.slots.push_back(
          {.hooks = groups[g].hooks, .start = cycle * c + part * static_cast<int64_t>(g) + offset});
    }
  }
}

// One shortest slot a period costs more than the budget: the slot runs in one period of as many
// as the budget needs (at most kMaxPeriodsPerSlot), so that the cost averaged over them fits. A
// gated hook's gate costs what it does in every period.
void SpreadOverPeriods(const std::vector<HookLoad>& loads, double budget_ns,
                       ProbeBudgetPlan& plan) {
  double fixed = 0;
  double spread = 0;
  for (size_t i = 0; i < plan.hooks.size(); ++i) {
    const HookPlan& hook = plan.hooks[i];
    const double gate = hook.mode == HookMode::kGated ? GateCost(loads[i]) : 0;
    (Sampled(hook.mode) ? spread : fixed) += hook.cost_ns_per_s - gate;
    fixed += gate;
  }
  const double room = budget_ns - fixed;
  const int periods = room > 0 ? static_cast<int>(std::ceil(spread / room)) : kMaxPeriodsPerSlot;
  plan.periods_per_slot = std::clamp(periods, 1, kMaxPeriodsPerSlot);
  for (size_t i = 0; i < plan.hooks.size(); ++i) {
    HookPlan& hook = plan.hooks[i];
    if (!Sampled(hook.mode)) continue;
    const double gate = hook.mode == HookMode::kGated ? GateCost(loads[i]) : 0;
    hook.cost_ns_per_s = gate + (hook.cost_ns_per_s - gate) / plan.periods_per_slot;
  }
  plan.share /= plan.periods_per_slot;
  plan.planned_ns_per_s = fixed + spread / plan.periods_per_slot;
  plan.over_budget = plan.planned_ns_per_s > budget_ns * (1 + 1e-9);
}

ProbeBudgetPlan PlanLoads(const std::vector<HookLoad>& loads, double phase,
                          const BudgetOptions& options) {
  ProbeBudgetPlan plan;
  for (const HookLoad& load : loads) {
    plan.hooks.push_back({.name = load.name,
                          .mode = load.wanted ? HookMode::kWhole : HookMode::kDetached,
                          .cost_ns_per_s = load.wanted ? WholeCost(load) : 0});
  }
  const auto add_costs = [&plan] {
    plan.planned_ns_per_s =
        std::accumulate(plan.hooks.begin(), plan.hooks.end(), 0.0,
                        [](double sum, const HookPlan& hook) { return sum + hook.cost_ns_per_s; });
  };
  add_costs();
  if (!options.cpu_share || plan.planned_ns_per_s <= *options.cpu_share * 1e9) return plan;

  const std::vector<bool> slotted =
      ChooseSlotted(loads, *options.cpu_share * 1e9, options, plan.share, plan.over_budget);
  if (std::none_of(slotted.begin(), slotted.end(), [](bool s) { return s; })) {
    plan.share = 1;  // nothing worth a slot: over the budget whole
    return plan;
  }
  plan.slots = GroupSlotted(loads, slotted);
  plan.slots_per_period = plan.over_budget
                              ? 1
                              : ChooseSlotsPerPeriod(loads, slotted, plan.slots.size(),
                                                     *options.cpu_share * 1e9, options);
  if (plan.slots_per_period > 1) {
    plan.share = std::min(
        ShareLeft(loads, slotted, *options.cpu_share * 1e9, options, plan.slots_per_period), 1.0);
  }
  const absl::Duration longest = options.period - options.exit_tail;
  plan.slot_length = std::min(
      longest,
      std::max(options.min_slot, absl::Trunc(options.period * (plan.share / plan.slots_per_period),
                                             absl::Microseconds(1))));
  plan.share = absl::FDivDuration(plan.slot_length * plan.slots_per_period, options.period);
  PlaceSlots(phase, options, plan);
  for (size_t i = 0; i < loads.size(); ++i) {
    if (!slotted[i]) continue;
    const bool gated = Gated(loads[i], options);
    plan.hooks[i].mode = gated ? HookMode::kGated : HookMode::kSlotted;
    plan.hooks[i].cost_ns_per_s =
        WholeCost(loads[i]) * plan.share +
        (gated ? GateCost(loads[i]) : plan.slots_per_period * LinkCost(loads[i], options));
  }
  add_costs();
  if (plan.over_budget) SpreadOverPeriods(loads, *options.cpu_share * 1e9, plan);
  return plan;
}

// Some hook is sampled by its gate.
bool AnyGated(const ProbeBudgetPlan& plan) {
  return std::any_of(plan.hooks.begin(), plan.hooks.end(),
                     [](const HookPlan& h) { return h.mode == HookMode::kGated; });
}

}  // namespace

ProbeBudgetPlan PlanProbeBudget(const std::vector<HookLoad>& loads, double phase,
                                const BudgetOptions& options) {
  ProbeBudgetPlan plan = PlanLoads(loads, phase, options);
  // A gate costs its events in every period, while links spread over the periods of a slot: a
  // plan that needs more than one may fit by links alone where the gates cannot.
  if (!AnyGated(plan) || plan.periods_per_slot == 1) return plan;
  std::vector<HookLoad> links_only = loads;
  for (HookLoad& load : links_only) load.gate_ns_per_event = 0;
  ProbeBudgetPlan by_links = PlanLoads(links_only, phase, options);
  const bool better = by_links.over_budget != plan.over_budget
                          ? !by_links.over_budget
                          : by_links.planned_ns_per_s < plan.planned_ns_per_s;
  return better ? by_links : plan;
}

}  // namespace nictune::driver::bpf
