// SPDX-License-Identifier: Apache-2.0
#include "tuner/controller.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::tuner {
namespace {

Controller::KnobKey Key(Knob knob, const std::string& target) { return {knob, target}; }

const Recommendation* FindRecommendation(const std::vector<Recommendation>& recs, Knob knob,
                                         const std::string& target) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob && r.target == target) return &r;
  }
  return nullptr;
}

// The bounded step from current toward wanted: within [current / 2, max(current, 1) * 2], its
// bounds on multiples of the knob's step (the target's granularity), but straight to wanted when
// that switches a ZeroMeansOff knob on or off (rx-frames 0 -> 2 would be a 30x interrupt rate,
// not a small step).
int64_t BoundedStep(Knob knob, int64_t current, int64_t wanted, int64_t step) {
  if (ZeroMeansOff(knob) && (current == 0 || wanted == 0)) return wanted;
  const int64_t s = std::max<int64_t>(1, step);
  const int64_t low = (current / 2 + s - 1) / s * s;
  const int64_t high = std::max<int64_t>(current, 1) * 2 / s * s;
  // A step coarser than the bounds leaves no multiple of it between them: go to wanted, which is
  // one.
  if (low > high || high == 0) return wanted;
  return std::clamp(wanted, low, high);
}

// ", of which stalls explain 120.00/s and 0.00/s" when either window had stall-explained drops
// (delivery stalls and stalled readers).
std::string StallText(const Health& now, const Health& baseline) {
  if (now.stall_drops_per_s <= 0 && baseline.stall_drops_per_s <= 0) return "";
  return absl::StrFormat(", of which stalls explain %.2f/s and %.2f/s", now.stall_drops_per_s,
                         baseline.stall_drops_per_s);
}

// Drops the window's delivery stalls do not explain: what a setting is judged on.
double UnexplainedDrops(const Health& health) {
  return std::max(0.0, health.drops_per_s - health.stall_drops_per_s);
}

// +1 for a step up, -1 for one down.
int Direction(int64_t from, int64_t to) { return to > from ? 1 : -1; }

// The kept reason's tail for a step that left the drops as they were.
std::string IneffectiveText(const IneffectiveStep& step, absl::Duration cooldown) {
  return absl::StrFormat(
      "; the drops beyond stalls it was taken at did not fall (%.2f/s, %.2f/s over the guard "
      "window): no further step this way until %s",
      step.drops_before_per_s, step.drops_after_per_s,
      absl::FormatTime(step.kept_at + cooldown, absl::UTCTimeZone()));
}

std::string IneffectiveHoldText(const IneffectiveStep& step, absl::Duration cooldown) {
  return absl::StrFormat(
      "the last step this way, %d -> %d, did not lower the drops beyond stalls (%.2f/s before, "
      "%.2f/s after): they are not this knob's doing (a reader's pauses, say), and another step "
      "this way waits until %s",
      step.from, step.to, step.drops_before_per_s, step.drops_after_per_s,
      absl::FormatTime(step.kept_at + cooldown, absl::UTCTimeZone()));
}

}  // namespace

const Health& ScopedHealth::For(Knob knob, const std::string& target) const {
  if (ActsOnHost(knob)) return host;
  auto it = devices.find(target.substr(0, target.find(' ')));  // "eth0 rx 3": its device
  return it == devices.end() ? host : it->second;
}

Controller::Controller(ControllerConfig config) : config_(config) {}

// Steps run once per window, whose close jitters by milliseconds: a span of whole windows has
// passed at the close that ends it, also when that close came a little early.
bool Controller::Passed(absl::Time since, absl::Duration span, absl::Time now) const {
  return now - since >= span - config_.window / 10;
}

bool Controller::Regressed(const Health& now, const Health& baseline, bool judge_cpu) const {
  const double drops = UnexplainedDrops(now);
  const double baseline_drops = UnexplainedDrops(baseline);
  const double drop_limit =
      baseline_drops * (1 + config_.drop_tolerance_ratio) + config_.drop_tolerance_per_s;
  const double cpu_limit = baseline.cpu_share + config_.cpu_tolerance +
                           (FewerDrops(drops, baseline_drops) ? config_.cpu_for_fewer_drops : 0);
  const bool comparable_cpu = now.napi_pollers == baseline.napi_pollers;
  return drops > drop_limit || (judge_cpu && comparable_cpu && now.cpu_share > cpu_limit);
}

bool Controller::FewerDrops(double drops_per_s, double baseline_drops_per_s) const {
  return drops_per_s * (1 + config_.drop_tolerance_ratio) + config_.drop_tolerance_per_s <
         baseline_drops_per_s;
}

