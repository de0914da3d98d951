// SPDX-License-Identifier: Apache-2.0
// Runs the probe budget (probe_budget_plan.h) on a thread of its own. At every period it measures
// each hook's event rate from the hook's own counter over the time it was attached, plans, keeps
// the hooks that fit attached whole, and runs the others' slots, each: attach (in the order the
// hooks were given, so that a hook comes after those it needs), the settle where a hook with a
// gate waits to open it (link_settle), open, the slot's length, close, detach the start
// handlers, the tail, detach the end handlers. While nothing is slotted it
// measures again sooner (whole_recheck), so that a flood is cut down within a fraction of a
// second. Every few minutes, and soon after a hook's rate moved fourfold from the last
// calibration's, one slot (or window) runs with the kernel's BPF statistics on, which measures
// each hook's cost per event on this host at the load it has (probe_calibration.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "driver/bpf/duty_hook.h"
#include "driver/bpf/probe_budget_plan.h"
#include "driver/bpf/probe_calibration.h"
#include "driver/bpf/probe_spend_account.h"
#include "driver/probe_source.h"

namespace nictune::driver::bpf {

struct ProbeDutyOptions {
  BudgetOptions budget;
  // While every hook is whole, the rates are measured this often (a few map reads).
  absl::Duration whole_recheck = absl::Milliseconds(100);
  absl::Duration first_calibration = absl::Seconds(5);
  absl::Duration calibrate_every = absl::Minutes(5);
  // A calibration while nothing is slotted lasts this long.
  absl::Duration calibration_window = absl::Milliseconds(200);
  std::vector<std::string> never_slotted;  // hooks attached whole whatever they cost
};

class ProbeDutyCycle {
 public:
  // Takes the hooks (their handlers attached, as the probes' load left them) and starts the
  // schedule. Per-packet hooks start detached unless `per_packet` is set.
  static std::unique_ptr<ProbeDutyCycle> Start(std::vector<std::unique_ptr<DutyHook>> hooks,
                                               ProbeDutyOptions options, bool per_packet);
  // Stops the thread; the hooks detach as they go.
  ~ProbeDutyCycle();
  ProbeDutyCycle(const ProbeDutyCycle&) = delete;
  ProbeDutyCycle& operator=(const ProbeDutyCycle&) = delete;

  // Wants the per-packet hooks (attached at once, whole until the next plan says otherwise) or
  // not (detached at once). The error names the hook and the handler.
  absl::Status SetPerPacket(bool on);

  // Each hook's measured time as of `now_ns` (CLOCK_MONOTONIC, a moment ago), all read in one
  // state under the link lock.
  std::vector<HookDuty> Duties(uint64_t now_ns) const;
  ProbeBudgetCounters Budget() const;
  // What the schedule does with `hook` now, e.g. "slotted by the probe budget: attached 4 x 6ms of
  // every 1s (2.4%) at 812000 events/s, 231 ns an event (measured)"; "" for an unknown hook.
  std::string Describe(const std::string& hook) const;
  const DutyHook* hook(const std::string& name) const;
  // DutyHook::MeasuringNow of `hook`, read under the schedule's lock; nullopt for an unknown hook.
  std::optional<StretchAt> MeasuringNow(const std::string& hook) const;

 private:
  ProbeDutyCycle(std::vector<std::unique_ptr<DutyHook>> hooks, ProbeDutyOptions options,
                 bool per_packet);

