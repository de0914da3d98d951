// SPDX-License-Identifier: Apache-2.0
// The sampling loop's real inputs and outputs: the snapshot collector, the topology reader, the
// SQLite store, and the observation builder with the host's knobs read from procfs/sysfs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/collect/snapshot_collector.h"
#include "agent/observe/remembered_sockets.h"
#include "agent/rate_limited_log.h"
#include "agent/service/sampler_ports.h"
#include "agent/store/store.h"
#include "agent/topology.h"

namespace nictune::service {

class CollectorSnapshots : public SnapshotSource {
 public:
  explicit CollectorSnapshots(collect::SnapshotCollector& collector) : collector_(collector) {}
  model::Snapshot Collect() override { return collector_.Collect(); }
  void WatchNapiPollers(std::vector<model::NapiPoller> pollers) override {
    collector_.WatchNapiPollers(std::move(pollers));
  }

 private:
  collect::SnapshotCollector& collector_;
};

class ReaderTopology : public TopologySource {
 public:
  explicit ReaderTopology(agent::TopologyReader& reader) : reader_(reader) {}
  const agent::Topology& Read(const std::vector<std::string>& devices) override {
    return reader_.Read(devices);
  }

 private:
  agent::TopologyReader& reader_;
};

class StoreHistory : public HistorySink {
 public:
  explicit StoreHistory(store::Store& store) : store_(store) {}
  absl::StatusOr<store::AppendResult> AppendSamples(
      absl::Time ts, const std::vector<store::SeriesSample>& samples) override {
    return store_.AppendSamples(ts, samples);
  }
  absl::StatusOr<store::MaintenanceReport> Maintain(absl::Time now) override {
    return store_.Maintain(now);
  }
  absl::Status AppendRecommendations(
      const std::vector<store::RecommendationRecord>& recommendations) override {
    return store_.AppendRecommendations(recommendations);
  }

 private:
  store::Store& store_;
};

// Reads the host's knobs (PROC_ROOT/sys) and each device's deferral settings (SYS_ROOT) at every
// tuner window, so a knob someone changed is seen within one window.
class HostObservations : public ObservationSource {
 public:
  HostObservations(collect::CollectorPaths paths, TopologySource& topology)
      : paths_(std::move(paths)), topology_(topology) {}
  absl::StatusOr<tuner::Observation> Observe(const model::Window& window,
                                             uint32_t samples) override;

 private:
  collect::CollectorPaths paths_;
  TopologySource& topology_;
  // The sockets earlier windows placed (agent/observe/remembered_sockets.h).
  observe::RememberedSockets remembered_sockets_;
  // A device that went away between listing and reading fails the same way every window.
  agent::RateLimitedLog problems_;
};

}  // namespace nictune::service