std::optional<IneffectiveStep> Controller::IneffectiveIfSo(Knob knob, const KnobState& st,
                                                           int64_t value, absl::Time at) const {
  const double before = UnexplainedDrops(st.baseline);
  const double after = st.guard_unexplained_drops / std::max(1, st.guard_windows);
  const bool against_drops = before > config_.drop_tolerance_per_s;
  if (!ActsOnLiveTraffic(knob) || !against_drops || FewerDrops(after, before)) return std::nullopt;
  return IneffectiveStep{.kept_at = at,
                         .from = st.before_change,
                         .to = value,
                         .drops_before_per_s = before,
                         .drops_after_per_s = after};
}

// A value that dropped beyond its stalls before the change is no safe place to wait a cooldown
// at: the knob is tried again after a guard window, twice as long with each rollback in a row,
// up to the cooldown.
absl::Duration Controller::ParkAfterRollback(const KnobState& st) const {
  if (UnexplainedDrops(st.baseline) <= config_.drop_tolerance_per_s) return config_.cooldown;
  const int doublings = std::min(st.rollbacks_in_a_row - 1, 20);
  return std::min(config_.cooldown, config_.guard * (int64_t{1} << std::max(doublings, 0)));
}

std::vector<Action> Controller::Step(absl::Time now, const std::vector<KnobReading>& readings,
                                     const ScopedHealth& scoped,
                                     const std::vector<Recommendation>& recommendations) {
  std::vector<Action> actions;
  before_apply_.clear();
  held_.clear();
  kept_.clear();
  for (const KnobReading& reading : readings) {
    KnobState& st = knobs_[Key(reading.knob, reading.target)];
    const Health& health = scoped.For(reading.knob, reading.target);
    const std::string name = absl::StrCat(std::string(KnobName(reading.knob)), " ", reading.target);
    if (st.mode == KnobMode::kReleased) continue;

    if (st.last_written.has_value() && reading.value != *st.last_written) {
      Release release;
      release.knob = reading.knob;
      release.target = reading.target;
      release.expected = *st.last_written;
      release.found = reading.value;
      release.owner = reading.changed_by.empty() ? "unknown" : reading.changed_by;
      release.changed_at = reading.changed_at.value_or(now);
      release.reason = absl::StrFormat(
          "%s: we wrote %d, found %d (changed by %s at %s): a person owns it now; no longer "
          "managed",
          name, release.expected, release.found, release.owner,
          absl::FormatTime(release.changed_at, absl::UTCTimeZone()));
      st.mode = KnobMode::kReleased;
      actions.push_back(std::move(release));
      continue;
    }

    if (st.mode == KnobMode::kGuarding) {
      if (Regressed(health, st.baseline, st.cpu_judged)) {
        Rollback rollback;
        rollback.knob = reading.knob;
        rollback.target = reading.target;
        rollback.from = reading.value;
        rollback.value = st.before_change;
        ++st.rollbacks_in_a_row;
        const absl::Time parked_until = now + ParkAfterRollback(st);
        rollback.reason = absl::StrFormat(
            "%s: %d -> %d made things worse within the guard window (drops %.2f/s vs baseline "
            "%.2f/s%s, CPU %.3f vs %.3f): roll back to %d and park until %s",
            name, st.before_change, reading.value, health.drops_per_s, st.baseline.drops_per_s,
            StallText(health, st.baseline), health.cpu_share, st.baseline.cpu_share,
            st.before_change, absl::FormatTime(parked_until, absl::UTCTimeZone()));
        st.last_written = st.before_change;
        st.mode = KnobMode::kParked;
        st.parked_until = parked_until;
        st.changed_at = now;
        actions.push_back(std::move(rollback));
        continue;
      }
      st.guard_unexplained_drops += UnexplainedDrops(health);
      ++st.guard_windows;
      if (!Passed(st.changed_at, config_.guard, now)) continue;
      st.mode = KnobMode::kIdle;  // kept
      st.ineffective = IneffectiveIfSo(reading.knob, st, reading.value, now);
      kept_.push_back(KeptChange{
          .knob = reading.knob,
          .target = reading.target,
          .reason = absl::StrCat(
              absl::StrFormat(
                  "guard window passed: kept (drops %.2f/s vs baseline %.2f/s%s, CPU %.3f vs "
                  "%.3f)",
                  health.drops_per_s, st.baseline.drops_per_s, StallText(health, st.baseline),
                  health.cpu_share, st.baseline.cpu_share),
              st.ineffective ? IneffectiveText(*st.ineffective, config_.cooldown) : "")});
      st.rollbacks_in_a_row = 0;
    }
    if (st.mode == KnobMode::kParked) {
      if (now < st.parked_until) continue;
      st.mode = KnobMode::kIdle;
    }

    const Recommendation* rec = FindRecommendation(recommendations, reading.knob, reading.target);
    if (rec == nullptr || rec->recommended == reading.value) continue;
    if (!Passed(st.changed_at, config_.window, now)) continue;
    const auto hold = [&](HeldFor why, const std::string& text) {
      held_.push_back(Held{.knob = reading.knob,
                           .target = reading.target,
                           .recommended = rec->recommended,
                           .why = why,
                           .reason = absl::StrCat(name, ": ", reading.value, " -> ",
                                                  rec->recommended, " held: ", text)});
    };
    if (rec->expected_gain < config_.min_gain) {
      hold(HeldFor::kGain,
           absl::StrFormat("expected gain %.2f < %.2f", rec->expected_gain, config_.min_gain));
      continue;
    }
    if (rec->confidence.value < config_.min_confidence) {
      hold(HeldFor::kConfidence,
           absl::StrFormat("confidence %.2f < %.2f (%s)", rec->confidence.value,
                           config_.min_confidence, rec->confidence.reason));
      continue;
    }
    const int64_t value = BoundedStep(reading.knob, reading.value, rec->recommended, rec->step);
    if (value == reading.value) continue;
    const int direction = Direction(reading.value, value);
    const bool reversal = st.direction != 0 && direction != st.direction;
    if (reversal && now - st.last_reversal_at < config_.cooldown) {
      hold(HeldFor::kReversal,
           absl::StrCat(
               "it reverses the last change's direction, which waits until ",
               absl::FormatTime(st.last_reversal_at + config_.cooldown, absl::UTCTimeZone())));
      continue;
    }
    if (st.ineffective && direction == Direction(st.ineffective->from, st.ineffective->to) &&
        now - st.ineffective->kept_at < config_.cooldown) {
      hold(HeldFor::kIneffective, IneffectiveHoldText(*st.ineffective, config_.cooldown));
      continue;
    }
    before_apply_[Key(reading.knob, reading.target)] = st;
    if (reversal) st.last_reversal_at = now;

    Apply apply;
    apply.knob = reading.knob;
    apply.target = reading.target;
    apply.from = reading.value;
    apply.value = value;
    apply.step = rec->step;
    apply.reason = absl::StrFormat(
        "%s: %d -> %d (%s %d; expected gain %.2f >= %.2f, confidence %.2f >= %.2f): %s", name,
        reading.value, value,
        value == rec->recommended ? "recommended" : "step bounded to x2 or /2 toward",
        rec->recommended, rec->expected_gain, config_.min_gain, rec->confidence.value,
        config_.min_confidence, rec->formula);
    st.mode = KnobMode::kGuarding;
    st.before_change = reading.value;
    st.last_written = value;
    st.baseline = health;
    st.guard_unexplained_drops = 0;
    st.guard_windows = 0;
    st.changed_at = now;
    st.direction = direction;
    st.cpu_judged = !OnlyCutsInterrupts(reading.knob, reading.value, value);
    // A step taken against drops is not undone as soon as a window shows none: that window owes
    // its calm to the step (the fill math alone would ask for the dropping value again, and the
    // guard would roll that back: a staircase of drops). Going back waits a cooldown.
    if (health.drops_per_s > 0) st.last_reversal_at = now;
    actions.push_back(std::move(apply));
  }
  return actions;
}

