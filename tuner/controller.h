// SPDX-License-Identifier: Apache-2.0
// The apply-mode controller (docs/design.md "The controller"): turns recommendations into bounded,
// guarded changes. One change per knob per window; steps of at most x2 or /2; act only on a
// predicted gain and a confidence above thresholds; after each change a guard window compares drops
// (less what a delivery stall explains) and CPU with the baseline, and on a regression rolls back
// and parks the knob for a cooldown (shorter and backing off when the value it went back to drops
// too); direction reversals at most one per cooldown, as steps the way of one that left the drops
// as they were; a value someone else wrote releases the knob
// for good. Time is passed in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "tuner/controller_action.h"
#include "tuner/knob.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

struct ControllerConfig {
  absl::Duration window = absl::Seconds(10);  // at most one change per knob per window
  absl::Duration guard = absl::Seconds(30);   // watch a change this long before keeping it
  absl::Duration cooldown = absl::Minutes(10);
  double min_gain = 0.05;  // hysteresis: ignore recommendations predicting less
  // Act only on recommendations at least this confident (Recommendation::confidence): a window
  // of a few hundred packets a second, or of a few sampling intervals, is noise to act on.
  double min_confidence = 0.25;
  // A regression: drops/s above baseline * (1 + ratio) + absolute, or CPU share above baseline +
  // cpu_tolerance.
  double drop_tolerance_ratio = 0.10;
  double drop_tolerance_per_s = 1.0;
  double cpu_tolerance = 0.02;
  // CPU share a change may add beyond cpu_tolerance while it cuts drops (drops/s below the
  // baseline's by more than the drop tolerance): more interrupts to stop an overflow cost CPU by
  // design, and rolling them back would bring the drops back.
  double cpu_for_fewer_drops = 0.10;
};

// What the agent read from the kernel this window, with who changed it last if it knows.
struct KnobReading {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  int64_t value = 0;
  std::string changed_by;                // e.g. "uid 1000 via ethtool (audit)"; empty = unknown
  std::optional<absl::Time> changed_at;  // when, if known
};

// Health of one scope over the window that just ended.
struct Health {
  double drops_per_s = 0;
  // What the receive path costs: the hard IRQ + softirq share of the CPUs involved, with its NAPI
  // pollers' share where it polls in threads. Other work on
  // those CPUs (applications, builds, steal) is not a knob's doing and would roll changes back.
  double cpu_share = 0;
  // Of drops_per_s, the most that the window's delivery stalls explain: packets that arrived
  // while the receive path was held off (a hypervisor took the serving CPU, an emulated NIC's
  // thread ran late) reach the socket in one late burst at any setting; and a stalled reader's
  // drops (stalled_reader.h), which no setting stops. The guard judges the
  // drops beyond them (docs/design.md, glossary: "stall-explained drops").
  double stall_drops_per_s = 0;
  // The threaded NAPI pollers whose time cpu_share holds: a share over other threads (a poller
  // that came or went, one the agent did not name yet) is not comparable, and CPU is not judged.
  uint32_t napi_pollers = 0;
};

// Health per scope: a device's knob is judged on its own device (drops and CPU of another device
// are not its doing), a host-wide knob (ActsOnHost) or a device not listed here on the host's.
struct ScopedHealth {
  Health host;
  absl::flat_hash_map<std::string, Health> devices;  // by device name
  // The health `knob` at `target` ("eth0", "eth0 rx 3", "host") is judged on.
  const Health& For(Knob knob, const std::string& target) const;
};

enum class KnobMode { kIdle, kGuarding, kParked, kReleased };

// A kept step that did not lower the drops it was taken against.
struct IneffectiveStep {
  absl::Time kept_at;
  int64_t from = 0;
  int64_t to = 0;
  double drops_before_per_s = 0;  // beyond stalls, in the baseline window
  double drops_after_per_s = 0;   // beyond stalls, the mean of the guard window's windows
};

class Controller {
 public:
  explicit Controller(ControllerConfig config);

  // One call per window. Knobs without a reading are left alone.
  std::vector<Action> Step(absl::Time now, const std::vector<KnobReading>& readings,
                           const ScopedHealth& health,
                           const std::vector<Recommendation>& recommendations);
  // The same with one figure for every knob.
  std::vector<Action> Step(absl::Time now, const std::vector<KnobReading>& readings,
                           const Health& health,
                           const std::vector<Recommendation>& recommendations) {
    return Step(now, readings, ScopedHealth{.host = health, .devices = {}}, recommendations);
  }

