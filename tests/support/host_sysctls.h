// SPDX-License-Identifier: Apache-2.0
// Host-wide sysctls in tests: read and written as text, and a restorer that puts every one it
// captured back when it goes out of scope, also after a failed ASSERT, so that a test leaves the
// host (shared with other tests and people) as it found it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::testing_support {

// The host-wide sysctls the tuner recommends and apply mode may write (tuner/knob.h): the
// net.core budget, weight and buffer sysctls, and net.ipv4.udp_rmem_min.
const std::vector<std::string>& TunedHostSysctls();

// The file's text without trailing whitespace ("212992"); the error names the path and errno.
absl::StatusOr<std::string> ReadSysctl(const std::string& path);
absl::StatusOr<int64_t> ReadSysctlInteger(const std::string& path);
// Writes `value` in one write(2), as `sysctl -w` does.
absl::Status WriteSysctl(const std::string& path, const std::string& value);

class SysctlRestorer {
 public:
  // Reads every path now; fails (restoring nothing) when one cannot be read.
  static absl::StatusOr<std::unique_ptr<SysctlRestorer>> Capture(
      const std::vector<std::string>& paths);
  SysctlRestorer(const SysctlRestorer&) = delete;
  SysctlRestorer& operator=(const SysctlRestorer&) = delete;
  // Restore(), with a failure reported on stderr and, inside a test, as its failure.
  ~SysctlRestorer();

  // path -> the text it held at Capture.
  const std::map<std::string, std::string>& originals() const { return originals_; }
  // Writes `value` to a captured path (InvalidArgument for one not captured).
  absl::Status Set(const std::string& path, const std::string& value);
  // Writes back every captured sysctl whose value differs from its original, and checks it took.
  absl::Status Restore();
  // "path: now X, was Y" for every captured sysctl that differs from its original; empty if none.
  std::string Differences() const;

 private:
  explicit SysctlRestorer(std::map<std::string, std::string> originals)
      : originals_(std::move(originals)) {}
  std::map<std::string, std::string> originals_;
};

}  // namespace nictune::testing_support
