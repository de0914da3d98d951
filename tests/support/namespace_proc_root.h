// SPDX-License-Identifier: Apache-2.0
// A --proc_root for a nictuned in apply mode inside a test's network namespace. The host-wide
// net.core sysctls exist only in the initial namespace, so the agent's start-up check (and any
// write the tuner asks for) would find nothing there, or reach the host's settings from a test.
// This tree gives the agent every /proc entry as a symlink to the real one (procfs' net/ is its
// caller's namespace's, so the agent reads its own), except sys/net/core and sys/net/ipv4: plain
// files holding copies of the host's values, writable, which the agent may change without the
// host ever seeing it. Removed with its directory.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "tests/support/temp_dir.h"

namespace nictune::testing_support {

class NamespaceProcRoot {
 public:
  static absl::StatusOr<NamespaceProcRoot> Create();

  const std::string& path() const { return dir_.path(); }

  // Every copied sysctl file's contents by its path below path(): to compare before and after.
  absl::StatusOr<std::map<std::string, std::string>> SysctlFiles() const;

 private:
  explicit NamespaceProcRoot(TempDir dir) : dir_(std::move(dir)) {}
  TempDir dir_;
};

}  // namespace nictune::testing_support