  void Run();
  bool WaitUntil(uint64_t deadline_ns);
  // The wait between plans: as WaitUntil, and it ends early, with *newly_wanted set, when
  // SetPerPacket has attached hooks whole that no plan has measured yet.
  bool WaitForNextPlan(uint64_t deadline_ns, bool* newly_wanted);
  // Between slotted plans, the whole hooks (and the gated hooks' gates) are measured every
  // recheck as while nothing is slotted: returns (true) at `until_ns`, or as soon as they have
  // outgrown the plan (a quarter more than it accepted for them, and over the budget with the
  // slots: a drop flood that began after a plan found them quiet), or hooks were newly wanted, so
  // that the caller plans at once. False when the cycle is stopping.
  bool WatchWholeHooks(const ProbeBudgetPlan& plan, const std::vector<HookLoad>& loads,
                       uint64_t until_ns);
  // The whole hooks and the gates cost `whole_ns_per_s` now: more than `plan` allows for them.
  bool Outgrown(const ProbeBudgetPlan& plan, const std::vector<HookLoad>& loads,
                double whole_ns_per_s) const;
  // What the whole hooks and the gated hooks' gates cost a second, on average since `since` (per
  // hook: events, counted ns), which the first call takes: an average since the plan, so that a
  // burst does not replan.
  double WholeCostNsPerS(const ProbeBudgetPlan& plan,
                         std::vector<std::pair<uint64_t, uint64_t>>& since);
  // What a hook's counters say at `now_ns`: the baselines of MeasureLocked.
  struct HookReading {
    uint64_t events = 0;
    uint64_t counted_ns = 0;
    uint64_t attached_ns = 0;  // measuring: for a hook with a gate, the gate open
    uint64_t link_cpu_ns = 0;
    uint64_t link_operations = 0;
  };
  static HookReading Read(const DutyHook& hook, uint64_t now_ns);
  // What hook `i` spent between two readings: its link operations' CPU, and its events at their
  // cost, an open gate's or a closed one's by the share of the counted time its gate was open.
  double SpentBetween(size_t i, const HookReading& before, const HookReading& now) const;
  // The loads as measured since the last call, and in `spent_ns` what every hook spent since
  // then; under link_mutex_.
  std::vector<HookLoad> MeasureLocked(uint64_t now_ns, double& spent_ns);
  // `spent_ns` since the last call goes into the spend account; returns the budget options the
  // next plan uses: the budget less the account's debt. Under link_mutex_.
  BudgetOptions PlanningBudgetLocked(uint64_t now_ns, double spent_ns);
  void ApplyWholeLocked(const ProbeBudgetPlan& plan);
  // Gates around link changes: all closed before, the whole hooks' open again after.
  void CloseAllLocked();
  void OpenWholeLocked(const ProbeBudgetPlan& plan);
  // The period's slots, from its start; one slot of `group`; and a detach of `hooks` (start
  // handlers, the tail, end handlers). False when the cycle is stopping.
  // RunSlots ends the period early (kOutgrown) when, before a slot, the whole hooks and the gates
  // have outgrown the plan.
  enum class SlotsEnd { kStopping, kPeriodDone, kOutgrown };
  SlotsEnd RunSlots(const ProbeBudgetPlan& plan, const std::vector<HookLoad>& loads,
                    uint64_t period_start_ns);
  bool RunSlot(const std::vector<size_t>& group, uint64_t weight, const ProbeBudgetPlan& plan);
  bool Detach(const std::vector<size_t>& hooks, const ProbeBudgetPlan& plan);
  void Note(const ProbeBudgetPlan& plan);
  void NoteError(const absl::Status& status);
  // Calibration: open the statistics and remember where each hook stood; close and compute.
  void BeginCalibrationLocked();
  void EndCalibrationLocked();
  bool CalibrationDue(uint64_t now_ns) const;
  // Brings the next calibration forward to `now_ns` when the load moved far from the last one's.
  void RecalibrateIfLoadMovedLocked(uint64_t now_ns);

  const ProbeDutyOptions options_;
  std::vector<std::unique_ptr<DutyHook>> hooks_;

  // Link changes: the thread and SetPerPacket.
  mutable std::mutex link_mutex_;
  bool per_packet_ = false;
  // The thread's measurement baselines, per hook.
  std::vector<HookReading> last_reading_;
  std::vector<bool> baseline_;  // a first measurement was taken
  std::vector<std::optional<double>> rates_;
  std::vector<HookCost> costs_;
  std::optional<StatsWindow> stats_;
  std::vector<RunStats> calibration_runs_;
  std::vector<uint64_t> calibration_events_;
  std::vector<bool> calibration_measuring_;  // attached (gate open) when the window began
  uint64_t next_calibration_ns_ = 0;
  // The rates as of the last calibration, and when it ended (0: none yet): a load far from those
  // rates calibrates again (LoadMovedSinceCalibration).
  std::vector<std::optional<double>> calibrated_rates_;
  uint64_t calibrated_at_ns_ = 0;
  // The spend account (none without a budget) and when it last recorded.
  std::optional<ProbeSpendAccount> account_;
  uint64_t spent_at_ns_ = 0;  // 0: not yet

  std::atomic<bool> per_packet_wanted_;  // per_packet_ for readers

  // What the readers see; held only briefly, never across a syscall.
  mutable std::mutex state_mutex_;
  ProbeBudgetPlan plan_;
  double planning_cpu_share_ = 0;  // what plan_ was made with (the budget before the first)
  std::vector<HookLoad> loads_;
  std::vector<HookCost> published_costs_;  // costs_ as of the last calibration
  uint64_t calibrations_ = 0;
  std::string last_error_;  // of the current period

  std::mutex stop_mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  bool newly_wanted_ = false;  // per-packet hooks attached whole since the last plan
  std::thread thread_;
};

}  // namespace nictune::driver::bpf
