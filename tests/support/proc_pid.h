// SPDX-License-Identifier: Apache-2.0
// What /proc says about a process a test started (by its pid): its resident memory, its
// capabilities, and whether it still runs (a zombie does not).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::testing_support {

// The value of one "Field:" line of /proc/PID/status, without surrounding blanks.
absl::StatusOr<std::string> StatusField(pid_t pid, absl::string_view field);

// VmRSS of /proc/PID/status, in bytes.
absl::StatusOr<uint64_t> ResidentBytes(pid_t pid);

// A capability set of /proc/PID/status ("CapEff", "CapBnd", "CapAmb" ...): bit N is capability N.
absl::StatusOr<uint64_t> CapabilitySet(pid_t pid, absl::string_view set);

// True while /proc/PID/stat exists and its state is not Z (zombie) or X (dead).
absl::StatusOr<bool> StillRunning(pid_t pid);

}  // namespace nictune::testing_support
