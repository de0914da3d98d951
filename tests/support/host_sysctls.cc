// SPDX-License-Identifier: Apache-2.0
#include "tests/support/host_sysctls.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {

const std::vector<std::string>& TunedHostSysctls() {
  static const std::vector<std::string> paths = {
      "/proc/sys/net/core/netdev_budget",      "/proc/sys/net/core/netdev_budget_usecs",
      "/proc/sys/net/core/dev_weight",         "/proc/sys/net/core/dev_weight_rx_bias",
      "/proc/sys/net/core/dev_weight_tx_bias", "/proc/sys/net/core/rmem_default",
      "/proc/sys/net/core/rmem_max",           "/proc/sys/net/ipv4/udp_rmem_min"};
  return paths;
}

absl::StatusOr<std::string> ReadSysctl(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(absl::StrCat("open ", path), errno);
  char buffer[256];
  const ssize_t got = read(fd, buffer, sizeof(buffer));
  const int read_errno = errno;
  close(fd);
  if (got < 0) return ErrnoError(absl::StrCat("read ", path), read_errno);
  return std::string(
      absl::StripTrailingAsciiWhitespace(absl::string_view(buffer, static_cast<size_t>(got))));
}

absl::StatusOr<int64_t> ReadSysctlInteger(const std::string& path) {
  absl::StatusOr<std::string> text = ReadSysctl(path);
  if (!text.ok()) return text.status();
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return absl::DataLossError(absl::StrCat(path, ": not an integer: \"", *text, "\""));
  }
  return value;
}

absl::Status WriteSysctl(const std::string& path, const std::string& value) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(absl::StrCat("open ", path, " for writing"), errno);
  const ssize_t wrote = write(fd, value.data(), value.size());
  const int write_errno = errno;
  close(fd);
  if (wrote < 0) return ErrnoError(absl::StrCat("write \"", value, "\" to ", path), write_errno);
  if (static_cast<size_t>(wrote) != value.size()) {
    return absl::InternalError(absl::StrCat("write \"", value, "\" to ", path, ": ", wrote, " of ",
                                            value.size(), " bytes taken"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SysctlRestorer>> SysctlRestorer::Capture(
    const std::vector<std::string>& paths) {
  std::map<std::string, std::string> originals;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> value = ReadSysctl(path);
    if (!value.ok()) return value.status();
    originals[path] = *value;
  }
  return std::unique_ptr<SysctlRestorer>(new SysctlRestorer(std::move(originals)));
}

SysctlRestorer::~SysctlRestorer() {
  absl::Status restored = Restore();
  if (restored.ok()) return;
  std::cerr << "SysctlRestorer: " << restored << "\n";
  // Inside a test it fails that test; a benchmark's main has no test to fail.
  if (::testing::UnitTest::GetInstance()->current_test_info() != nullptr) {
    ADD_FAILURE() << "a host sysctl is not back at its original: " << restored;
  }
}

absl::Status SysctlRestorer::Set(const std::string& path, const std::string& value) {
  if (!originals_.contains(path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("SysctlRestorer::Set ", path, ": not captured, so it would not be restored"));
  }
  return WriteSysctl(path, value);
}

absl::Status SysctlRestorer::Restore() {
  std::string failures;
  for (const auto& [path, original] : originals_) {
    absl::StatusOr<std::string> now = ReadSysctl(path);
    if (now.ok() && *now == original) continue;
    absl::Status written = WriteSysctl(path, original);
    absl::StatusOr<std::string> after = ReadSysctl(path);
    if (!written.ok()) {
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", written.message());
    } else if (!after.ok() || *after != original) {
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", path, " reads ",
                      after.ok() ? *after : after.status().ToString(), " after writing ", original);
    }
  }
  if (!failures.empty()) return absl::InternalError(failures);
  return absl::OkStatus();
}

std::string SysctlRestorer::Differences() const {
  std::string out;
  for (const auto& [path, original] : originals_) {
    absl::StatusOr<std::string> now = ReadSysctl(path);
    if (now.ok() && *now == original) continue;
    absl::StrAppend(&out, out.empty() ? "" : "; ", path, ": now ",
                    now.ok() ? *now : now.status().ToString(), ", was ", original);
  }
  return out;
}

}  // namespace nictune::testing_support
