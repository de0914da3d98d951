// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/probe_duty_cycle.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "driver/bpf/saturating_difference.h"
#include "driver/bpf/softirq.h"

namespace nictune::driver::bpf {
namespace {

uint64_t ToNs(absl::Duration d) { return static_cast<uint64_t>(absl::ToInt64Nanoseconds(d)); }

// Under this much attached time the counts say little (and a first call has no baseline).
constexpr uint64_t kShortestMeasureNs = 100'000;
// A hook's own link operations set their cost in its plan once there are this many of them, so
// that a single slow one does not.
constexpr uint64_t kLinkOperationsToMeasure = 8;

const char* ModeName(HookMode mode) {
  switch (mode) {
    case HookMode::kDetached:
      return "detached";
    case HookMode::kWhole:
      return "whole";
    case HookMode::kSlotted:
      return "slotted";
    case HookMode::kGated:
      return "gated";
  }
  return "?";
}

}  // namespace

std::unique_ptr<ProbeDutyCycle> ProbeDutyCycle::Start(std::vector<std::unique_ptr<DutyHook>> hooks,
                                                      ProbeDutyOptions options, bool per_packet) {
  std::unique_ptr<ProbeDutyCycle> cycle(
      new ProbeDutyCycle(std::move(hooks), std::move(options), per_packet));
  cycle->thread_ = std::thread([raw = cycle.get()] { raw->Run(); });
  return cycle;
}

ProbeDutyCycle::ProbeDutyCycle(std::vector<std::unique_ptr<DutyHook>> hooks,
                               ProbeDutyOptions options, bool per_packet)
    : options_(std::move(options)),
      hooks_(std::move(hooks)),
      per_packet_(per_packet),
      per_packet_wanted_(per_packet) {
  last_reading_.assign(hooks_.size(), HookReading{});
  baseline_.assign(hooks_.size(), false);
  rates_.assign(hooks_.size(), std::nullopt);
  if (options_.budget.cpu_share) {
    account_.emplace(*options_.budget.cpu_share, options_.budget.period);
    planning_cpu_share_ = *options_.budget.cpu_share;
  }
  for (const auto& hook : hooks_) costs_.push_back(DefaultCost(hook->spec()));
  next_calibration_ns_ = MonotonicNs() + ToNs(options_.first_calibration);
  for (const auto& hook : hooks_) {
    if (hook->spec().per_packet && !per_packet_) {
      hook->DetachStarts();
      hook->DetachEnds();
    }
  }
}

ProbeDutyCycle::~ProbeDutyCycle() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(link_mutex_);
  stats_.reset();
  // The dependents go first: the reverse of the attach order.
  while (!hooks_.empty()) hooks_.pop_back();
}

absl::Status ProbeDutyCycle::SetPerPacket(bool on) {
  std::lock_guard<std::mutex> lock(link_mutex_);
  per_packet_ = on;
  per_packet_wanted_ = on;
  absl::Status result;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    DutyHook& hook = *hooks_[i];
    if (!hook.spec().per_packet) continue;
    if (on) {
      rates_[i].reset();  // measured afresh: attached whole until the next plan
      absl::Status attached = hook.Attach();
      if (attached.ok()) attached = hook.SetGated(false);
      result.Update(attached.ok() ? hook.Open(1) : attached);
    } else {
      result.Update(hook.SetGated(false));
      hook.DetachStarts();
      hook.DetachEnds();
    }
  }
  if (on) {
    // The thread may be between slotted periods, seconds from its next plan: it measures the
    // hooks over one recheck and plans then.
    {
      std::lock_guard<std::mutex> stop(stop_mutex_);
      newly_wanted_ = true;
    }
    stop_signal_.notify_all();
  }
  return result;
}

