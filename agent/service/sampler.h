// SPDX-License-Identifier: Apache-2.0
// One sampling interval's work, called by the loop on each deadline: collect a snapshot, compute
// the interval's Window, publish it to /metrics, the store and the service state, run the store's
// maintenance, and every `window` close a tuner window: Observation -> tuner::Recommend ->
// recommendations kept in memory and in the store. A failing store is counted and logged (at most
// once a minute) and never stops sampling.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/metrics/drop_series_cap.h"
#include "agent/metrics/exporter.h"
#include "agent/observe/interval_socket_places.h"
#include "agent/rate_limited_log.h"
#include "agent/service/health_metrics.h"
#include "agent/service/knob_change_watch.h"
#include "agent/service/per_packet_switch.h"
#include "agent/service/sampler_ports.h"
#include "agent/service/service_state.h"
#include "agent/service/window_aggregator.h"
#include "agent/store/window_series.h"
#include "driver/probe_source.h"
#include "tuner/policy_config.h"

namespace nictune::service {

// What a SIGHUP may change without a restart.
struct SamplerSettings {
  absl::Duration interval = absl::Seconds(1);
  absl::Duration window = absl::Seconds(10);
  Mode mode = Mode::kRecommend;
  tuner::PolicyConfig policy;
  store::WindowSeriesOptions series;
};

// Intervals that make one tuner window: window / interval rounded, at least 1.
uint32_t IntervalsPerWindow(const SamplerSettings& settings);

// InvalidArgument naming the flag when the settings cannot work.
absl::Status ValidateSamplerSettings(const SamplerSettings& settings);

// Apply mode: InvalidArgument naming the flags when a window has too few intervals for a
// recommendation to reach min_confidence with an assumed interrupt cost (the controller would hold
// every such change for ever); in any mode, when min_confidence is not within 0..1.
absl::Status ValidateApplyConfidence(const SamplerSettings& settings, double min_confidence);

struct SamplerPorts {
  SnapshotSource* snapshots = nullptr;
  TopologySource* topology = nullptr;
  HistorySink* history = nullptr;  // null: no store (it could not be opened)
  ObservationSource* observations = nullptr;
  driver::ProbeSource* probes = nullptr;  // null: no BPF; only for the agent's cost
  TunerWindowSink* tuning = nullptr;      // null: nobody acts on the recommendations
  // Told of every tuner window; null: the per-packet probes stay as they started.
  PerPacketSwitch* per_packet = nullptr;
  // Fed each window's readings; null: changes by another hand are not looked for.
  KnobChangeWatch* knob_changes = nullptr;
};

struct StepOutcome {
  bool sampled = false;        // an interval's Window was computed and published
  bool window_closed = false;  // a tuner window closed in this step
};

class Sampler {
 public:
  // state, exporter and health must outlive the sampler; health may be null.
  Sampler(SamplerPorts ports, SamplerSettings settings, ServiceState& state,
          metrics::MetricsExporter& exporter, HealthMetrics* health);

  // Takes effect at the next step; a changed window length starts a new tuner window.
  void Reconfigure(const SamplerSettings& settings);

  // The first call only takes the starting snapshot. `now` stamps store errors and drives the
  // store's retention.
  StepOutcome Step(absl::Time now);

  // The loop missed `count` deadlines (a step took longer than the interval).
  void NoteMissed(uint64_t count);

  // One line for sd_notify STATUS=.
  std::string Summary() const;

 private:
  void PublishToStore(const model::Window& window, absl::Time now);
  void CloseTunerWindow(const model::Snapshot& end, absl::Time now);
  void NoteStore(const absl::Status& status, absl::string_view operation, absl::Time now);
  void NoteMapPressure(const model::Snapshot& current, absl::Time now);
  // Marks the window's drops beyond the drop series cap, and logs while drops go to overflow.
  void CapDropSeries(model::Window& window, absl::Time now);
  void PublishHealth();

  SamplerPorts ports_;
  SamplerSettings settings_;
  ServiceState& state_;
  metrics::MetricsExporter& exporter_;
  HealthMetrics* health_;

  std::optional<model::Snapshot> previous_;
  WindowAggregator aggregator_;
  SamplingHealth sampling_;
  size_t last_recommendations_ = 0;
  // The store's operations failing now ("append samples", "maintenance", ...).
  absl::flat_hash_set<std::string> failing_store_operations_;
  // Store errors (per operation) and snapshots the clock disagrees with can come every interval:
  // each logged once a minute at most, the ones in between only counted.
  agent::RateLimitedLog problems_;
  std::map<std::string, uint64_t> no_room_seen_;  // per BPF map: its no_room at the last reading
  // The drops' label sets on /metrics and in history alike (--metrics_drop_series, fixed at
  // start: a lower cap could not take back the series already exported).
  metrics::DropSeriesCap drop_series_;
  observe::IntervalSocketPlaces socket_places_;  // for the interval's report
};

}  // namespace nictune::service