void Controller::WriteFailed(Knob knob, const std::string& target, absl::Time now) {
  KnobState& st = knobs_[Key(knob, target)];
  if (st.mode == KnobMode::kReleased) return;
  st.last_written.reset();
  st.direction = 0;
  st.mode = KnobMode::kParked;
  st.parked_until = now + config_.cooldown;
  st.changed_at = now;
}

void Controller::DeviceGone(Knob knob, const std::string& target, absl::Time now) {
  auto it = knobs_.find(Key(knob, target));
  if (it == knobs_.end() || !it->second.last_written.has_value()) return;
  WriteFailed(knob, target, now);
}

void Controller::WriteNotMade(Knob knob, const std::string& target) {
  auto before = before_apply_.find(Key(knob, target));
  if (before == before_apply_.end()) return;
  knobs_[before->first] = before->second;
  before_apply_.erase(before);
}

std::vector<Controller::KnobKey> Controller::KnobsHoldingOurValue() const {
  std::vector<KnobKey> knobs;
  for (const auto& [key, st] : knobs_) {
    // A released knob is a person's: nothing of ours is owed there, wherever its device goes.
    if (st.last_written.has_value() && st.mode != KnobMode::kReleased) knobs.push_back(key);
  }
  return knobs;
}

KnobMode Controller::ModeOf(Knob knob, const std::string& target) const {
  auto it = knobs_.find(Key(knob, target));
  return it == knobs_.end() ? KnobMode::kIdle : it->second.mode;
}

}  // namespace nictune::tuner
