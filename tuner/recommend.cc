// SPDX-License-Identifier: Apache-2.0
#include "tuner/recommend.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/device_wide.h"
#include "tuner/interval_plan.h"
#include "tuner/limits.h"
#include "tuner/observation_check.h"
#include "tuner/policy_budget.h"
#include "tuner/policy_coalesce.h"
#include "tuner/policy_defer.h"
#include "tuner/policy_ring.h"
#include "tuner/policy_rmem.h"
#include "tuner/policy_threaded.h"
#include "tuner/policy_weight.h"
#include "tuner/queue_target.h"
#include "tuner/range_check.h"
#include "tuner/stalled_reader.h"

namespace nictune::tuner {
namespace {

absl::Status CheckConfig(const PolicyConfig& c) {
  return CheckRanges(
      "tuner config",
      {
          {"margin", c.margin, 0, 0.9},
          {"dropped_backoff", c.dropped_backoff, 0.01, 0.9},
          {"interrupt_cpu_share", c.interrupt_cpu_share, 1e-6, 1},
          {"user_fair_share", c.user_fair_share, 1e-6, 1},
          {"softirq_cap", c.softirq_cap, 1e-6, 1},
          {"min_time_squeeze_per_s", c.min_time_squeeze_per_s, 0, 1e9},
          {"defer_false_rearm_probability", c.defer_false_rearm_probability, 1e-9, 0.5},
          {"ring_min_cpu_saving", c.ring_min_cpu_saving, 0, 1},
          {"threaded_min_idle_cpus", c.threaded_min_idle_cpus, 0, kMaxCpus},
      });
}

// A stalled reader's drops are no setting's doing: each of the queue's recommendations says so,
// and a person has to act on it.
void NoteStalledReaders(const std::string& stalled, Recommendation& r) {
  absl::StrAppend(&r.formula, "; set aside: ", stalled);
  r.unresolved = r.unresolved.empty() ? stalled : absl::StrCat(r.unresolved, "; ", stalled);
}

// Each device's ring holds the interval its strictest queue's sockets allow (the ring not
// counted): the device runs at that one. Of its queues' rings, the largest need wins.
absl::StatusOr<std::vector<Recommendation>> RecommendRings(const Observation& obs,
                                                           const std::vector<QueuePlan>& plans,
                                                           const PolicyConfig& config) {
  std::map<std::string, std::optional<int64_t>> device_interval_us;
  for (const QueuePlan& p : plans) {
    // A queue whose ring size is unknown (a veth, a TAP) gets no ring advice: no second plan.
    if (p.queue->coalesce.rx_ring_size == 0) continue;
    absl::StatusOr<std::optional<int64_t>> free =
        IntervalWithoutTheRing(*p.queue, obs.window, config);
    if (!free.ok()) return free.status();
    std::optional<int64_t>& device = device_interval_us[p.queue->device];
    if (*free && (!device || **free < *device)) device = *free;
  }
  std::vector<Recommendation> rings;
  for (const QueuePlan& p : plans) {
    for (Recommendation& r :
         RecommendRing(obs, *p.queue, p.plan, device_interval_us[p.queue->device], config)) {
      rings.push_back(std::move(r));
    }
  }
  return LargestRingPerDevice(std::move(rings));
}

Recommendation* Find(std::vector<Recommendation>& recs, Knob knob) {
  for (Recommendation& r : recs) {
    if (r.knob == knob) return &r;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::vector<Recommendation>> Recommend(const Observation& obs,
                                                      const PolicyConfig& config) {
  if (absl::Status s = CheckConfig(config); !s.ok()) return s;
  if (absl::Status s = CheckObservation(obs); !s.ok()) return s;

  std::vector<Recommendation> out;
  std::vector<QueuePlan> plans;
  plans.reserve(obs.queues.size());
  std::vector<QueueRecommendations> per_queue;
  // Each queue as planned: its stalled readers' drops set aside. The plans point into it.
  std::vector<QueueObservation> planned(obs.queues);
  for (QueueObservation& q : planned) {
    const std::string stalled = StalledReadersText(SetAsideStalledReaders(q, obs.window));
    absl::StatusOr<IntervalPlan> plan = PlanQueueInterval(q, obs.window, config);
    if (!plan.ok()) {
      return absl::Status(plan.status().code(),
                          absl::StrCat("queue ", QueueTarget(q), ": ", plan.status().message()));
    }
    QueueRecommendations& device_wide = per_queue.emplace_back(
        QueueRecommendations{.device = q.device, .queue = QueueTarget(q), .recommendations = {}});
    for (Recommendation& r : RecommendCoalesce(obs, q, *plan, config)) {
      device_wide.recommendations.push_back(std::move(r));
    }
    for (Recommendation& r : RecommendDefer(obs, q, *plan, config)) {
      device_wide.recommendations.push_back(std::move(r));
    }
    if (!stalled.empty()) {
      for (Recommendation& r : device_wide.recommendations) NoteStalledReaders(stalled, r);
    }
    plans.push_back({&q, *std::move(plan)});
  }
  for (Recommendation& r : StrictestQueuePerDevice(std::move(per_queue))) {
    out.push_back(std::move(r));
  }
  absl::StatusOr<std::vector<Recommendation>> rings = RecommendRings(obs, plans, config);
  if (!rings.ok()) return rings.status();
  for (Recommendation& r : *rings) out.push_back(std::move(r));
  for (Recommendation& r : RecommendRmem(obs, plans, config)) out.push_back(std::move(r));
  for (Recommendation& r : RecommendBudget(obs, config)) out.push_back(std::move(r));
  for (Recommendation& r : RecommendWeight(obs, config)) out.push_back(std::move(r));
  for (Recommendation& r : RecommendThreaded(obs, config)) out.push_back(std::move(r));

  // rmem_default <= rmem_max: a default above the maximum would be silently capped by nothing and
  // confuse every reader; raise the maximum with it.
  Recommendation* rmem_default = Find(out, Knob::kRmemDefault);
  Recommendation* rmem_max = Find(out, Knob::kRmemMax);
  if (rmem_default != nullptr && rmem_max != nullptr &&
      rmem_max->recommended < rmem_default->recommended) {
    const int64_t cap = TunerRange(Knob::kRmemMax).max;
    if (rmem_default->recommended <= cap || rmem_max->current >= rmem_default->recommended) {
      rmem_max->recommended = std::max(rmem_max->current, rmem_default->recommended);
      absl::StrAppend(&rmem_max->formula, "; raised to rmem_default ", rmem_default->recommended,
                      " to keep rmem_default <= rmem_max");
    } else {
      // A default above our cap was set by someone else; we do not follow it with rmem_max past
      // the cap, we bring the default down to the maximum we can give.
      rmem_max->recommended = std::max(rmem_max->current, cap);
      rmem_default->recommended = rmem_max->recommended;
      const std::string why =
          absl::StrCat("; rmem_default ", rmem_default->current, " exceeds the cap ", cap,
                       " -> rmem_default and rmem_max ", rmem_max->recommended,
                       " to keep rmem_default <= rmem_max");
      absl::StrAppend(&rmem_max->formula, why);
      absl::StrAppend(&rmem_default->formula, why);
    }
  }
  // netdev_budget and netdev_budget_usecs are one limit in two units: never apart.
  Recommendation* budget = Find(out, Knob::kNetdevBudget);
  Recommendation* usecs = Find(out, Knob::kNetdevBudgetUsecs);
  if (budget != nullptr && usecs != nullptr) {
    const int64_t db = budget->recommended - budget->current;
    const int64_t du = usecs->recommended - usecs->current;
    if ((db > 0 && du < 0) || (db < 0 && du > 0)) {
      return absl::InternalError(absl::StrFormat(
          "tuner: netdev_budget %d -> %d and netdev_budget_usecs %d -> %d move apart",
          budget->current, budget->recommended, usecs->current, usecs->recommended));
    }
  }
  for (const Recommendation& r : out) {
    const bool kept = r.recommended == r.current;
    if (!InRange(r.recommended, KernelRange(r.knob)) ||
        (!kept && !InRange(r.recommended, TunerRange(r.knob)))) {
      return absl::InternalError(
          absl::StrFormat("tuner: %s for %s: recommended %d is outside its range (current %d)",
                          r.knob_name, r.target, r.recommended, r.current));
    }
  }
  return out;
}

}  // namespace nictune::tuner
