// SPDX-License-Identifier: Apache-2.0
// Built instead of driver/bpf/*.cc when the project is configured with NICTUNE_BPF=OFF.
#include "absl/status/status.h"
#include "driver/dispatch_floor.h"
#include "driver/probe_source.h"

namespace nictune::driver {

absl::StatusOr<std::unique_ptr<ProbeSource>> OpenBpfProbes(const ProbeOptions&) {
  return absl::UnavailableError("BPF probes: this nictuned was built with NICTUNE_BPF=OFF");
}

absl::StatusOr<std::unique_ptr<DispatchFloor>> AttachDispatchFloor(FloorHooks) {
  return absl::UnavailableError("BPF dispatch floor: built with NICTUNE_BPF=OFF");
}

}  // namespace nictune::driver