  // The actuator could not carry out an Apply or Rollback for this knob: forget that write and
  // park the knob for a cooldown rather than retry every window.
  void WriteFailed(Knob knob, const std::string& target, absl::Time now);

  // The knob's device went away (its read answered NotFound). A value we wrote or rolled back to
  // went with it, and a device that comes back under the name is another one: one that held a
  // value of ours is forgotten and parked, as WriteFailed, so the newcomer's own value is judged
  // afresh after the cooldown rather than taken for a person's change of ours.
  void DeviceGone(Knob knob, const std::string& target, absl::Time now);

  // The actuator made no write for this window's Apply of the knob, for a reason outside the
  // knob (the change journal could not record its original first): the knob is as if the Apply
  // had never been asked for, unparked, so the next window asks again. Only for the last Step.
  void WriteNotMade(Knob knob, const std::string& target);

  KnobMode ModeOf(Knob knob, const std::string& target) const;

  // The changes the last Step was recommended but did not make, each with why (its expected
  // gain or confidence below the thresholds, or a reversal inside the cooldown). Knobs that are
  // guarding, parked or released are not listed: their mode says why.
  const std::vector<Held>& LastHeld() const { return held_; }

  // The changes whose guard window the last Step passed, each with the figures it judged.
  const std::vector<KeptChange>& LastKept() const { return kept_; }

  // A knob at its target ("eth0", "eth0 rx 3", "host").
  using KnobKey = std::pair<Knob, std::string>;

  // Each knob not released that holds a value we wrote or rolled back to. These are read every
  // window whether or not a recommendation names them, so that their device going away is seen
  // (DeviceGone) even while the tuner no longer recommends anything for it.
  std::vector<KnobKey> KnobsHoldingOurValue() const;

 private:
  struct KnobState {
    KnobMode mode = KnobMode::kIdle;
    std::optional<int64_t> last_written;
    int64_t before_change = 0;
    absl::Time changed_at = absl::InfinitePast();
    Health baseline;
    absl::Time parked_until = absl::InfinitePast();
    int direction = 0;  // sign of our last Apply
    // When the cooldown before reversing `direction` started: at the last reversal, and at an
    // Apply made while sockets dropped (its direction is what stopped them).
    absl::Time last_reversal_at = absl::InfinitePast();
    int rollbacks_in_a_row = 0;  // since a change was last kept
    bool cpu_judged = true;      // false for a change that can only cut interrupts
    // The last kept step, taken against drops, that left them as they were: the knob is not
    // what drops them (a reader's pauses, a burst no interval holds), so another step that way
    // would cost interrupts or CPU for nothing; it waits a cooldown from then.
    std::optional<IneffectiveStep> ineffective;
    // The guard window's drops beyond stalls, summed over its windows: an ineffective step is
    // judged on their mean, where one window's count of a reader's pauses varies by a pause.
    double guard_unexplained_drops = 0;
    int guard_windows = 0;
  };

  bool Passed(absl::Time since, absl::Duration span, absl::Time now) const;
  bool Regressed(const Health& now, const Health& baseline, bool judge_cpu) const;
  // Drops beyond stalls below the baseline's by more than the drop tolerance.
  bool FewerDrops(double drops_per_s, double baseline_drops_per_s) const;
  // What a change passing its guard window learned: whether it was a step against drops that
  // left them as they were, over the guard window's windows.
  std::optional<IneffectiveStep> IneffectiveIfSo(Knob knob, const KnobState& st, int64_t value,
                                                 absl::Time at) const;
  // How long a rolled-back knob stays parked: the cooldown, unless the value it went back to
  // dropped itself, when waiting out a cooldown would hold a setting known to drop.
  absl::Duration ParkAfterRollback(const KnobState& st) const;

  ControllerConfig config_;
  absl::flat_hash_map<KnobKey, KnobState> knobs_;
  // Each knob the last Step applied, as it was before: what WriteNotMade puts back.
  absl::flat_hash_map<KnobKey, KnobState> before_apply_;
  std::vector<Held> held_;
  std::vector<KeptChange> kept_;
};

}  // namespace nictune::tuner
