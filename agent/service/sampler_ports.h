// SPDX-License-Identifier: Apache-2.0
// What the sampling loop reads from and writes to, as small interfaces: the real ones wrap the
// collector, the topology reader, the SQLite store and the observation builder (real_ports.h);
// tests put fakes in their place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"
#include "agent/service/service_status.h"
#include "agent/store/records.h"
#include "agent/topology.h"
#include "tuner/observation.h"
#include "tuner/recommendation.h"

namespace nictune::service {

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;
  virtual model::Snapshot Collect() = 0;
  // The threaded NAPI pollers the next Collect reads, as the topology and the devices name them.
  virtual void WatchNapiPollers(std::vector<model::NapiPoller> pollers) = 0;
};

class TopologySource {
 public:
  virtual ~TopologySource() = default;
  virtual const agent::Topology& Read(const std::vector<std::string>& devices) = 0;
};

// Where samples and recommendations are kept (the store).
class HistorySink {
 public:
  virtual ~HistorySink() = default;
  virtual absl::StatusOr<store::AppendResult> AppendSamples(
      absl::Time ts, const std::vector<store::SeriesSample>& samples) = 0;
  virtual absl::StatusOr<store::MaintenanceReport> Maintain(absl::Time now) = 0;
  virtual absl::Status AppendRecommendations(
      const std::vector<store::RecommendationRecord>& recommendations) = 0;
};

// Turns a tuner window into the tuner's input (reads the host's knobs and the topology).
class ObservationSource {
 public:
  virtual ~ObservationSource() = default;
  virtual absl::StatusOr<tuner::Observation> Observe(const model::Window& window,
                                                     uint32_t samples) = 0;
};

// Told of every tuner window the tuner ran on (apply mode's controller step hangs off it).
class TunerWindowSink {
 public:
  virtual ~TunerWindowSink() = default;
  virtual void OnTunerWindow(const tuner::Observation& observation,
                             const std::vector<tuner::Recommendation>& recommendations,
                             absl::Time now) = 0;
  // The changes the latest window's step held back, for the status; empty outside apply mode.
  virtual std::vector<HeldChange> HeldChanges() = 0;
};

}  // namespace nictune::service