void ProbeDutyCycle::Run() {
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> phase(0.0, 1.0);
  const uint64_t recheck_ns = ToNs(options_.whole_recheck);
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    const uint64_t now = MonotonicNs();
    double spent_ns = 0;
    MeasureLocked(now, spent_ns);  // the baselines of the first period
    PlanningBudgetLocked(now, spent_ns);
  }
  uint64_t next = MonotonicNs() + recheck_ns;
  bool newly_wanted = false;
  while (WaitForNextPlan(next, &newly_wanted)) {
    if (newly_wanted) {
      next = MonotonicNs() + recheck_ns;
      continue;
    }
    // A late wake-up (a loaded host) starts the next period late rather than squeezing it.
    const uint64_t period_start = std::max(next, MonotonicNs());
    {
      std::lock_guard<std::mutex> state(state_mutex_);
      last_error_.clear();  // what this period runs into
    }
    ProbeBudgetPlan plan;
    std::vector<HookLoad> loads;
    {
      std::lock_guard<std::mutex> lock(link_mutex_);
      double spent_ns = 0;
      loads = MeasureLocked(period_start, spent_ns);
      RecalibrateIfLoadMovedLocked(period_start);
      const BudgetOptions budget = PlanningBudgetLocked(period_start, spent_ns);
      plan = PlanProbeBudget(loads, phase(random), budget);
      ApplyWholeLocked(plan);
      std::lock_guard<std::mutex> state(state_mutex_);
      loads_ = loads;
      plan_ = plan;
      planning_cpu_share_ = budget.cpu_share.value_or(0);
    }
    const bool any_slotted = std::any_of(plan.hooks.begin(), plan.hooks.end(),
                                         [](const auto& h) { return Sampled(h.mode); });
    if (any_slotted) {
      const SlotsEnd slots = RunSlots(plan, loads, period_start);
      if (slots == SlotsEnd::kStopping) break;
      const uint64_t plan_end = period_start + ToNs(options_.budget.period) *
                                                   static_cast<uint64_t>(plan.periods_per_slot);
      if (slots == SlotsEnd::kPeriodDone && !WatchWholeHooks(plan, loads, plan_end)) break;
      next = MonotonicNs();
      continue;
    }
    if (CalibrationDue(period_start)) {
      {
        std::lock_guard<std::mutex> lock(link_mutex_);
        BeginCalibrationLocked();
      }
      if (!WaitUntil(MonotonicNs() + ToNs(options_.calibration_window))) break;
      std::lock_guard<std::mutex> lock(link_mutex_);
      EndCalibrationLocked();
    }
    next = period_start + recheck_ns;
  }
}

ProbeDutyCycle::SlotsEnd ProbeDutyCycle::RunSlots(const ProbeBudgetPlan& plan,
                                                  const std::vector<HookLoad>& loads,
                                                  uint64_t period_start_ns) {
  // Each event seen in a slot stands for those of the period outside it (the softirq timing's
  // weight; the other hooks' figures are scaled by the agent from the attached time).
  const uint64_t weight = std::clamp<uint64_t>(static_cast<uint64_t>(std::llround(1 / plan.share)),
                                               1, NICTUNE_SOFTIRQ_MAX_SLOT_WEIGHT);
  std::vector<size_t> release;  // attached from a whole period, their slot not the first
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    const std::vector<size_t>& first = plan.slots.front().hooks;
    for (size_t i = 0; i < hooks_.size() && i < plan.hooks.size(); ++i) {
      if (Sampled(plan.hooks[i].mode) && hooks_[i]->attached() &&
          std::find(first.begin(), first.end(), i) == first.end()) {
        release.push_back(i);
      }
    }
  }
  if (!release.empty() && !Detach(release, plan)) return SlotsEnd::kStopping;
  // The whole and the gated hooks' cost since the period began: their counters are in memory, so
  // watching them before each slot costs no system call.
  std::vector<std::pair<uint64_t, uint64_t>> since;
  WholeCostNsPerS(plan, since);
  for (const SlotGroup& group : plan.slots) {
    bool still_attached = false;
    {
      std::lock_guard<std::mutex> lock(link_mutex_);
      for (const size_t i : group.hooks) still_attached |= hooks_[i]->attached();
    }
    // Hooks still attached from a whole period go on as this period's first slot: no detach and
    // attach again for the phase.
    if (!still_attached && !WaitUntil(period_start_ns + ToNs(group.start))) {
      return SlotsEnd::kStopping;
    }
    // A flood that began after the plan, on a whole hook or on the gate of one it found quiet,
    // ends the period before the next slot.
    if (Outgrown(plan, loads, WholeCostNsPerS(plan, since))) return SlotsEnd::kOutgrown;
    if (!RunSlot(group.hooks, weight, plan)) return SlotsEnd::kStopping;
  }
  return SlotsEnd::kPeriodDone;
}

