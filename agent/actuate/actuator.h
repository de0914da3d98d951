// SPDX-License-Identifier: Apache-2.0
// The journaled actuator (docs/design.md "The journaled actuator"): the only way the agent
// writes a knob.
//
// Every write follows one order, so that a crash at any point leaves the knob at its original or
// at a value the journal recorded (pending_knob.h walks through each crash point):
//   1. read the knob; if it differs from our last write, someone else owns it now: release it in
//      the journal and never write it again this boot (restore leaves it too);
//   2. journal the original durably (Store::JournalOriginal, synchronous=FULL) before the write;
//      the original is the value before our first write of the knob this boot, and every later
//      write of the same knob journals a new row carrying that same original;
//   3. write, read back, mark the row applied with the value; a read-back that differs puts the
//      original back and fails;
//   4. close the row the write superseded (released, or rolled_back for a rollback).
// The actuator writes only when Apply, Rollback, RollbackToOriginal, RestoreAll or
// ResolveAtStart is called; the service calls Apply only in apply mode.
//
// Thread-safe: one mutex serialises every call (the sampling loop and REST both use it).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/actuate/actuation_result.h"
#include "agent/actuate/pending_knob.h"
#include "agent/actuate/write_observer.h"
#include "agent/store/journal.h"
#include "agent/store/records.h"
#include "driver/knobs/knob_access.h"
#include "tuner/controller_action.h"

namespace nictune::actuate {

// What to do at start with the changes a crash of this boot left pending (--on_exit decides).
enum class PendingPolicy { kRestore, kKeep };

// The journal reason of a knob released because someone else wrote it. A new Actuator in the same
// boot reads it back from the journal so that a restart never takes such a knob over again.
inline constexpr const char* kChangedBySomeoneElse = "changed by someone else";

class Actuator {
 public:
  // Providers are asked in turn to open a knob (the first that does not answer NotFound owns it);
  // they and the journal must outlive the actuator. boot_id comes from ReadBootId().
  Actuator(std::vector<driver::knobs::KnobProvider*> providers, store::Journal& journal,
           std::string boot_id);

  Actuator(const Actuator&) = delete;
  Actuator& operator=(const Actuator&) = delete;

  // The kernel's value, for the controller's readings. An unsupported knob is logged once and
  // returns Unimplemented every time.
  absl::StatusOr<int64_t> Read(const driver::knobs::KnobAddress& address);

  // Writes action.value (steps 1-4 above). kFailed when the knob changed since the controller read
  // action.from, or any step fails; the caller then tells the controller (WriteFailed). Also
  // kFailed before ResolveAtStart: a pending row of this boot would otherwise be mistaken for
  // nothing, and our own earlier value journaled as the original.
  ActuationResult Apply(const tuner::Apply& action, absl::Time now);

  // Puts back action.value, the value before the controller's change: when it is the original the
  // rows are closed rolled_back, otherwise a new row owes the original for the value written.
  ActuationResult Rollback(const tuner::Rollback& action, absl::Time now);

  // Puts back the original of one knob (POST rollback): the rows are closed rolled_back. Before
  // the journal is resolved (outside apply mode) the knob's pending rows of this boot say what is
  // owed, as for RestoreAll.
  ActuationResult RollbackToOriginal(const driver::knobs::KnobAddress& address,
                                     const std::string& reason, absl::Time now);

  // The controller saw someone else's value. Released in the journal unless the kernel still
  // holds our last write (then the controller's view was stale and the original stays owed).
  ActuationResult Release(const tuner::Release& action, absl::Time now);

  // The guard window passed: our last write of the knob is kept (journal state verified).
  absl::Status MarkVerified(const driver::knobs::KnobAddress& address, const std::string& reason,
                            absl::Time now);

  // A read of a knob we hold a value in answered NotFound: its device went away (removed, or
  // renamed: knobs are addressed by name) and took our value with it. A device that later appears
  // under the name is another one, whose value we never changed, so nothing is owed any more: the
  // rows are closed released with the reason and the knob forgotten. nullopt when we held no
  // value in it (or the read does not say NotFound).
  std::optional<ActuationResult> ReleaseGone(const driver::knobs::KnobAddress& address,
                                             const absl::Status& read_error, absl::Time now);

  // Every pending change of this boot: our value (or a half-written one) is replaced by the
  // original; someone else's value is left and released; an unsupported knob or a missing device
  // is released with the reason. Failures stay pending for the next call.
  RestoreReport RestoreAll(absl::Time now);

