// SPDX-License-Identifier: Apache-2.0
#include "agent/service/tuning.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/actuate/knob_key.h"
#include "agent/log.h"
#include "tuner/stalled_reader.h"
#include "tuner/stalls.h"

namespace nictune::service {
namespace {

using actuate::ActuationResult;
using actuate::Outcome;
using driver::knobs::KnobAddress;

std::optional<metrics::ChangeResult> ChangeResultOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWritten:
      return metrics::ChangeResult::kApplied;
    case Outcome::kRolledBack:
    case Outcome::kRestored:
      return metrics::ChangeResult::kRolledBack;
    case Outcome::kFailed:
    case Outcome::kUnsupported:
      return metrics::ChangeResult::kFailed;
    default:
      return std::nullopt;
  }
}

// The packets that arrived for the queue while its delivery was stalled: of those received on
// the queue, or (a device this namespace does not count, as an emulated NIC's TAP) of those that
// arrived for its sockets.
double QueueStalledArrivals(const tuner::QueueObservation& queue, absl::Duration window) {
  uint64_t socket_packets = 0;
  for (const tuner::SocketObservation& s : queue.sockets) socket_packets += s.packets;
  return tuner::StalledArrivals(static_cast<double>(std::max(queue.rx_packets, socket_packets)),
                                queue.stall_s, window);
}

// The drops of the queue's stalled readers (tuner/stalled_reader.h): what arrived after a socket
// filled while its reader did not read, at any setting.
uint64_t StalledReaderDrops(const tuner::QueueObservation& queue, absl::Duration window) {
  uint64_t drops = 0;
  for (const tuner::SocketObservation& s : queue.sockets) {
    if (auto reader = tuner::StalledReaderOf(s, window)) drops += reader->drops_set_aside;
  }
  return drops;
}

}  // namespace

tuner::ScopedHealth HealthOf(const tuner::Observation& observation) {
  const double seconds = absl::ToDoubleSeconds(observation.window);
  // Per device: drops replicated on each of its queues counted once, CPU summed to a mean.
  struct DeviceSums {
    uint64_t device_drops = 0;   // socket, ring, protocol memory: one figure per device
    uint64_t backlog_drops = 0;  // per queue: its serving CPUs' softnet drops
    double stalled_arrivals = 0;
    uint64_t reader_drops = 0;  // stalled readers': one figure per device, as its socket drops
    double receive_cpu = 0;
    int with_cpu = 0;
    uint32_t napi_pollers = 0;
  };
  absl::flat_hash_map<std::string, DeviceSums> devices;
  for (const tuner::QueueObservation& queue : observation.queues) {
    DeviceSums& sums = devices[queue.device];
    sums.stalled_arrivals += QueueStalledArrivals(queue, observation.window);
    sums.reader_drops = std::max(sums.reader_drops, StalledReaderDrops(queue, observation.window));
    const tuner::DropCounts& d = queue.drops;
    sums.device_drops = std::max(sums.device_drops, d.socket + d.ring + d.proto_mem);
    sums.backlog_drops += d.backlog;
    sums.napi_pollers += queue.napi_pollers;
    const tuner::CpuSplit& cpu = queue.cpu;
    // A threaded device's polls run in its pollers, not in the softirq; their share is measured
    // where /proc/stat's split is not.
    if (cpu.hardirq + cpu.softirq + cpu.user + cpu.idle > 0 || queue.napi_pollers > 0) {
      sums.receive_cpu += cpu.hardirq + cpu.softirq + queue.napi_poller_cpu;
      ++sums.with_cpu;
    }
  }
  auto per_second = [seconds](double count) { return seconds > 0 ? count / seconds : 0.0; };
  tuner::ScopedHealth health;
  uint64_t host_drops = 0;
  double host_stalled_arrivals = 0;
  double host_cpu = 0;
  int host_with_cpu = 0;
  for (const auto& [device, sums] : devices) {
    const uint64_t drops = sums.device_drops + sums.backlog_drops;
    tuner::Health& h = health.devices[device];
    h.drops_per_s = per_second(static_cast<double>(drops));
    const double explained = sums.stalled_arrivals + static_cast<double>(sums.reader_drops);
    h.stall_drops_per_s = std::min(h.drops_per_s, per_second(explained));
    if (sums.with_cpu > 0) h.cpu_share = sums.receive_cpu / sums.with_cpu;
    h.napi_pollers = sums.napi_pollers;
    health.host.napi_pollers += sums.napi_pollers;
    host_drops += drops;
    host_stalled_arrivals += explained;
    host_cpu += sums.receive_cpu;
    host_with_cpu += sums.with_cpu;
  }
  health.host.drops_per_s = per_second(static_cast<double>(host_drops));
  health.host.stall_drops_per_s =
      std::min(health.host.drops_per_s, per_second(host_stalled_arrivals));
  if (host_with_cpu > 0) health.host.cpu_share = host_cpu / host_with_cpu;
  return health;
}