bool ProbeDutyCycle::RunSlot(const std::vector<size_t>& group, uint64_t weight,
                             const ProbeBudgetPlan& plan) {
  bool links_changed = false;
  bool gates = false;  // a hook measures from its gate's opening, which can wait for the settle
  {
    // Every gate closed while links change: each link operation patches text on every CPU. The
    // gated hooks open theirs with the others, after the settle.
    std::lock_guard<std::mutex> lock(link_mutex_);
    CloseAllLocked();
    for (const size_t i : group) {
      gates |= hooks_[i]->has_gate();
      if (hooks_[i]->gated()) continue;
      links_changed |= !hooks_[i]->attached();
      NoteError(hooks_[i]->Attach());
    }
    OpenWholeLocked(plan);
  }
  if (links_changed && gates && !WaitUntil(MonotonicNs() + ToNs(options_.budget.link_settle))) {
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    for (const size_t i : group) {
      if (hooks_[i]->gated()) NoteError(hooks_[i]->Attach());
    }
    for (const size_t i : group) NoteError(hooks_[i]->Open(weight));
    if (CalibrationDue(MonotonicNs())) BeginCalibrationLocked();
  }
  if (!WaitUntil(MonotonicNs() + ToNs(plan.slot_length))) return false;
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    if (stats_) EndCalibrationLocked();
  }
  return Detach(group, plan);
}

bool ProbeDutyCycle::Detach(const std::vector<size_t>& hooks, const ProbeBudgetPlan& plan) {
  bool ends_attached = false;
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    CloseAllLocked();
    // Every gate of the slot closed before any link goes.
    for (auto i = hooks.rbegin(); i != hooks.rend(); ++i) hooks_[*i]->CloseGate();
    for (auto i = hooks.rbegin(); i != hooks.rend(); ++i) {
      hooks_[*i]->DetachStarts();
      ends_attached |= !hooks_[*i]->gated() && !hooks_[*i]->spec().end_handlers.empty();
    }
    OpenWholeLocked(plan);
  }
  if (!ends_attached) return true;  // gated hooks and those without end handlers: no tail
  // Events that started in the slot end within the tail, before their end handlers go.
  if (!WaitUntil(MonotonicNs() + ToNs(options_.budget.exit_tail))) return false;
  std::lock_guard<std::mutex> lock(link_mutex_);
  CloseAllLocked();
  for (auto i = hooks.rbegin(); i != hooks.rend(); ++i) hooks_[*i]->DetachEnds();
  OpenWholeLocked(plan);
  return true;
}

ProbeDutyCycle::HookReading ProbeDutyCycle::Read(const DutyHook& hook, uint64_t now_ns) {
  const LinkStats links = hook.link_stats();
  return HookReading{.events = hook.Events(),
                     .counted_ns = hook.CountedNs(now_ns),
                     .attached_ns = hook.AttachedNs(now_ns),
                     .link_cpu_ns = links.attach_cpu_ns + links.detach_cpu_ns,
                     .link_operations = links.attaches + links.detaches};
}

