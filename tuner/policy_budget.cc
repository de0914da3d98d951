// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_budget.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/cpu_pressure.h"
#include "tuner/limits.h"
#include "tuner/policy_threaded.h"

namespace nictune::tuner {
namespace {

Recommendation Base(Knob knob, int64_t current, const CpuPressure& p,
                    const Confidence& confidence) {
  Recommendation r = Unchanged(knob, Scope::kHost, "host", current, confidence);
  r.inputs = {{"softirq_share", p.cpu.softirq, "fraction"},
              {"user_share", p.cpu.user, "fraction"},
              {"idle_share", p.cpu.idle, "fraction"},
              {"hardirq_share", p.cpu.hardirq, "fraction"},
              {"time_squeeze", p.time_squeeze_per_s, "1/s"}};
  return r;
}

// current * factor, rounded away from current, within range, never past current the wrong way.
int64_t Scale(int64_t current, double factor, Knob knob) {
  const KnobRange range = TunerRange(knob);
  // The epsilon keeps representation error (0.7 / 0.8 = 0.87499...) from costing a whole unit.
  constexpr double kEpsilon = 1e-9;
  const double scaled = static_cast<double>(current) * factor;
  const double bounded =
      std::clamp(factor >= 1 ? std::ceil(scaled - kEpsilon) : std::floor(scaled + kEpsilon),
                 static_cast<double>(range.min), static_cast<double>(range.max));
  const int64_t value = static_cast<int64_t>(bounded);
  return factor >= 1 ? std::max(current, value) : std::min(current, value);
}

}  // namespace

std::vector<Recommendation> RecommendBudget(const Observation& obs, const PolicyConfig& config) {
  const CpuPressure p = AssessCpuPressure(obs, config);
  // The packets of the queue whose CPUs are judged, so the reason and the count name one queue.
  const Confidence confidence = ConfidenceFrom(obs, p.rx_packets, config);
  const HostKnobs& h = obs.host;
  Recommendation budget = Base(Knob::kNetdevBudget, h.netdev_budget, p, confidence);
  Recommendation usecs = Base(Knob::kNetdevBudgetUsecs, h.netdev_budget_usecs, p, confidence);

  if (const std::optional<std::string> threads = DeviceToThread(obs, p, config)) {
    budget.formula = usecs.formula = ThreadsFirstFormula(p, *threads);
    budget.expected_effect = usecs.expected_effect = "no change";
  } else if (p.starving) {
    const double target = std::max(0.0, 1 - config.user_fair_share - p.cpu.hardirq);
    const double factor = std::clamp(target / std::max(p.cpu.softirq, 1e-9), 0.5, 1.0);
    budget.recommended = Scale(h.netdev_budget, factor, Knob::kNetdevBudget);
    usecs.recommended = Scale(h.netdev_budget_usecs, factor, Knob::kNetdevBudgetUsecs);
    const std::string why = absl::StrFormat(
        "%s; softirq >= cap %.2f and user < fair share %.2f with no idle: f = max(1/2, (1 - %.2f "
        "- %.2f) / %.2f) = %.3f",
        p.summary, config.softirq_cap, config.user_fair_share, config.user_fair_share,
        p.cpu.hardirq, p.cpu.softirq, factor);
    budget.formula = absl::StrFormat("%s -> netdev_budget %d * f = %d", why, h.netdev_budget,
                                     budget.recommended);
    usecs.formula = absl::StrFormat("%s -> netdev_budget_usecs %d * f = %d", why,
                                    h.netdev_budget_usecs, usecs.recommended);
    budget.expected_effect = usecs.expected_effect =
        "softirq hands work to ksoftirqd sooner, which the scheduler shares with user space";
    budget.expected_gain = usecs.expected_gain =
        std::clamp((config.user_fair_share - p.cpu.user) / config.user_fair_share, 0.0, 1.0);
  } else if (p.time_squeeze_per_s >= config.min_time_squeeze_per_s && p.room) {
    const double factor =
        p.cpu.softirq > 0 ? std::clamp(config.softirq_cap / p.cpu.softirq, 1.0, 2.0) : 2.0;
    budget.recommended = Scale(h.netdev_budget, factor, Knob::kNetdevBudget);
    // The time limit must not cut a run before the packet budget is spent.
    const double packet_s = p.rx_rate_pps > 0 ? p.cpu.softirq / p.rx_rate_pps : 0;
    const double needed_us = 1.25 * static_cast<double>(budget.recommended) * packet_s * 1e6;
    const int64_t scaled_usecs = Scale(h.netdev_budget_usecs, factor, Knob::kNetdevBudgetUsecs);
    const KnobRange usecs_range = TunerRange(Knob::kNetdevBudgetUsecs);
    usecs.recommended =
        std::max(scaled_usecs,
                 std::min(usecs_range.max, static_cast<int64_t>(std::ceil(std::min(
                                               needed_us, static_cast<double>(usecs_range.max))))));
    const std::string why = absl::StrFormat(
        "%s; time_squeeze >= %.2f/s with softirq below cap %.2f: f = min(2, %.2f / %.2f) = %.3f",
        p.summary, config.min_time_squeeze_per_s, config.softirq_cap, config.softirq_cap,
        p.cpu.softirq, factor);
    budget.formula = absl::StrFormat("%s -> netdev_budget %d * f = %d", why, h.netdev_budget,
                                     budget.recommended);
    usecs.formula = absl::StrFormat(
        "%s -> netdev_budget_usecs max(%d * f = %d, 1.25 * %d packets * %.3f us/packet = %.0f) = "
        "%d",
        why, h.netdev_budget_usecs, scaled_usecs, budget.recommended, packet_s * 1e6, needed_us,
        usecs.recommended);
    budget.expected_effect = usecs.expected_effect =
        "fewer softirq runs cut short (time_squeeze), less work deferred to ksoftirqd";
    budget.expected_gain = usecs.expected_gain = std::clamp(1 - 1 / factor, 0.0, 1.0);
  } else {
    const std::string why = absl::StrFormat(
        "%s; no starvation (softirq < %.2f or user >= %.2f or idle left) and time_squeeze "
        "below %.2f/s or no softirq room -> keep",
        p.summary, config.softirq_cap, config.user_fair_share, config.min_time_squeeze_per_s);
    budget.formula = usecs.formula = why;
    budget.expected_effect = usecs.expected_effect = "no change";
  }
  return {std::move(budget), std::move(usecs)};
}

}  // namespace nictune::tuner
