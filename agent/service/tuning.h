// SPDX-License-Identifier: Apache-2.0
// The service's apply mode: at every tuner window the controller step (agent/actuate) runs over
// the window's recommendations and health, and the REST routes' apply, rollback and restore go
// through the same actuator and controller. Outside apply mode nothing here writes, except a
// restore asked for explicitly (it only puts originals back).
//
// Thread-safe: the sampling loop and the HTTP handlers call it; one mutex serialises the
// controller (the actuator has its own).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/actuate/actuator.h"
#include "agent/metrics/tuning_series.h"
#include "agent/rate_limited_log.h"
#include "agent/service/sampler_ports.h"
#include "agent/service/tuning_control.h"
#include "agent/store/journal.h"
#include "tuner/controller.h"
#include "tuner/observation.h"
#include "tuner/recommendation.h"

namespace nictune::service {

// The health the controller guards, per device and for the host: drops of every kind per second
// over the window (a device's socket, ring and protocol-memory drops once, though each of its
// queues carries them; the backlog drops of each queue's CPUs), and the mean hard IRQ + softirq
// share of the CPUs serving the queues. The host's sums the devices' drops and averages every
// queue's CPU. Of the drops, those the queues' delivery stalls can explain: the packets that
// arrived while a queue was stalled, at most the drops themselves.
tuner::ScopedHealth HealthOf(const tuner::Observation& observation);

class Tuning : public TuningControl, public TunerWindowSink {
 public:
  // actuator, journal and series must outlive this; series may be null.
  Tuning(actuate::Actuator& actuator, store::Journal& journal, tuner::ControllerConfig controller,
         Mode mode, metrics::TuningSeries* series);

  // Resolves what a crash of this boot left in the journal (actuate: ResolveAtStart). Apply mode
  // calls it at start; a SIGHUP into apply mode gets it before the first step.
  actuate::RestoreReport ResolveAtStart(actuate::PendingPolicy policy, absl::Time now);

  void SetMode(Mode mode, actuate::PendingPolicy policy);

  // TunerWindowSink: keeps the window's recommendations and health; in apply mode runs the step.
  void OnTunerWindow(const tuner::Observation& observation,
                     const std::vector<tuner::Recommendation>& recommendations,
                     absl::Time now) override;
  std::vector<HeldChange> HeldChanges() override;

  // TuningControl.
  Mode mode() const override { return mode_.load(); }
  absl::StatusOr<actuate::ControlStepSummary> ApplyNow(
      const std::optional<driver::knobs::KnobAddress>& only, absl::Time now) override;
  absl::StatusOr<actuate::ActuationResult> RollbackChange(int64_t change_id,
                                                          absl::Time now) override;
  actuate::ActuationResult RollbackKnob(const driver::knobs::KnobAddress& address,
                                        absl::Time now) override;
  actuate::RestoreReport RestoreAll(absl::Time now) override;

 private:
  // Each needs mutex_ held.
  actuate::ControlStepSummary StepLocked(const std::vector<tuner::Recommendation>& recommendations,
                                         absl::Time now);
  void EnsureResolvedLocked(absl::Time now);
  // The controller forgets its last write of a knob we put back out of band (and parks it for a
  // cooldown), so that it does not mistake our own rollback for a person's change.
  void ForgetLocked(const actuate::ActuationResult& result, absl::Time now);
  void CountLocked(const actuate::ActuationResult& result);
  // A knob that cannot be read (its device renamed or gone) is seen again every window: logged
  // once a minute at most. Unsupported knobs are left to the actuator, which logs them once.
  void LogUnreadableLocked(const actuate::ControlStepSummary& summary, absl::Time now);
  // A journal that cannot record originals (a full disk) pauses every change: said once a minute
  // while it lasts, and once when a change is journaled again.
  void NoteJournalLocked(const actuate::ControlStepSummary& summary, absl::Time now);
  // A change the controller holds back is logged when the hold begins and when it is first held
  // for another cause, not every window it lasts: a calm host may hold one for hours. The
  // status shows each with the time its hold began.
  void NoteHeldLocked(const actuate::ControlStepSummary& summary, absl::Time now);

  actuate::Actuator& actuator_;
  store::Journal& journal_;
  metrics::TuningSeries* series_;
  std::atomic<Mode> mode_;

  std::mutex mutex_;
  tuner::Controller controller_;
  actuate::PendingPolicy policy_ = actuate::PendingPolicy::kRestore;
  bool resolved_ = false;
  std::optional<std::vector<tuner::Recommendation>> recommendations_;
  tuner::ScopedHealth health_;
  agent::RateLimitedLog problems_;
  struct Hold {
    HeldChange change;
    // The causes this hold has said in the log, a bit per HeldFor: a hold whose cause alternates
    // (a reversal one window, an ineffective step the next) says each once, not every window.
    uint32_t causes_logged = 0;
  };
  std::map<std::string, Hold> held_;  // by knob key: the last window's holds
  bool paused_ = false;  // the last change asked for could not be journaled
};

}  // namespace nictune::service