double ProbeDutyCycle::SpentBetween(size_t i, const HookReading& before,
                                    const HookReading& now) const {
  // Events counted with the gate closed cost the closed gate; the others the whole programs.
  const uint64_t counted = SaturatingDifference(now.counted_ns, before.counted_ns);
  const double open_share = counted == 0 ? 1.0
                                         : std::min(1.0, static_cast<double>(SaturatingDifference(
                                                             now.attached_ns, before.attached_ns)) /
                                                             static_cast<double>(counted));
  const double ns_per_event =
      open_share * costs_[i].ns_per_event() + (1 - open_share) * costs_[i].gate_ns_per_event();
  return static_cast<double>(SaturatingDifference(now.events, before.events)) * ns_per_event +
         static_cast<double>(SaturatingDifference(now.link_cpu_ns, before.link_cpu_ns));
}

std::vector<HookLoad> ProbeDutyCycle::MeasureLocked(uint64_t now_ns, double& spent_ns) {
  std::vector<HookLoad> loads;
  spent_ns = 0;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    const DutyHook& hook = *hooks_[i];
    const HookReading now = Read(hook, now_ns);
    HookReading& last = last_reading_[i];
    const uint64_t attached_since_last = now.counted_ns - last.counted_ns;
    if (baseline_[i] && attached_since_last >= kShortestMeasureNs) {
      rates_[i] = static_cast<double>(now.events - last.events) * 1e9 /
                  static_cast<double>(attached_since_last);
    }
    spent_ns += SpentBetween(i, last, now);
    last = now;
    baseline_[i] = true;
    const std::vector<std::string>& whole = options_.never_slotted;
    loads.push_back(HookLoad{
        .name = hook.name(),
        .wanted = !hook.spec().per_packet || per_packet_,
        .never_slotted = std::find(whole.begin(), whole.end(), hook.name()) != whole.end(),
        .events_per_s = rates_[i],
        .cost_ns_per_event = costs_[i].ns_per_event(),
        .link_operations = hook.link_operations(),
        .link_operation_ns =
            now.link_operations >= kLinkOperationsToMeasure
                ? static_cast<double>(now.link_cpu_ns) / static_cast<double>(now.link_operations)
                : 0,
        .needs = hook.spec().needs,
        .gate_ns_per_event = hook.gateable() ? costs_[i].gate_ns_per_event() : 0});
  }
  return loads;
}

BudgetOptions ProbeDutyCycle::PlanningBudgetLocked(uint64_t now_ns, double spent_ns) {
  BudgetOptions budget = options_.budget;
  if (!account_) return budget;
  if (spent_at_ns_ != 0)
    account_->Record(spent_ns, absl::Nanoseconds(SaturatingDifference(now_ns, spent_at_ns_)));
  spent_at_ns_ = std::max(spent_at_ns_, now_ns);
  // plan_ is written by this thread alone: reading it here needs no lock.
  budget.cpu_share = account_->PlanningShare(plan_.periods_per_slot);
  return budget;
}

void ProbeDutyCycle::ApplyWholeLocked(const ProbeBudgetPlan& plan) {
  const auto mode = [&plan](size_t i) {
    return i < plan.hooks.size() ? plan.hooks[i].mode : HookMode::kWhole;
  };
  bool links_change = false;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    links_change |= hooks_[i]->gated() != (mode(i) == HookMode::kGated) ||
                    (mode(i) == HookMode::kWhole && !hooks_[i]->measuring()) ||
                    (mode(i) == HookMode::kDetached && hooks_[i]->attached());
  }
  if (!links_change) return;
  CloseAllLocked();
  for (size_t i = 0; i < hooks_.size(); ++i) {
    DutyHook& hook = *hooks_[i];
    switch (mode(i)) {
      case HookMode::kWhole:  // a gated hook opens its gate first and keeps its links
        NoteError(hook.Attach());
        NoteError(hook.SetGated(false));
        break;
      case HookMode::kDetached:
        NoteError(hook.SetGated(false));
        hook.DetachStarts();
        hook.DetachEnds();
        break;
      case HookMode::kSlotted:
      case HookMode::kGated:
        NoteError(hook.SetGated(mode(i) == HookMode::kGated));
        break;
    }
  }
  OpenWholeLocked(plan);
}

