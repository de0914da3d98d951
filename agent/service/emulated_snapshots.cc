#include "agent/service/emulated_snapshots.h"

#include "absl/strings/str_cat.h"

namespace nictune::service {

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
      snapshot.emulated_nics.push_back({.device = device, .counters = *counters});
    } else {
      state.detail = absl::StrCat(source->Describe(), ": ", counters.status().message());
    }
    snapshot.sources.push_back(std::move(state));
  }
  return snapshot;
}

}  // namespace nictune::service
