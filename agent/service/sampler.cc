// SPDX-License-Identifier: Apache-2.0
#include "agent/service/sampler.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/log.h"
#include "agent/metrics/process_usage.h"
#include "agent/napi_pollers.h"
#include "agent/service/recommendation_json.h"
#include "agent/window_report.h"
#include "tuner/confidence.h"
#include "tuner/recommend.h"

namespace nictune::service {
namespace {

absl::Time FromUnixNs(int64_t ns) { return absl::FromUnixNanos(ns); }

}  // namespace

uint32_t IntervalsPerWindow(const SamplerSettings& settings) {
  const double ratio = absl::FDivDuration(settings.window, settings.interval);
  return ratio < 1.5 ? 1 : static_cast<uint32_t>(std::lround(ratio));
}

absl::Status ValidateSamplerSettings(const SamplerSettings& settings) {
  if (settings.interval < absl::Milliseconds(10) || settings.interval > absl::Hours(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--interval=", absl::FormatDuration(settings.interval), ": must be between 10ms and 1h"));
  }
  if (settings.window < settings.interval || settings.window > absl::Hours(24)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--window=", absl::FormatDuration(settings.window), ": must be at least --interval (",
        absl::FormatDuration(settings.interval), ") and at most 24h"));
  }
  if (!(settings.policy.margin >= 0 && settings.policy.margin < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tuner_margin=", settings.policy.margin, ": must be in [0, 1)"));
  }
  if (!(settings.policy.interrupt_cpu_share > 0 && settings.policy.interrupt_cpu_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tuner_interrupt_cpu_share=", settings.policy.interrupt_cpu_share,
                     ": must be in (0, 1]"));
  }
  return absl::OkStatus();
}

absl::Status ValidateApplyConfidence(const SamplerSettings& settings, double min_confidence) {
  if (!(min_confidence >= 0 && min_confidence <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--min_confidence=", min_confidence, ": must be within 0..1"));
  }
  // Where the interrupt cost is assumed (no irq and napi probes, an emulated NIC), the
  // coalescing recommendations carry less: a window must reach the threshold with that too.
  const uint32_t samples = IntervalsPerWindow(settings);
  const double reachable =
      tuner::SampleConfidence(samples, settings.policy) * tuner::kAssumedInterruptCostConfidence;
  if (settings.mode != Mode::kApply || reachable >= min_confidence) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "--window=%s at --interval=%s: a window of %u samples gives a confidence of at most %.2f "
      "(full at %u samples, x%.1f where the interrupt cost is assumed), below "
      "--min_confidence=%g, so apply mode would hold every change; lengthen --window, shorten "
      "--interval or lower --min_confidence",
      absl::FormatDuration(settings.window), absl::FormatDuration(settings.interval), samples,
      reachable, settings.policy.full_confidence_samples, tuner::kAssumedInterruptCostConfidence,
      min_confidence));
}

Sampler::Sampler(SamplerPorts ports, SamplerSettings settings, ServiceState& state,
                 metrics::MetricsExporter& exporter, HealthMetrics* health)
    : ports_(ports),
      settings_(std::move(settings)),
      state_(state),
      exporter_(exporter),
      health_(health),
      drop_series_(settings_.series.max_drop_series) {}

void Sampler::Reconfigure(const SamplerSettings& settings) {
  const bool new_window = settings.window != settings_.window ||
                          settings.interval != settings_.interval ||
                          settings.mode != settings_.mode;
  settings_ = settings;
  if (new_window && previous_) aggregator_.Start(*previous_);
  if (settings_.mode != Mode::kApply)
    state_.SetHeld({});  // nothing is held where nothing is written
  if (!RunsTuner(settings_.mode)) {
    state_.PublishRecommendations(std::make_shared<const RecommendationSet>(
        RecommendationSet{.reason = "observe mode: the tuner does not run"}));
    last_recommendations_ = 0;
  }
}

