// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/actuator.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "agent/actuate/knob_key.h"
#include "agent/log.h"
#include "agent/store/change_state.h"
#include "tuner/knob.h"

namespace nictune::actuate {
namespace {

using driver::knobs::IsUnsupported;
using driver::knobs::KnobAccess;
using driver::knobs::KnobAddress;
using store::ChangeState;

std::string KnobNameText(tuner::Knob knob) { return std::string(tuner::KnobName(knob)); }

// A driver that rounds to a coarser granularity than the tuner knew (3 us taken as 4) moves a
// write by up to this share of it.
constexpr int64_t kRoundingShareOfValue = 4;  // a quarter

// Whether a read-back that differs from the value written is the kernel's doing: rounding to the
// granularity, or a limit clamping the write, leaves the knob near the value written or between
// it and the value before. Anything else is someone else's write landing between ours and the
// read-back.
bool KernelAdjustedTheWrite(int64_t before, int64_t written, int64_t back, int64_t step) {
  const int64_t slack = std::max({step, int64_t{1}, std::abs(written) / kRoundingShareOfValue});
  return back >= std::min(before, written) - slack && back <= std::max(before, written) + slack;
}

// A status whose message says which knob and which step, keeping the code.
absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

ActuationResult Failed(const KnobAddress& address, absl::Status error) {
  ActuationResult result;
  result.address = address;
  result.outcome = Outcome::kFailed;
  result.message = std::string(error.message());
  result.error = std::move(error);
  return result;
}

ActuationResult Unchanged(const KnobAddress& address, int64_t current) {
  ActuationResult result;
  result.address = address;
  result.outcome = Outcome::kUnchanged;
  result.before = current;
  result.after = current;
  result.message = absl::StrFormat("%s already holds %d", DescribeKnob(address), current);
  return result;
}

// Unsupported knobs and missing devices cannot be restored and owe nothing: a kernel without the
// knob has no value of ours in it, and a device that went away took its settings with it.
bool CannotBeRestored(const absl::Status& status) {
  return IsUnsupported(status) || status.code() == absl::StatusCode::kNotFound;
}

void FileInto(RestoreReport& report, ActuationResult result) {
  switch (result.outcome) {
    case Outcome::kRestored:
      report.restored.push_back(std::move(result));
      return;
    case Outcome::kWritten:
    case Outcome::kKept:
      report.kept.push_back(std::move(result));
      return;
    case Outcome::kFailed:
      report.failed.push_back(std::move(result));
      return;
    case Outcome::kRolledBack:
    case Outcome::kUnchanged:
    case Outcome::kReleased:
    case Outcome::kRefused:
    case Outcome::kUnsupported:
      report.left.push_back(std::move(result));
      return;
  }
}

// One line per knob restored or resolved. A knob left to someone else, or whose device or
// setting is gone, was logged as a warning where that was found.
void LogRestoreResult(const ActuationResult& result) {
  if (result.outcome == Outcome::kReleased || result.outcome == Outcome::kUnsupported) return;
  agent::Log(
      result.outcome == Outcome::kFailed ? agent::LogLevel::kError : agent::LogLevel::kNotice,
      result.message);
}

std::vector<int64_t> RowIds(const PendingKnob& knob) {
  std::vector<int64_t> ids;
  for (const store::ChangeRecord& row : knob.rows) ids.push_back(row.id);
  return ids;
}

}  // namespace

Actuator::Actuator(std::vector<driver::knobs::KnobProvider*> providers, store::Journal& journal,
                   std::string boot_id)
    : providers_(std::move(providers)), journal_(journal), boot_id_(std::move(boot_id)) {}

absl::StatusOr<KnobAccess*> Actuator::AccessLocked(const KnobAddress& address) {
  if (tuner::ByHandOnly(address.knob)) {
    return absl::UnimplementedError(
        absl::StrCat(DescribeKnob(address),
                     ": unsupported: by hand only, nictune recommends it and never "
                     "writes it"));
  }
  const std::string key = KnobKey(address);
  if (auto it = open_.find(key); it != open_.end()) return it->second.get();
  for (driver::knobs::KnobProvider* provider : providers_) {
    absl::StatusOr<std::unique_ptr<KnobAccess>> opened = provider->Open(address);
    if (opened.ok()) {
      KnobAccess* access = opened->get();
      open_[key] = std::move(*opened);
      return access;
    }
    if (opened.status().code() != absl::StatusCode::kNotFound) return opened.status();
  }
  return absl::NotFoundError(absl::StrFormat("open knob %s: none of the %d knob providers owns %s",
                                             DescribeKnob(address), providers_.size(),
                                             address.target));
}

void Actuator::OweLocked(const KnobAddress& address, int64_t original, int64_t holds, int64_t id,
                         ChangeState state) {
  ManagedKnob& knob = managed_[KnobKey(address)];
  knob.address = address;
  knob.original = original;
  knob.last_written = holds;
  knob.rows.push_back(id);
  knob.newest_state = state;
}

void Actuator::NoteUnsupportedLocked(const KnobAddress& address, const absl::Status& status) {
  if (!unsupported_reported_.insert(KnobKey(address)).second) return;
  agent::LogInfo(absl::StrCat(DescribeKnob(address),
                              " is unsupported and will not be managed: ", status.message()));
}

absl::StatusOr<int64_t> Actuator::ReadLocked(const KnobAddress& address) {
  absl::StatusOr<KnobAccess*> access = AccessLocked(address);
  if (!access.ok()) {
    if (IsUnsupported(access.status())) NoteUnsupportedLocked(address, access.status());
    return access.status();
  }
  absl::StatusOr<int64_t> value = (*access)->Read();
  if (!value.ok()) {
    if (IsUnsupported(value.status())) {
      NoteUnsupportedLocked(address, value.status());
    } else {
      // The device may have gone and come back: open it afresh next time.
      open_.erase(KnobKey(address));
    }
  }
  return value;
}

absl::StatusOr<int64_t> Actuator::Read(const KnobAddress& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  return ReadLocked(address);
}

std::vector<int64_t> Actuator::CloseRowsLocked(const std::vector<int64_t>& rows, ChangeState state,
                                               std::optional<int64_t> value,
                                               const std::string& reason, absl::Time now) {
  std::vector<int64_t> still_open;
  for (int64_t id : rows) {
    absl::Status closed = journal_.MarkChange({id, now, state, value, reason});
    if (!closed.ok()) {
      agent::LogError(absl::StrCat("change journal: could not mark change ", id, " ",
                                   store::ChangeStateName(state), ": ", closed.message(),
                                   "; it stays pending and the next restore retries it"));
      still_open.push_back(id);
    }
  }
  return still_open;
}

ActuationResult Actuator::ReleaseToSomeoneElseLocked(const KnobAddress& address, int64_t original,
                                                     std::optional<int64_t> ours,
                                                     const std::vector<int64_t>& rows,
                                                     int64_t current, absl::Time now) {
  const std::string reason = absl::StrFormat(
      "%s: was %d (we wrote %s), now %d: someone else owns %s; never written again this boot",
      kChangedBySomeoneElse, original, ours ? absl::StrCat(*ours) : "nothing yet", current,
      DescribeKnob(address));
  const std::vector<int64_t> still_open =
      CloseRowsLocked(rows, ChangeState::kReleased, std::nullopt, reason, now);
  const std::string key = KnobKey(address);
  released_.insert(key);
  managed_.erase(key);
  agent::LogWarning(reason);
  ActuationResult result;
  result.address = address;
  result.outcome = Outcome::kReleased;
  result.before = current;
  result.after = current;
  result.change_id = rows.empty() ? 0 : rows.back();
  result.message = reason;
  if (!still_open.empty()) {
    result.error = absl::InternalError(absl::StrCat(
        reason, "; journal rows ", absl::StrJoin(still_open, ","), " could not be released"));
  }
  return result;
}

std::optional<ActuationResult> Actuator::CheckOwnershipLocked(const KnobAddress& address,
                                                              int64_t expected_current,
                                                              absl::Time now, int64_t* current) {
  const std::string key = KnobKey(address);
  if (!resolved_) {
    return Failed(address,
                  absl::FailedPreconditionError(absl::StrCat(
                      DescribeKnob(address),
                      ": not written: the change journal has not been resolved at start")));
  }
  if (released_.contains(key)) {
    ActuationResult refused;
    refused.address = address;
    refused.outcome = Outcome::kRefused;
    refused.message =
        absl::StrCat(DescribeKnob(address), " was released to someone else this boot: not written");
    return refused;
  }
  absl::StatusOr<int64_t> read = ReadLocked(address);
  if (!read.ok()) {
    ActuationResult result = Failed(address, read.status());
    if (IsUnsupported(read.status())) result.outcome = Outcome::kUnsupported;
    return result;
  }
  *current = *read;
  if (auto it = managed_.find(key); it != managed_.end() && *read != it->second.last_written) {
    return ReleaseToSomeoneElseLocked(address, it->second.original, it->second.last_written,
                                      it->second.rows, *read, now);
  }
  if (*read != expected_current) {
    ActuationResult result =
        Failed(address, absl::FailedPreconditionError(absl::StrFormat(
                            "%s changed from %d to %d since the controller read it: not written",
                            DescribeKnob(address), expected_current, *read)));
    result.before = *read;
    return result;
  }
  return std::nullopt;
}

ActuationResult Actuator::PutBackOriginalLocked(const KnobAddress& address, int64_t original,
                                                const std::vector<int64_t>& rows, int64_t current,
                                                ChangeState final_state, const std::string& reason,
                                                absl::Time now) {
  const std::string name = DescribeKnob(address);
  if (current != original) {
    absl::StatusOr<KnobAccess*> access = AccessLocked(address);
    if (!access.ok()) return Failed(address, access.status());
    absl::Status written = (*access)->Write(original);
    if (!written.ok()) {
      ActuationResult result = Failed(
          address,
          Annotate(written, absl::StrFormat("put back the original %d of %s", original, name)));
      result.before = current;
      return result;
    }
    absl::StatusOr<int64_t> back = ReadLocked(address);
    NoteWrittenLocked(address, written, back);
    if (!back.ok() || *back != original) {
      const std::string got =
          back.ok() ? absl::StrCat(*back) : std::string(back.status().message());
      ActuationResult result =
          Failed(address,
                 absl::DataLossError(absl::StrFormat(
                     "%s: wrote the original %d, read back %s; still owed", name, original, got)));
      result.before = current;
      if (back.ok()) {
        result.after = *back;
        // We caused this value: remember it so it is not mistaken for someone else's.
        if (auto it = managed_.find(KnobKey(address)); it != managed_.end()) {
          it->second.last_written = *back;
        }
      }
      return result;
    }
  }
  const std::vector<int64_t> still_open = CloseRowsLocked(rows, final_state, original, reason, now);
  managed_.erase(KnobKey(address));
  ActuationResult result;
  result.address = address;
  result.outcome =
      final_state == ChangeState::kRolledBack ? Outcome::kRolledBack : Outcome::kRestored;
  result.before = current;
  result.after = original;
  result.change_id = rows.empty() ? 0 : rows.back();
  result.message = reason;
  if (!still_open.empty()) {
    // The original is in the kernel; the journal rows say otherwise until the next restore finds
    // the original there and closes them.
    result.outcome = Outcome::kFailed;
    result.error = absl::InternalError(
        absl::StrFormat("%s: the original %d is back but journal rows %s could not be closed", name,
                        original, absl::StrJoin(still_open, ",")));
  }
  return result;
}

ActuationResult Actuator::WriteJournaledLocked(const KnobAddress& address, int64_t current,
                                               int64_t value, int64_t step,
                                               const std::string& reason,
                                               ChangeState superseded_state, absl::Time now) {
  const std::string key = KnobKey(address);
  const std::string name = DescribeKnob(address);
  auto managed_it = managed_.find(key);
  const bool managed = managed_it != managed_.end();
  const int64_t original = managed ? managed_it->second.original : current;
  std::vector<int64_t> superseded;
  if (managed) superseded = managed_it->second.rows;

  ActuationResult result;
  result.address = address;
  result.before = current;

  absl::StatusOr<KnobAccess*> access = AccessLocked(address);
  if (!access.ok()) return Failed(address, access.status());

  // Step 2: the original is on disk before the kernel is touched.
  absl::StatusOr<int64_t> id = journal_.JournalOriginal(
      {boot_id_, now, KnobNameText(address.knob), address.target, original, reason});
  if (!id.ok()) {
    ActuationResult failed =
        Failed(address, Annotate(id.status(), absl::StrFormat("journal the original %d of %s "
                                                              "before writing %d (not written)",
                                                              original, name, value)));
    failed.before = current;
    failed.after = current;
    failed.not_journaled = true;
    return failed;
  }
  result.change_id = *id;

  // Step 3: write and read back.
  absl::Status written = (*access)->Write(value);
  absl::StatusOr<int64_t> back = ReadLocked(address);
  NoteWrittenLocked(address, written, back);
  if (!written.ok() && back.ok() && *back == current) {
    const std::string why = absl::StrFormat("write of %d failed: %s; the kernel still holds %d",
                                            value, written.message(), current);
    CloseRowsLocked({*id}, ChangeState::kReleased, std::nullopt, why, now);
    ActuationResult failed = Failed(address, Annotate(written, absl::StrCat("apply ", value)));
    if (IsUnsupported(written)) {
      NoteUnsupportedLocked(address, written);
      failed.outcome = Outcome::kUnsupported;
    }
    failed.before = current;
    failed.after = current;
    failed.change_id = *id;
    return failed;
  }
  if (!back.ok()) {
    // Whether the value landed is unknown: the row stays journaled, which restore and the start-up
    // resolution read as a half-written change of ours and undo.
    OweLocked(address, original, written.ok() ? value : current, *id, ChangeState::kJournaled);
    ActuationResult failed = Failed(
        address, Annotate(back.status(), absl::StrFormat("read back %s after writing %d%s", name,
                                                         value, written.ok() ? "" : " (failed)")));
    failed.before = current;
    failed.change_id = *id;
    return failed;
  }
  if (written.ok() && *back != value && !KernelAdjustedTheWrite(current, value, *back, step)) {
    // Someone wrote the knob between our write and its read-back: the value is theirs to keep.
    std::vector<int64_t> rows = superseded;
    rows.push_back(*id);
    return ReleaseToSomeoneElseLocked(address, original, value, rows, *back, now);
  }
  if (!written.ok() || *back != value) {
    // The kernel holds a value we did not ask for (a driver rounding rx-usecs, a clamped sysctl,
    // a failed write that still changed something): put the original back.
    const std::string what = written.ok() ? absl::StrFormat("wrote %d, read back %d", value, *back)
                                          : absl::StrFormat("write of %d failed (%s), read back %d",
                                                            value, written.message(), *back);
    std::vector<int64_t> rows = superseded;
    rows.push_back(*id);
    if (managed) managed_it->second.last_written = *back;
    ActuationResult undone =
        PutBackOriginalLocked(address, original, rows, *back, ChangeState::kRestored,
                              absl::StrFormat("%s: put back the original %d", what, original), now);
    ActuationResult failed =
        Failed(address, absl::DataLossError(absl::StrFormat(
                            "%s: %s; %s", name, what,
                            undone.outcome == Outcome::kRestored
                                ? absl::StrFormat("the original %d is back", original)
                                : undone.message)));
    failed.before = current;
    failed.after = undone.after;
    failed.change_id = *id;
    if (undone.outcome != Outcome::kRestored) {
      // Our value is in the kernel and recorded, so restore knows it is ours.
      const int64_t holds = undone.after.value_or(*back);
      absl::Status marked = journal_.MarkChange(
          {*id, now, ChangeState::kApplied, holds,
           absl::StrFormat("%s; putting back the original failed: %s", what, undone.message)});
      OweLocked(address, original, holds, *id,
                marked.ok() ? ChangeState::kApplied : ChangeState::kJournaled);
    }
    return failed;
  }

  absl::Status marked = journal_.MarkChange({*id, now, ChangeState::kApplied, value, reason});
  if (!marked.ok()) {
    // The value is in the kernel; the row stays journaled, which restore treats as ours.
    agent::LogError(absl::StrCat("change journal: ", marked.message()));
  }
  // Step 4: the rows before this one no longer owe anything: the new row owes the original.
  const std::optional<int64_t> superseded_value =
      superseded_state == ChangeState::kRolledBack ? std::optional<int64_t>(value) : std::nullopt;
  // Rows that could not be closed stay pending before the new one.
  managed_[key].rows =
      CloseRowsLocked(superseded, superseded_state, superseded_value,
                      absl::StrFormat("superseded by change %d: %s", *id, reason), now);
  OweLocked(address, original, value, *id,
            marked.ok() ? ChangeState::kApplied : ChangeState::kJournaled);

  result.outcome =
      superseded_state == ChangeState::kRolledBack ? Outcome::kRolledBack : Outcome::kWritten;
  result.after = value;
  result.message = reason;
  if (!marked.ok()) result.error = marked;
  return result;
}

ActuationResult Actuator::Apply(const tuner::Apply& action, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const KnobAddress address{action.knob, action.target};
  int64_t current = 0;
  if (std::optional<ActuationResult> stop =
          CheckOwnershipLocked(address, action.from, now, &current)) {
    return *stop;
  }
  if (current == action.value) return Unchanged(address, current);
  return WriteJournaledLocked(address, current, action.value, action.step, action.reason,
                              ChangeState::kReleased, now);
}

ActuationResult Actuator::Rollback(const tuner::Rollback& action, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const KnobAddress address{action.knob, action.target};
  int64_t current = 0;
  if (std::optional<ActuationResult> stop =
          CheckOwnershipLocked(address, action.from, now, &current)) {
    return *stop;
  }
  auto it = managed_.find(KnobKey(address));
  if (it != managed_.end() && action.value == it->second.original) {
    return PutBackOriginalLocked(address, it->second.original, it->second.rows, current,
                                 ChangeState::kRolledBack, action.reason, now);
  }
  if (current == action.value) return Unchanged(address, current);
  // A rollback writes a value the knob held before, which the kernel takes as it is.
  return WriteJournaledLocked(address, current, action.value, /*step=*/1, action.reason,
                              ChangeState::kRolledBack, now);
}

ActuationResult Actuator::RollbackToOriginal(const KnobAddress& address, const std::string& reason,
                                             absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = managed_.find(KnobKey(address));
  if (it == managed_.end() && !resolved_ && !released_.contains(KnobKey(address))) {
    // The journal was never resolved (recommend or observe mode): what this boot owes is in its
    // rows alone, as restore finds it (a crashed apply-mode agent's changes).
    absl::StatusOr<std::vector<store::ChangeRecord>> pending = journal_.PendingChanges(boot_id_);
    if (!pending.ok()) {
      return Failed(address, Annotate(pending.status(), "rollback: read the pending changes"));
    }
    for (const PendingKnob& knob : GroupPendingByKnob(*pending).knobs) {
      if (KnobKey(knob.address) != KnobKey(address)) continue;
      return RestorePendingLocked(knob, reason, now, ChangeState::kRolledBack);
    }
  }
  if (it == managed_.end()) {
    ActuationResult result;
    result.address = address;
    result.outcome = released_.contains(KnobKey(address)) ? Outcome::kRefused : Outcome::kUnchanged;
    result.message =
        absl::StrCat(DescribeKnob(address), ": no change of ours is pending: nothing to roll back");
    return result;
  }
  int64_t current = 0;
  if (std::optional<ActuationResult> stop =
          CheckOwnershipLocked(address, it->second.last_written, now, &current)) {
    return *stop;
  }
  it = managed_.find(KnobKey(address));
  return PutBackOriginalLocked(address, it->second.original, it->second.rows, current,
                               ChangeState::kRolledBack, reason, now);
}

ActuationResult Actuator::Release(const tuner::Release& action, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const KnobAddress address{action.knob, action.target};
  const std::string key = KnobKey(address);
  auto it = managed_.find(key);
  if (it == managed_.end()) {
    released_.insert(key);
    ActuationResult result;
    result.address = address;
    result.outcome = Outcome::kReleased;
    result.message = action.reason;
    return result;
  }
  absl::StatusOr<int64_t> current = ReadLocked(address);
  if (!current.ok()) return Failed(address, current.status());
  if (*current == it->second.last_written) {
    ActuationResult kept;
    kept.address = address;
    kept.outcome = Outcome::kKept;
    kept.before = *current;
    kept.after = *current;
    kept.message = absl::StrFormat(
        "%s: the controller released it (%s) but the kernel still holds our %d: the original %d "
        "stays owed",
        DescribeKnob(address), action.reason, *current, it->second.original);
    agent::LogWarning(kept.message);
    return kept;
  }
  return ReleaseToSomeoneElseLocked(address, it->second.original, it->second.last_written,
                                    it->second.rows, *current, now);
}

std::optional<ActuationResult> Actuator::ReleaseGone(const KnobAddress& address,
                                                     const absl::Status& read_error,
                                                     absl::Time now) {
  if (read_error.code() != absl::StatusCode::kNotFound) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = managed_.find(KnobKey(address));
  if (it == managed_.end()) return std::nullopt;
  const ManagedKnob knob = it->second;
  const std::string reason = absl::StrFormat(
      "%s went away with our %d (%s); a device that comes back under the name is another one: "
      "its original %d is owed to nobody and restore leaves the name alone",
      DescribeKnob(address), knob.last_written, read_error.message(), knob.original);
  const std::vector<int64_t> still_open =
      CloseRowsLocked(knob.rows, ChangeState::kReleased, std::nullopt, reason, now);
  managed_.erase(it);
  open_.erase(KnobKey(address));
  ActuationResult result;
  result.address = address;
  result.outcome = Outcome::kReleased;
  result.before = knob.last_written;
  result.change_id = knob.rows.empty() ? 0 : knob.rows.back();
  result.message = reason;
  result.error = read_error;
  if (!still_open.empty()) {
    result.error = absl::InternalError(absl::StrCat(
        reason, "; journal rows ", absl::StrJoin(still_open, ","), " could not be released"));
  }
  return result;
}

absl::Status Actuator::MarkVerified(const KnobAddress& address, const std::string& reason,
                                    absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = managed_.find(KnobKey(address));
  if (it == managed_.end() || it->second.rows.empty()) {
    return absl::NotFoundError(
        absl::StrCat("mark verified ", DescribeKnob(address), ": no change of ours is pending"));
  }
  ManagedKnob& knob = it->second;
  if (knob.newest_state != ChangeState::kApplied) return absl::OkStatus();
  absl::Status marked =
      journal_.MarkChange({knob.rows.back(), now, ChangeState::kVerified, std::nullopt, reason});
  if (marked.ok()) knob.newest_state = ChangeState::kVerified;
  return marked;
}

ActuationResult Actuator::RestorePendingLocked(const PendingKnob& knob, const std::string& why,
                                               absl::Time now, ChangeState final_state) {
  const std::vector<int64_t> ids = RowIds(knob);
  absl::StatusOr<int64_t> current = ReadLocked(knob.address);
  if (!current.ok()) {
    if (!CannotBeRestored(current.status())) return Failed(knob.address, current.status());
    const std::string reason = absl::StrFormat("%s: cannot put back the original %d: %s", why,
                                               knob.original, current.status().message());
    CloseRowsLocked(ids, ChangeState::kReleased, std::nullopt, reason, now);
    managed_.erase(KnobKey(knob.address));
    agent::LogWarning(reason);
    ActuationResult result;
    result.address = knob.address;
    result.outcome = Outcome::kUnsupported;
    result.change_id = ids.back();
    result.message = reason;
    result.error = current.status();
    return result;
  }
  switch (ClassifyKernelValue(knob, *current)) {
    case KernelHolds::kOriginal:
    case KernelHolds::kOurValue:
    case KernelHolds::kHalfWritten:
      return PutBackOriginalLocked(
          knob.address, knob.original, ids, *current, final_state,
          absl::StrFormat("%s: the kernel held %d, put back the original %d", why, *current,
                          knob.original),
          now);
    case KernelHolds::kSomeoneElses:
      break;
  }
  return ReleaseToSomeoneElseLocked(knob.address, knob.original, LastRecordedValue(knob), ids,
                                    *current, now);
}

ActuationResult Actuator::AdoptPendingLocked(const PendingKnob& knob, absl::Time now) {
  const std::string why = "after a crash of this boot (policy keep)";
  absl::StatusOr<int64_t> current = ReadLocked(knob.address);
  if (!current.ok()) return RestorePendingLocked(knob, why, now);  // same handling of a read error
  PendingKnob ours = knob;
  int64_t holds = *current;
  switch (ClassifyKernelValue(knob, *current)) {
    case KernelHolds::kOriginal:
    case KernelHolds::kSomeoneElses:
      return RestorePendingLocked(knob, why, now);
    case KernelHolds::kOurValue:
      break;
    case KernelHolds::kHalfWritten: {
      // The newest row's write landed but was never recorded: undo it to the last recorded value,
      // which the journal vouches for (the original when no row got that far).
      const std::optional<int64_t> recorded = LastRecordedValue(knob);
      if (!recorded) return RestorePendingLocked(knob, why, now);
      absl::StatusOr<KnobAccess*> access = AccessLocked(knob.address);
      if (!access.ok()) return Failed(knob.address, access.status());
      absl::Status written = (*access)->Write(*recorded);
      absl::StatusOr<int64_t> back = ReadLocked(knob.address);
      NoteWrittenLocked(knob.address, written, back);
      if (!written.ok() || !back.ok() || *back != *recorded) {
        return Failed(knob.address,
                      absl::DataLossError(absl::StrFormat(
                          "%s %s: undo the interrupted write (kernel held %d) to the recorded %d: "
                          "%s; still owed",
                          why, DescribeKnob(knob.address), *current, *recorded,
                          !written.ok() ? written.message()
                          : !back.ok()  ? back.status().message()
                                        : absl::StrCat("read back ", *back))));
      }
      const int64_t interrupted = knob.rows.back().id;
      CloseRowsLocked({interrupted}, ChangeState::kReleased, std::nullopt,
                      absl::StrFormat("%s: the write of change %d was interrupted (the kernel held "
                                      "%d, recorded nowhere); put back %d",
                                      why, interrupted, *current, *recorded),
                      now);
      ours.rows.pop_back();
      holds = *recorded;
      break;
    }
  }
  // The newest row recording the kernel's value owes the original from now on; the others close.
  size_t keep = ours.rows.size() - 1;
  while (ours.rows[keep].new_value != holds) --keep;
  std::vector<int64_t> others;
  for (size_t i = 0; i < ours.rows.size(); ++i) {
    if (i != keep) others.push_back(ours.rows[i].id);
  }
  const store::ChangeRecord& kept_row = ours.rows[keep];
  // Rows that could not be closed stay pending before the kept one.
  managed_[KnobKey(knob.address)].rows = CloseRowsLocked(
      others, ChangeState::kReleased, std::nullopt,
      absl::StrFormat("%s: the kernel holds %d, recorded by change %d, which owes the original now",
                      why, holds, kept_row.id),
      now);
  OweLocked(knob.address, knob.original, holds, kept_row.id, kept_row.state);

  ActuationResult result;
  result.address = knob.address;
  result.outcome = Outcome::kKept;
  result.before = *current;
  result.after = holds;
  result.change_id = kept_row.id;
  result.message =
      absl::StrFormat("%s: %s holds our %d (change %d, original %d): managed again", why,
                      DescribeKnob(knob.address), holds, kept_row.id, knob.original);
  return result;
}

RestoreReport Actuator::RestoreAll(absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  RestoreReport report;
  absl::StatusOr<std::vector<store::ChangeRecord>> pending = journal_.PendingChanges(boot_id_);
  if (!pending.ok()) {
    report.error = Annotate(pending.status(), "restore: read the pending changes");
    return report;
  }
  PendingByKnob grouped = GroupPendingByKnob(*pending);
  for (const store::ChangeRecord& row : grouped.unknown_knob) {
    const std::string reason = absl::StrFormat(
        "restore: change %d names knob \"%s\", unknown to this nictuned", row.id, row.knob);
    CloseRowsLocked({row.id}, ChangeState::kReleased, std::nullopt, reason, now);
    agent::LogWarning(reason);
  }
  for (const PendingKnob& knob : grouped.knobs) {
    ActuationResult result = RestorePendingLocked(knob, "restore", now);
    LogRestoreResult(result);
    FileInto(report, std::move(result));
  }
  return report;
}

RestoreReport Actuator::ResolveAtStart(PendingPolicy policy, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  RestoreReport report;
  absl::StatusOr<std::vector<store::ChangeRecord>> all =
      journal_.ChangesSince(absl::InfinitePast());
  if (!all.ok()) {
    report.error = Annotate(all.status(), "resolve the change journal at start");
    return report;
  }
  for (const store::ChangeRecord& row : *all) {
    std::optional<tuner::Knob> knob = ParseKnobName(row.knob);
    if (row.boot_id != boot_id_) {
      if (!store::IsPending(row.state)) continue;
      // A reboot reset the knob to its default, and that default is what the kernel holds now:
      // replaying an original from another boot would be a write nobody asked for.
      const std::string reason = absl::StrFormat(
          "stale: change %d of %s %s was journaled in boot %s, this is boot %s; the reboot reset "
          "it, so its original %d is never replayed",
          row.id, row.knob, row.target, row.boot_id, boot_id_, row.original);
      CloseRowsLocked({row.id}, ChangeState::kReleased, std::nullopt, reason, now);
      agent::Log(agent::LogLevel::kNotice, reason);
      ActuationResult result;
      if (knob) result.address = {*knob, row.target};
      result.outcome = Outcome::kReleased;
      result.change_id = row.id;
      result.message = reason;
      report.left.push_back(std::move(result));
      continue;
    }
    if (knob && row.state == ChangeState::kReleased &&
        absl::StartsWith(row.reason, kChangedBySomeoneElse)) {
      released_.insert(KnobKey({*knob, row.target}));
    }
  }
  absl::StatusOr<std::vector<store::ChangeRecord>> pending = journal_.PendingChanges(boot_id_);
  if (!pending.ok()) {
    report.error = Annotate(pending.status(), "resolve the change journal at start");
    return report;
  }
  resolved_ = true;
  PendingByKnob grouped = GroupPendingByKnob(*pending);
  for (const store::ChangeRecord& row : grouped.unknown_knob) {
    const std::string reason = absl::StrFormat(
        "after a crash: change %d names knob \"%s\", unknown to this nictuned", row.id, row.knob);
    CloseRowsLocked({row.id}, ChangeState::kReleased, std::nullopt, reason, now);
    agent::LogWarning(reason);
  }
  for (const PendingKnob& knob : grouped.knobs) {
    ActuationResult result =
        policy == PendingPolicy::kRestore
            ? RestorePendingLocked(knob, "after a crash of this boot (policy restore)", now)
            : AdoptPendingLocked(knob, now);
    LogRestoreResult(result);
    FileInto(report, std::move(result));
  }
  return report;
}

std::vector<KnobAddress> Actuator::ManagedKnobs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<KnobAddress> knobs;
  for (const auto& [key, knob] : managed_) knobs.push_back(knob.address);
  return knobs;
}

bool Actuator::IsReleased(const KnobAddress& address) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return released_.contains(KnobKey(address));
}

void Actuator::SetWriteObserver(WriteObserver* observer) {
  std::lock_guard<std::mutex> lock(mutex_);
  observer_ = observer;
}

void Actuator::NoteWrittenLocked(const KnobAddress& address, const absl::Status& written,
                                 const absl::StatusOr<int64_t>& back) {
  if (observer_ != nullptr && written.ok() && back.ok()) observer_->Wrote(address, *back);
}

}  // namespace nictune::actuate