void ProbeDutyCycle::OpenWholeLocked(const ProbeBudgetPlan& plan) {
  for (size_t i = 0; i < hooks_.size() && i < plan.hooks.size(); ++i) {
    if (plan.hooks[i].mode == HookMode::kWhole) NoteError(hooks_[i]->Open(1));
  }
}

void ProbeDutyCycle::CloseAllLocked() {
  for (const auto& hook : hooks_) hook->Close();
}

bool ProbeDutyCycle::CalibrationDue(uint64_t now_ns) const {
  return options_.budget.cpu_share.has_value() && !stats_ && now_ns >= next_calibration_ns_;
}

void ProbeDutyCycle::RecalibrateIfLoadMovedLocked(uint64_t now_ns) {
  if (calibrated_at_ns_ == 0 || now_ns < calibrated_at_ns_ + ToNs(kRecalibrationMinGap)) return;
  if (LoadMovedSinceCalibration(calibrated_rates_, rates_)) {
    next_calibration_ns_ = std::min(next_calibration_ns_, now_ns);
  }
}

void ProbeDutyCycle::BeginCalibrationLocked() {
  next_calibration_ns_ = MonotonicNs() + ToNs(options_.calibrate_every);
  absl::StatusOr<StatsWindow> stats = StatsWindow::Open();
  if (!stats.ok()) {
    NoteError(stats.status());
    return;
  }
  stats_.emplace(*std::move(stats));
  calibration_runs_.clear();
  calibration_events_.clear();
  calibration_measuring_.clear();
  for (const auto& hook : hooks_) {
    calibration_runs_.push_back(hook->Runs());
    calibration_events_.push_back(hook->Events());
    calibration_measuring_.push_back(hook->attached());
  }
}

void ProbeDutyCycle::EndCalibrationLocked() {
  for (size_t i = 0; i < hooks_.size() && i < calibration_runs_.size(); ++i) {
    const DutyHook& hook = *hooks_[i];
    const bool measured = calibration_measuring_[i] && hook.attached();
    const bool closed = !calibration_measuring_[i] && !hook.attached() && hook.gated();
    // A hook that measured part of the window, or was detached, tells nothing.
    if (measured) {
      costs_[i] = Calibrated(calibration_runs_[i], hook.Runs(), calibration_events_[i],
                             hook.Events(), costs_[i]);
    } else if (closed) {
      costs_[i] = CalibratedGate(calibration_runs_[i], hook.Runs(), costs_[i]);
    }
  }
  stats_.reset();
  calibrated_rates_ = rates_;
  calibrated_at_ns_ = MonotonicNs();
  std::lock_guard<std::mutex> state(state_mutex_);
  published_costs_ = costs_;
  ++calibrations_;
}

bool ProbeDutyCycle::WatchWholeHooks(const ProbeBudgetPlan& plan,
                                     const std::vector<HookLoad>& loads, uint64_t until_ns) {
  const uint64_t recheck_ns = ToNs(options_.whole_recheck);
  std::vector<std::pair<uint64_t, uint64_t>> since;
  WholeCostNsPerS(plan, since);
  while (true) {
    const uint64_t now = MonotonicNs();
    if (now >= until_ns) return true;
    bool newly_wanted = false;
    if (!WaitForNextPlan(std::min(until_ns, now + recheck_ns), &newly_wanted)) return false;
    // Hooks attached whole just now are measured over a recheck before the plan.
    if (newly_wanted) return WaitUntil(MonotonicNs() + recheck_ns);
    if (Outgrown(plan, loads, WholeCostNsPerS(plan, since))) return true;
  }
}