Tuning::Tuning(actuate::Actuator& actuator, store::Journal& journal,
               tuner::ControllerConfig controller, Mode mode, metrics::TuningSeries* series)
    : actuator_(actuator),
      journal_(journal),
      series_(series),
      mode_(mode),
      controller_(controller) {}

actuate::RestoreReport Tuning::ResolveAtStart(actuate::PendingPolicy policy, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  policy_ = policy;
  resolved_ = true;
  return actuator_.ResolveAtStart(policy, now);
}

void Tuning::SetMode(Mode mode, actuate::PendingPolicy policy) {
  std::lock_guard<std::mutex> lock(mutex_);
  policy_ = policy;
  mode_.store(mode);
  if (mode != Mode::kApply) held_.clear();
}

void Tuning::EnsureResolvedLocked(absl::Time now) {
  if (resolved_) return;
  resolved_ = true;
  const actuate::RestoreReport report = actuator_.ResolveAtStart(policy_, now);
  if (!report.error.ok()) {
    agent::LogError(absl::StrCat("apply mode: resolving the journal: ", report.error.message()));
  }
}

void Tuning::OnTunerWindow(const tuner::Observation& observation,
                           const std::vector<tuner::Recommendation>& recommendations,
                           absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  recommendations_ = recommendations;
  health_ = HealthOf(observation);
  if (series_ != nullptr) series_->SetRecommendations(recommendations);
  if (mode_.load() != Mode::kApply) {
    held_.clear();  // nothing is held where nothing would be written
    return;
  }
  EnsureResolvedLocked(now);
  const actuate::ControlStepSummary summary = StepLocked(recommendations, now);
  // Actions are events, one line each window that has some; a knob that stays unreadable, or a
  // journal that cannot be written, is a problem that would repeat every window.
  const bool acted = summary.not_journaled < static_cast<int>(summary.actions.size());
  if (acted || !summary.gone.empty()) agent::LogInfo(actuate::DescribeControlStep(summary));
  LogUnreadableLocked(summary, now);
  NoteJournalLocked(summary, now);
  NoteHeldLocked(summary, now);
}

std::vector<HeldChange> Tuning::HeldChanges() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<HeldChange> held;
  held.reserve(held_.size());
  for (const auto& [key, hold] : held_) held.push_back(hold.change);
  return held;
}

void Tuning::NoteHeldLocked(const actuate::ControlStepSummary& summary, absl::Time now) {
  std::map<std::string, Hold> held;
  for (const tuner::Held& h : summary.held) {
    const std::string key = actuate::KnobKey({h.knob, h.target});
    const auto before = held_.find(key);
    const bool new_hold = before == held_.end();
    const uint32_t cause = uint32_t{1} << static_cast<uint32_t>(h.why);
    const uint32_t logged = new_hold ? 0 : before->second.causes_logged;
    if ((logged & cause) == 0) agent::LogInfo(absl::StrCat("apply mode: ", h.reason));
    held[key] = Hold{.change = {.held = h, .since = new_hold ? now : before->second.change.since},
                     .causes_logged = logged | cause};
  }
  held_ = std::move(held);
}

void Tuning::NoteJournalLocked(const actuate::ControlStepSummary& summary, absl::Time now) {
  constexpr absl::string_view kPaused = "tuning paused";
  if (!summary.journal_error.ok()) {
    paused_ = true;
    problems_.Log(agent::LogLevel::kError, kPaused,
                  absl::StrCat("tuning paused: ", summary.not_journaled,
                               " change(s) not made because the change journal cannot record "
                               "the originals first: ",
                               summary.journal_error.message(),
                               "; asked again every window, nothing is written until it can"),
                  now);
    return;
  }
  const bool journaled = std::any_of(summary.results.begin(), summary.results.end(),
                                     [](const actuate::ActuationResult& result) {
                                       return result.outcome == actuate::Outcome::kWritten ||
                                              result.outcome == actuate::Outcome::kRolledBack;
                                     });
  if (!paused_ || !journaled) return;
  paused_ = false;
  const std::optional<uint64_t> repeats = problems_.Clear(kPaused);
  agent::LogInfo(absl::StrCat("tuning resumed: the change journal records originals again (",
                              repeats.value_or(0), " paused window(s) since the last report)"));
}

void Tuning::LogUnreadableLocked(const actuate::ControlStepSummary& summary, absl::Time now) {
  for (const tuner::KnobReading& reading : summary.readings) {
    problems_.Clear(absl::StrCat("unreadable ", actuate::KnobKey({reading.knob, reading.target})));
  }
  for (const actuate::UnreadableKnob& knob : summary.unreadable) {
    if (driver::knobs::IsUnsupported(knob.status)) continue;
    problems_.Log(agent::LogLevel::kWarning,
                  absl::StrCat("unreadable ", actuate::KnobKey(knob.address)),
                  absl::StrCat("apply mode: ", actuate::DescribeKnob(knob.address),
                               " cannot be read: ", knob.status.message(),
                               "; left out of the controller's readings until it can be"),
                  now);
  }
}

