// SPDX-License-Identifier: Apache-2.0
#include "agent/service/emulated_snapshots.h"

#include "absl/strings/str_cat.h"

namespace nictune::service {
namespace {

// Every queue's counters, or none: a window compares the queues of two readings one by one.
std::vector<driver::emulated::EmulatedNicCounters> ReadQueues(
    NicCountersSource& source, const driver::emulated::EmulatedNicCounters& device) {
  std::vector<driver::emulated::EmulatedNicCounters> queues;
  for (size_t queue = 0; queue < device.queues; ++queue) {
    absl::StatusOr<driver::emulated::EmulatedNicCounters> counters = source.ReadQueue(queue);
    if (!counters.ok()) return {};
    queues.push_back(*counters);
  }
  return queues;
}

}  // namespace

model::Snapshot EmulatedNicSnapshots::Collect() {
  model::Snapshot snapshot = inner_.Collect();
  for (const auto& [device, source] : nics_) {
    absl::StatusOr<driver::emulated::EmulatedNicCounters> counters = source->Read();
    model::SourceState state{.name = absl::StrCat("emulated NIC ", device),
                             .source = model::Source::kEmulatedNic,
                             .in_use = counters.ok()};
    if (counters.ok()) {
      state.detail =
          absl::StrCat("interrupts, delivered and missed frames over its ", source->Describe());
      snapshot.emulated_nics.push_back(
          {.device = device, .counters = *counters, .queues = ReadQueues(*source, *counters)});
    } else {
      state.detail = absl::StrCat(source->Describe(), ": ", counters.status().message());
    }
    snapshot.sources.push_back(std::move(state));
  }
  return snapshot;
}

}  // namespace nictune::service