bool ProbeDutyCycle::Outgrown(const ProbeBudgetPlan& plan, const std::vector<HookLoad>& loads,
                              double whole_ns_per_s) const {
  // The whole hooks and the gated hooks' gates (which cost every event, slot or not) cost a
  // quarter more than the plan accepted for them, and with the slots more than the budget. A
  // plan that could not slot them (never slotted, or cheaper whole than their link operations)
  // is not made again every recheck: they cost what it accepted.
  double planned_whole_ns_per_s = 0;
  for (size_t i = 0; i < plan.hooks.size() && i < loads.size(); ++i) {
    if (plan.hooks[i].mode == HookMode::kWhole) {
      planned_whole_ns_per_s += plan.hooks[i].cost_ns_per_s;
    }
    if (plan.hooks[i].mode == HookMode::kGated) {
      planned_whole_ns_per_s += loads[i].events_per_s.value_or(0) * loads[i].gate_ns_per_event;
    }
  }
  const double planned_slotted_ns_per_s =
      std::max(0.0, plan.planned_ns_per_s - planned_whole_ns_per_s);
  const double budget_ns_per_s = options_.budget.cpu_share.value_or(1.0) * 1e9;
  return whole_ns_per_s > 1.25 * planned_whole_ns_per_s &&
         whole_ns_per_s + planned_slotted_ns_per_s > budget_ns_per_s;
}

double ProbeDutyCycle::WholeCostNsPerS(const ProbeBudgetPlan& plan,
                                       std::vector<std::pair<uint64_t, uint64_t>>& since) {
  std::lock_guard<std::mutex> lock(link_mutex_);
  const uint64_t now = MonotonicNs();
  since.resize(hooks_.size(), {0, 0});
  double cost = 0;
  for (size_t i = 0; i < hooks_.size() && i < plan.hooks.size(); ++i) {
    const HookMode mode = plan.hooks[i].mode;
    if (mode != HookMode::kWhole && mode != HookMode::kGated) continue;
    const uint64_t events = hooks_[i]->Events();
    const uint64_t attached = hooks_[i]->CountedNs(now);
    const auto [first_events, first_attached] = since[i];
    if (first_attached == 0) {
      since[i] = {events, attached};
    } else if (attached - first_attached >= kShortestMeasureNs) {
      // A gated hook's events cost its closed gate (a slot in between adds a little).
      const double ns_per_event =
          mode == HookMode::kGated ? costs_[i].gate_ns_per_event() : costs_[i].ns_per_event();
      cost += static_cast<double>(events - first_events) * 1e9 /
              static_cast<double>(attached - first_attached) * ns_per_event;
    }
  }
  return cost;
}

bool ProbeDutyCycle::WaitForNextPlan(uint64_t deadline_ns, bool* newly_wanted) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(stop_mutex_);
  const Clock::time_point deadline{std::chrono::nanoseconds(deadline_ns)};
  stop_signal_.wait_until(lock, deadline, [this] { return stopping_ || newly_wanted_; });
  *newly_wanted = newly_wanted_;
  newly_wanted_ = false;
  return !stopping_;
}

bool ProbeDutyCycle::WaitUntil(uint64_t deadline_ns) {
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC on Linux, as MonotonicNs()
  std::unique_lock<std::mutex> lock(stop_mutex_);
  const Clock::time_point deadline{std::chrono::nanoseconds(deadline_ns)};
  stop_signal_.wait_until(lock, deadline, [this] { return stopping_; });
  return !stopping_;
}