StepOutcome Sampler::Step(absl::Time now) {
  StepOutcome outcome;
  const auto collect_start = std::chrono::steady_clock::now();
  model::Snapshot current = ports_.snapshots->Collect();
  sampling_.last_sampling_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - collect_start).count();
  sampling_.sources = current.sources;
  if (!previous_) {
    aggregator_.Start(current);
    previous_ = std::move(current);
    PublishHealth();
    return outcome;
  }

  absl::StatusOr<model::Window> window = model::ComputeWindow(*previous_, current);
  if (!window.ok()) {
    ++sampling_.failed_samples;
    sampling_.last_error = window.status().ToString();
    problems_.Log(agent::LogLevel::kError, "sampling",
                  absl::StrCat("sampling: ", sampling_.last_error), now);
    // Start over from this snapshot: the previous one is what the clock disagreed with.
    aggregator_.Start(current);
    previous_ = std::move(current);
    PublishHealth();
    return outcome;
  }

  problems_.Clear("sampling");
  observe::SocketDevices socket_devices = socket_places_.Place(*window);
  CapDropSeries(*window, now);
  metrics::AgentCost cost{.sampling_seconds = sampling_.last_sampling_seconds};
  if (auto usage = metrics::ReadProcessUsage(); usage.ok()) cost.process = *usage;
  if (ports_.probes != nullptr) cost.probes = ports_.probes->Cost();
  exporter_.Update(current, *window, cost);
  NoteMapPressure(current, now);
  // The probe budget changes the programs' schedule as the load does.
  if (ports_.probes != nullptr) state_.SetBpfPrograms(ports_.probes->Status());

  ++sampling_.samples;
  sampling_.last_sample = FromUnixNs(window->end_unix_ns);
  outcome.sampled = true;
  PublishToStore(*window, now);
  if (ports_.per_packet != nullptr && ports_.per_packet->OnInterval(*window)) {
    // The tuner window so far measured no socket: it starts again here, so that the tuner (and
    // the controller's baseline) sees the sockets over a whole window.
    aggregator_.Start(current);
  } else {
    aggregator_.AddInterval(*window);
  }
  const agent::Topology& topology = ports_.topology->Read(agent::DeviceNames(*window));
  ports_.snapshots->WatchNapiPollers(
      agent::NapiPollersOf(topology.queue_map, current.emulated_nics));
  state_.PublishInterval(std::make_shared<const IntervalReading>(IntervalReading{
                             *std::move(window), topology, std::move(socket_devices)}),
                         sampling_);
  if (aggregator_.intervals() >= IntervalsPerWindow(settings_)) {
    CloseTunerWindow(current, now);
    outcome.window_closed = true;
  }
  previous_ = std::move(current);
  PublishHealth();
  return outcome;
}

// A map that filled costs attribution, never counts (driver/bpf/README.md "Bounded maps"): said
// in status and on /metrics always, and in the log once a minute at most while it goes on.
void Sampler::NoteMapPressure(const model::Snapshot& current, absl::Time now) {
  if (!current.bpf) return;
  sampling_.bpf_maps = current.bpf->maps;
  for (const driver::MapPressure& map : current.bpf->maps) {
    uint64_t& seen = no_room_seen_[map.map];
    if (map.no_room > seen) {
      problems_.Log(agent::LogLevel::kWarning, absl::StrCat("map full: ", map.map),
                    absl::StrCat("BPF map ", map.map, " is full (", map.entries, " of ",
                                 map.capacity, " keys): ", map.no_room - seen,
                                 " events counted without their attribution since the last "
                                 "reading (device=\"unattributed\" on /metrics)"),
                    now);
    }
    seen = map.no_room;
  }
}

void Sampler::CapDropSeries(model::Window& window, absl::Time now) {
  const uint64_t overflow_before = drop_series_.overflow_drops();
  drop_series_.Apply(window);
  const uint64_t overflowed = drop_series_.overflow_drops() - overflow_before;
  if (overflowed == 0) return;
  problems_.Log(agent::LogLevel::kWarning, "drop series cap",
                absl::StrCat("drop series cap: all ", drop_series_.admitted(),
                             " (reason, proto, device) series of nictune_skb_drops_total are in "
                             "use; ",
                             overflowed,
                             " drops of other label sets counted under reason, proto and device "
                             "\"overflow\" in the last interval (--metrics_drop_series)"),
                now);
}

void Sampler::PublishToStore(const model::Window& window, absl::Time now) {
  if (ports_.history == nullptr) return;
  const auto appended = ports_.history->AppendSamples(
      FromUnixNs(window.end_unix_ns), store::WindowSeries(window, settings_.series));
  NoteStore(appended.status(), "append samples", now);
  const auto maintained = ports_.history->Maintain(now);
  NoteStore(maintained.status(), "maintenance", now);
}