actuate::ControlStepSummary Tuning::StepLocked(
    const std::vector<tuner::Recommendation>& recommendations, absl::Time now) {
  actuate::ControlStepSummary summary =
      actuate::RunControlStep(actuator_, controller_, recommendations, health_, now);
  if (series_ == nullptr) return summary;
  for (const tuner::KnobReading& reading : summary.readings) {
    series_->SetCurrent(reading.knob, reading.target, reading.value);
    series_->SetMode(reading.knob, reading.target,
                     controller_.ModeOf(reading.knob, reading.target));
  }
  for (const KnobAddress& address : summary.verified) {
    series_->CountChange(address.knob, metrics::ChangeResult::kKept);
  }
  for (const ActuationResult& result : summary.results) {
    CountLocked(result);
    if (result.after)
      series_->SetCurrent(result.address.knob, result.address.target, *result.after);
  }
  return summary;
}

void Tuning::CountLocked(const ActuationResult& result) {
  if (series_ == nullptr) return;
  if (std::optional<metrics::ChangeResult> counted = ChangeResultOf(result.outcome)) {
    series_->CountChange(result.address.knob, *counted);
  }
}

absl::StatusOr<actuate::ControlStepSummary> Tuning::ApplyNow(const std::optional<KnobAddress>& only,
                                                             absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_.load() != Mode::kApply) {
    return absl::FailedPreconditionError(
        absl::StrCat("apply: nictuned runs in ", std::string(ModeName(mode_.load())),
                     " mode, which never writes a knob; restart (or SIGHUP) with --mode=apply"));
  }
  if (!recommendations_) {
    return absl::FailedPreconditionError(
        "apply: no tuner window has closed yet, so there is nothing to apply; retry after one "
        "--window");
  }
  if (only && tuner::ByHandOnly(only->knob)) {
    return absl::FailedPreconditionError(
        absl::StrCat("apply: ", actuate::DescribeKnob(*only),
                     " is by hand only: nictune never writes it; run what `nictune recommend "
                     "--as=ethtool` prints for it"));
  }
  std::vector<tuner::Recommendation> chosen;
  for (const tuner::Recommendation& rec : *recommendations_) {
    if (!only || (rec.knob == only->knob && rec.target == only->target)) chosen.push_back(rec);
  }
  if (only && chosen.empty()) {
    return absl::NotFoundError(absl::StrCat("apply: the latest window recommends nothing for ",
                                            actuate::DescribeKnob(*only)));
  }
  EnsureResolvedLocked(now);
  actuate::ControlStepSummary summary = StepLocked(chosen, now);
  agent::LogInfo(absl::StrCat("POST apply: ", actuate::DescribeControlStep(summary)));
  return summary;
}

void Tuning::ForgetLocked(const ActuationResult& result, absl::Time now) {
  if (result.outcome == Outcome::kRolledBack || result.outcome == Outcome::kRestored) {
    controller_.WriteFailed(result.address.knob, result.address.target, now);
  }
}

absl::StatusOr<ActuationResult> Tuning::RollbackChange(int64_t change_id, absl::Time now) {
  absl::StatusOr<std::vector<store::ChangeRecord>> pending =
      journal_.PendingChanges(actuator_.boot_id());
  if (!pending.ok()) return pending.status();
  for (const store::ChangeRecord& row : *pending) {
    if (row.id != change_id) continue;
    std::optional<tuner::Knob> knob = actuate::ParseKnobName(row.knob);
    if (!knob) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rollback change ", change_id, ": knob \"", row.knob, "\" is unknown to this nictuned"));
    }
    return RollbackKnob(KnobAddress{*knob, row.target}, now);
  }
  return absl::NotFoundError(absl::StrCat("rollback change ", change_id,
                                          ": no pending change of this boot has that id (unknown, "
                                          "or already rolled back, restored or released)"));
}

ActuationResult Tuning::RollbackKnob(const KnobAddress& address, absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  ActuationResult result =
      actuator_.RollbackToOriginal(address, "rollback requested through the REST API", now);
  CountLocked(result);
  ForgetLocked(result, now);
  agent::LogInfo(absl::StrCat("POST rollback ", actuate::DescribeKnob(address), ": ",
                              actuate::OutcomeName(result.outcome), ": ", result.message));
  return result;
}

actuate::RestoreReport Tuning::RestoreAll(absl::Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  actuate::RestoreReport report = actuator_.RestoreAll(now);
  for (const ActuationResult& result : report.restored) {
    CountLocked(result);
    ForgetLocked(result, now);
  }
  for (const ActuationResult& result : report.failed) CountLocked(result);
  agent::LogInfo(absl::StrCat("restore: ", report.restored.size(), " restored, ",
                              report.left.size(), " left to their owners, ", report.failed.size(),
                              " failed", report.error.ok() ? "" : ": ",
                              report.error.ok() ? "" : report.error.message()));
  return report;
}

}  // namespace nictune::service