std::vector<HookDuty> ProbeDutyCycle::Duties(uint64_t now_ns) const {
  std::vector<HookDuty> duties;
  {
    // Every hook read in one state: a slot that ended between two reads would give the hook read
    // earlier a slot the other has not.
    std::lock_guard<std::mutex> lock(link_mutex_);
    for (const auto& hook : hooks_) {
      const LinkStats links = hook->link_stats();
      duties.push_back(HookDuty{.hook = hook->name(),
                                .attached_ns = hook->AttachedNs(now_ns),
                                .events = hook->Events(),
                                .slots = links.measure_starts,
                                .link_cpu_ns = links.attach_cpu_ns + links.detach_cpu_ns});
    }
  }
  std::lock_guard<std::mutex> state(state_mutex_);
  for (size_t i = 0; i < duties.size(); ++i) {
    HookDuty& duty = duties[i];
    if (i < plan_.hooks.size()) {
      duty.mode = ModeName(plan_.hooks[i].mode);
      duty.share = Sampled(plan_.hooks[i].mode)              ? plan_.share
                   : plan_.hooks[i].mode == HookMode::kWhole ? 1.0
                                                             : 0.0;
      duty.events_per_s = loads_[i].events_per_s.value_or(0);
      duty.cost_ns_per_event = loads_[i].cost_ns_per_event;
      duty.cost_measured = i < published_costs_.size() && published_costs_[i].measured;
    }
  }
  return duties;
}

ProbeBudgetCounters ProbeDutyCycle::Budget() const {
  std::lock_guard<std::mutex> state(state_mutex_);
  return ProbeBudgetCounters{.budget_cpu_share = options_.budget.cpu_share.value_or(0),
                             .planning_cpu_share = planning_cpu_share_,
                             .planned_ns_per_s = plan_.planned_ns_per_s,
                             .over_budget = plan_.over_budget,
                             .calibrations = calibrations_};
}

std::string ProbeDutyCycle::Describe(const std::string& name) const {
  std::lock_guard<std::mutex> state(state_mutex_);
  for (size_t i = 0; i < hooks_.size(); ++i) {
    if (hooks_[i]->name() != name) continue;
    if (i >= plan_.hooks.size()) {  // before the first plan: as the start left it
      return hooks_[i]->spec().per_packet && !per_packet_wanted_
                 ? "detached"
                 : "attached whole (rate not measured yet)";
    }
    const std::string rate =
        loads_[i].events_per_s
            ? absl::StrFormat("%.0f events/s, %.0f ns an event (%s)", *loads_[i].events_per_s,
                              loads_[i].cost_ns_per_event,
                              i < published_costs_.size() && published_costs_[i].measured
                                  ? "measured"
                                  : "assumed")
            : std::string("rate not measured yet");
    std::string text;
    switch (plan_.hooks[i].mode) {
      case HookMode::kDetached:
        text = "detached";
        break;
      case HookMode::kWhole:
        text = absl::StrCat("attached whole (", rate, ")");
        break;
      case HookMode::kSlotted:
        text = absl::StrFormat(
            "slotted by the probe budget: attached %d x %s of every %s (%.2g%%) at %s",
            plan_.slots_per_period, absl::FormatDuration(plan_.slot_length),
            absl::FormatDuration(options_.budget.period * plan_.periods_per_slot),
            100 * plan_.share, rate);
        break;
      case HookMode::kGated:
        text = absl::StrFormat(
            "gated by the probe budget: attached throughout, measuring %d x %s of every %s "
            "(%.2g%%) at %s",
            plan_.slots_per_period, absl::FormatDuration(plan_.slot_length),
            absl::FormatDuration(options_.budget.period * plan_.periods_per_slot),
            100 * plan_.share, rate);
        break;
    }
    if (!last_error_.empty()) absl::StrAppend(&text, "; last error: ", last_error_);
    return text;
  }
  return "";
}

const DutyHook* ProbeDutyCycle::hook(const std::string& name) const {
  for (const auto& hook : hooks_) {
    if (hook->name() == name) return hook.get();
  }
  return nullptr;
}

std::optional<StretchAt> ProbeDutyCycle::MeasuringNow(const std::string& name) const {
  std::lock_guard<std::mutex> lock(link_mutex_);
  const DutyHook* found = hook(name);
  return found == nullptr ? std::nullopt : found->MeasuringNow();
}

void ProbeDutyCycle::NoteError(const absl::Status& status) {
  if (status.ok()) return;
  std::lock_guard<std::mutex> state(state_mutex_);
  last_error_ = std::string(status.message());
}

}  // namespace nictune::driver::bpf