void Sampler::CloseTunerWindow(const model::Snapshot& end, absl::Time now) {
  const uint32_t samples = aggregator_.intervals();
  absl::StatusOr<model::Window> window = aggregator_.Close(end);
  ++sampling_.windows;
  if (window.ok() && ports_.per_packet != nullptr) ports_.per_packet->OnTunerWindow(*window);
  if (!RunsTuner(settings_.mode)) return;

  auto set = std::make_shared<RecommendationSet>();
  set->samples = samples;
  if (!window.ok()) {
    set->reason = absl::StrCat("tuner window: ", window.status().ToString());
    sampling_.last_error = set->reason;
  } else {
    set->window_start = FromUnixNs(window->start_unix_ns);
    set->window_end = FromUnixNs(window->end_unix_ns);
    absl::StatusOr<tuner::Observation> observation = ports_.observations->Observe(*window, samples);
    absl::StatusOr<std::vector<tuner::Recommendation>> recommended =
        observation.ok() ? tuner::Recommend(*observation, settings_.policy)
                         : absl::StatusOr<std::vector<tuner::Recommendation>>(observation.status());
    if (!recommended.ok()) {
      set->reason = absl::StrCat("tuner: ", recommended.status().ToString());
      sampling_.last_error = set->reason;
    } else {
      set->recommendations = *std::move(recommended);
      if (set->recommendations.empty()) {
        set->reason = "the tuner found nothing to change in the latest window";
      }
      // Read before this window's step writes anything.
      if (ports_.knob_changes != nullptr) {
        ports_.knob_changes->Observe(set->recommendations, set->window_end.value_or(now));
        state_.SetKnobChanges(ports_.knob_changes->Changes(), ports_.knob_changes->total());
      }
      if (ports_.tuning != nullptr) {
        ports_.tuning->OnTunerWindow(*observation, set->recommendations, now);
        state_.SetHeld(ports_.tuning->HeldChanges());
      }
    }
  }
  if (ports_.history != nullptr && !set->recommendations.empty()) {
    NoteStore(ports_.history->AppendRecommendations(
                  RecommendationRecords(set->window_end.value_or(now), set->recommendations)),
              "append recommendations", now);
  }
  last_recommendations_ = set->recommendations.size();
  state_.PublishRecommendations(std::move(set));
}

void Sampler::NoteStore(const absl::Status& status, absl::string_view operation, absl::Time now) {
  const std::string problem = absl::StrCat("store ", operation);
  if (status.ok()) {
    if (failing_store_operations_.erase(std::string(operation)) > 0) {
      const std::optional<uint64_t> unlogged = problems_.Clear(problem);
      agent::LogInfo(absl::StrCat("store: ", operation, " works again after ", unlogged.value_or(0),
                                  " unlogged failure(s)"));
    }
    // Healthy only once no operation fails: on a full disk the maintenance that finds nothing to
    // do succeeds between appends that fail.
    if (failing_store_operations_.empty()) state_.NoteStoreResult(status, now);
    return;
  }
  state_.NoteStoreResult(status, now);
  failing_store_operations_.insert(std::string(operation));
  problems_.Log(agent::LogLevel::kError, problem,
                absl::StrCat("store: ", operation, ": ", status.ToString(),
                             "; sampling continues, next report in a minute at most"),
                now);
}

void Sampler::NoteMissed(uint64_t count) {
  sampling_.missed_intervals += count;
  PublishHealth();
}

void Sampler::PublishHealth() {
  state_.UpdateSampling(sampling_);
  if (health_ != nullptr) health_->Update(state_.Status(), last_recommendations_);
}

std::string Sampler::Summary() const {
  const ServiceStatus status = state_.Status();
  std::string store = !status.store.configured ? "store off"
                      : status.store.healthy
                          ? "store ok"
                          : absl::StrCat("store failing (", status.store.errors, " errors)");
  return absl::StrFormat(
      "%s mode, every %s: %d samples, %d missed, %d windows, %d recommendations, %s, %s",
      std::string(ModeName(settings_.mode)), absl::FormatDuration(settings_.interval),
      sampling_.samples, sampling_.missed_intervals, sampling_.windows, last_recommendations_,
      status.bpf.in_use ? "BPF" : "procfs only", store);
}

}  // namespace nictune::service
