// SPDX-License-Identifier: Apache-2.0
// The host-wide knobs the tuner reasons about, read from procfs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/observation.h"

namespace nictune::observe {

// Reads net.core.* / net.ipv4.udp_rmem_min from PROC_ROOT/sys/...; a file that is missing keeps
// the kernel default and is listed in `missing` (a container may hide them).
struct HostKnobsReading {
  tuner::HostKnobs knobs;
  std::vector<std::string> missing;  // paths of the files that were not there
};

// Fails when a file exists but cannot be read or does not hold one integer.
absl::StatusOr<HostKnobsReading> ReadHostKnobs(const std::string& proc_root);

}  // namespace nictune::observe