  // Once, before the first Apply. Pending changes of other boots are released as stale and never
  // replayed. Pending changes of this boot (a crash) are restored (kRestore) or taken over as our
  // last writes (kKeep); a half-written change is undone first, to the last recorded value.
  RestoreReport ResolveAtStart(PendingPolicy policy, absl::Time now);

  // Knobs we hold a value in now: their readings must reach the controller even when no
  // recommendation names them, or a guard window could never roll them back.
  std::vector<driver::knobs::KnobAddress> ManagedKnobs() const;

  // Released to someone else this boot: never written again.
  bool IsReleased(const driver::knobs::KnobAddress& address) const;

  const std::string& boot_id() const { return boot_id_; }

  // Told of each write that lands, whatever asked for it; must outlive the actuator. Null: none.
  void SetWriteObserver(WriteObserver* observer);

 private:
  // A knob whose original the journal owes: the kernel holds last_written, which the newest row
  // recorded. Older rows are pending only when closing them failed; the next restore closes them.
  struct ManagedKnob {
    driver::knobs::KnobAddress address;
    int64_t original = 0;
    int64_t last_written = 0;
    std::vector<int64_t> rows;  // pending row ids, oldest first
    store::ChangeState newest_state = store::ChangeState::kJournaled;  // of rows.back()
  };

  // Each needs mutex_ held.
  absl::StatusOr<driver::knobs::KnobAccess*> AccessLocked(
      const driver::knobs::KnobAddress& address);
  absl::StatusOr<int64_t> ReadLocked(const driver::knobs::KnobAddress& address);
  // Steps 2-4 for value over `current`; closes the superseded rows in superseded_state.
  // step: the target's granularity, which tells the kernel's rounding of a write from someone
  // else's write landing between ours and its read-back.
  ActuationResult WriteJournaledLocked(const driver::knobs::KnobAddress& address, int64_t current,
                                       int64_t value, int64_t step, const std::string& reason,
                                       store::ChangeState superseded_state, absl::Time now);
  // Writes the original back and closes every pending row of the knob in final_state.
  ActuationResult PutBackOriginalLocked(const driver::knobs::KnobAddress& address, int64_t original,
                                        const std::vector<int64_t>& rows, int64_t current,
                                        store::ChangeState final_state, const std::string& reason,
                                        absl::Time now);
  ActuationResult ReleaseToSomeoneElseLocked(const driver::knobs::KnobAddress& address,
                                             int64_t original, std::optional<int64_t> ours,
                                             const std::vector<int64_t>& rows, int64_t current,
                                             absl::Time now);
  // Step 1 for Apply and Rollback: kFailed/kReleased/kRefused/kUnsupported end the call.
  std::optional<ActuationResult> CheckOwnershipLocked(const driver::knobs::KnobAddress& address,
                                                      int64_t expected_current, absl::Time now,
                                                      int64_t* current);
  // final_state: how the rows close when the original is put back (restored, or rolled_back
  // for a REST rollback).
  ActuationResult RestorePendingLocked(
      const PendingKnob& knob, const std::string& why, absl::Time now,
      store::ChangeState final_state = store::ChangeState::kRestored);
  ActuationResult AdoptPendingLocked(const PendingKnob& knob, absl::Time now);
  // Closes rows, logging each failure; returns the ids that could not be closed (still pending).
  std::vector<int64_t> CloseRowsLocked(const std::vector<int64_t>& rows, store::ChangeState state,
                                       std::optional<int64_t> value, const std::string& reason,
                                       absl::Time now);
  // The kernel holds `holds`, written under row `id` (in `state`), which owes `original` from now
  // on; rows already pending for the knob stay pending before it.
  void OweLocked(const driver::knobs::KnobAddress& address, int64_t original, int64_t holds,
                 int64_t id, store::ChangeState state);
  void NoteUnsupportedLocked(const driver::knobs::KnobAddress& address, const absl::Status& status);
  // Tells the observer of a write that landed (written ok, read back).
  void NoteWrittenLocked(const driver::knobs::KnobAddress& address, const absl::Status& written,
                         const absl::StatusOr<int64_t>& back);

  const std::vector<driver::knobs::KnobProvider*> providers_;
  store::Journal& journal_;
  const std::string boot_id_;

  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, std::unique_ptr<driver::knobs::KnobAccess>> open_;
  absl::flat_hash_map<std::string, ManagedKnob> managed_;
  absl::flat_hash_set<std::string> released_;
  absl::flat_hash_set<std::string> unsupported_reported_;
  bool resolved_ = false;  // ResolveAtStart has read the journal
  WriteObserver* observer_ = nullptr;
};

}  // namespace nictune::actuate
