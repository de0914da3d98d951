// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/control_step.h"

#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "agent/actuate/knob_key.h"

namespace nictune::actuate {
namespace {

using driver::knobs::KnobAddress;

std::vector<KnobAddress> KnobsToRead(const Actuator& actuator, const tuner::Controller& controller,
                                     const std::vector<tuner::Recommendation>& recommendations) {
  std::vector<KnobAddress> knobs;
  absl::flat_hash_set<std::string> seen;
  for (const tuner::Recommendation& rec : recommendations) {
    if (tuner::ByHandOnly(rec.knob) || rec.scope == tuner::Scope::kSocket) continue;
    KnobAddress address{rec.knob, rec.target};
    if (seen.insert(KnobKey(address)).second) knobs.push_back(std::move(address));
  }
  for (KnobAddress& address : actuator.ManagedKnobs()) {
    if (seen.insert(KnobKey(address)).second) knobs.push_back(std::move(address));
  }
  for (auto& [knob, target] : controller.KnobsHoldingOurValue()) {
    KnobAddress address{knob, std::move(target)};
    if (seen.insert(KnobKey(address)).second) knobs.push_back(std::move(address));
  }
  return knobs;
}

KnobAddress AddressOf(const tuner::Action& action) {
  return std::visit([](const auto& a) { return KnobAddress{a.knob, a.target}; }, action);
}

}  // namespace

ControlStepSummary RunControlStep(Actuator& actuator, tuner::Controller& controller,
                                  const std::vector<tuner::Recommendation>& recommendations,
                                  const tuner::ScopedHealth& health, absl::Time now) {
  ControlStepSummary summary;
  summary.at = now;
  std::vector<KnobAddress> guarding;
  for (const KnobAddress& address : KnobsToRead(actuator, controller, recommendations)) {
    absl::StatusOr<int64_t> value = actuator.Read(address);
    if (!value.ok()) {
      if (std::optional<ActuationResult> gone =
              actuator.ReleaseGone(address, value.status(), now)) {
        // Forgotten and parked for a cooldown, so that a device which comes back under the name
        // is judged afresh afterwards, not as someone else's change of our value. Reported once,
        // as released, not also as unreadable.
        controller.WriteFailed(address.knob, address.target, now);
        summary.gone.push_back(*std::move(gone));
        continue;
      }
      // Nothing owed (the guard rolled our value back, say), but the controller may still
      // remember writing it.
      if (value.status().code() == absl::StatusCode::kNotFound) {
        controller.DeviceGone(address.knob, address.target, now);
      }
      summary.unreadable.push_back({address, value.status()});
      continue;
    }
    tuner::KnobReading reading;
    reading.knob = address.knob;
    reading.target = address.target;
    reading.value = *value;
    summary.readings.push_back(std::move(reading));
    if (controller.ModeOf(address.knob, address.target) == tuner::KnobMode::kGuarding) {
      guarding.push_back(address);
    }
  }

  summary.actions = controller.Step(now, summary.readings, health, recommendations);
  summary.held = controller.LastHeld();

  // A knob that was in its guard window and got neither a rollback nor a release has passed it:
  // the controller keeps the change (and may already take the next step).
  for (const KnobAddress& address : guarding) {
    bool undone = false;
    bool applied = false;
    for (const tuner::Action& action : summary.actions) {
      if (KnobKey(AddressOf(action)) != KnobKey(address)) continue;
      undone = undone || !std::holds_alternative<tuner::Apply>(action);
      applied = applied || std::holds_alternative<tuner::Apply>(action);
    }
    const bool kept = !undone && (applied || controller.ModeOf(address.knob, address.target) !=
                                                 tuner::KnobMode::kGuarding);
    if (!kept) continue;
    std::string reason = "guard window passed: kept";
    for (const tuner::KeptChange& k : controller.LastKept()) {
      if (k.knob == address.knob && k.target == address.target) reason = k.reason;
    }
    if (actuator.MarkVerified(address, reason, now).ok()) {
      summary.verified.push_back(address);
    }
  }

  for (const tuner::Action& action : summary.actions) {
    ActuationResult result = std::visit(
        [&](const auto& a) -> ActuationResult {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, tuner::Apply>) {
            return actuator.Apply(a, now);
          } else if constexpr (std::is_same_v<T, tuner::Rollback>) {
            return actuator.Rollback(a, now);
          } else {
            return actuator.Release(a, now);
          }
        },
        action);
    // A refused or released write is not a failure: the next reading shows the controller
    // someone else's value and it releases the knob itself.
    const bool write_failed =
        !std::holds_alternative<tuner::Release>(action) &&
        (result.outcome == Outcome::kFailed || result.outcome == Outcome::kUnsupported);
    if (write_failed && result.not_journaled && std::holds_alternative<tuner::Apply>(action)) {
      // Not the knob's fault: the knob is untouched and no cooldown is owed. (A rollback that
      // cannot be journaled still parks the knob: the regression it undoes is not retried.)
      controller.WriteNotMade(result.address.knob, result.address.target);
      if (summary.journal_error.ok()) summary.journal_error = result.error;
      ++summary.not_journaled;
    } else if (write_failed) {
      controller.WriteFailed(result.address.knob, result.address.target, now);
      ++summary.writes_failed;
    }
    summary.results.push_back(std::move(result));
  }
  return summary;
}

std::string DescribeControlStep(const ControlStepSummary& summary) {
  std::vector<std::string> parts;
  for (const ActuationResult& result : summary.results) {
    parts.push_back(absl::StrCat(DescribeKnob(result.address), " ", OutcomeName(result.outcome),
                                 ": ", result.message));
  }
  for (const ActuationResult& result : summary.gone) {
    parts.push_back(absl::StrCat(DescribeKnob(result.address), " released: ", result.message));
  }
  for (const UnreadableKnob& knob : summary.unreadable) {
    parts.push_back(
        absl::StrCat(DescribeKnob(knob.address), " unreadable: ", knob.status.message()));
  }
  for (const tuner::Held& held : summary.held) parts.push_back(held.reason);
  return absl::StrFormat(
      "control step: %d knobs read, %d actions, %d held, %d verified, %d writes failed%s%s",
      summary.readings.size(), summary.actions.size(), summary.held.size(), summary.verified.size(),
      summary.writes_failed, parts.empty() ? "" : "; ", absl::StrJoin(parts, "; "));
}

}  // namespace nictune::actuate
