// SPDX-License-Identifier: Apache-2.0
// Snapshots that carry each emulated NIC's counters beside the kernel's: a TAP has no
// /proc/interrupts line and fires no irq tracepoint, so without them the per-interval window
// (GET /api/v1/snapshot, /metrics, the store) has no interrupt figure for the emulated device.
// Decorates the host's snapshot source; each NIC also appears in the snapshot's sources, in use
// or with the error that stopped its reading.
#pragma once

#include <map>
#include <string>

#include "agent/service/nic_counters_source.h"
#include "agent/service/sampler_ports.h"

namespace nictune::service {

class EmulatedNicSnapshots : public SnapshotSource {
 public:
  // inner and the sources must outlive this; `nics` maps device name -> its counters.
  EmulatedNicSnapshots(SnapshotSource& inner, std::map<std::string, NicCountersSource*> nics)
      : inner_(inner), nics_(std::move(nics)) {}

  model::Snapshot Collect() override;
  void WatchNapiPollers(std::vector<model::NapiPoller> pollers) override {
    inner_.WatchNapiPollers(std::move(pollers));
  }

 private:
  SnapshotSource& inner_;
  std::map<std::string, NicCountersSource*> nics_;
};

}  // namespace nictune::service
