// SPDX-License-Identifier: Apache-2.0
#include "agent/service/apply_self_test.h"

#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"

namespace nictune::service {
namespace {

// Why the file is missing: net.core's budget sysctls exist only in the initial network namespace
// (a container's /proc/sys/net has ipv4 but no core/netdev_budget), else PROC_ROOT is no proc.
std::string WhyMissing(const std::string& proc_root) {
  const std::string ipv4 = absl::StrCat(proc_root, "/sys/net/ipv4");
  if (::access(ipv4.c_str(), F_OK) == 0) {
    return "; this process is not in the host's (initial) network namespace, the only one that "
           "has net.core's budget sysctls: run nictuned in the host's network namespace";
  }
  return absl::StrCat("; ", proc_root, " has no sys/net either: is --proc_root a proc mount?");
}

}  // namespace

absl::Status CheckSysctlsWritable(const std::string& proc_root) {
  // A file, not the directory: /proc/sys directories are never writable, even to root. access(2)
  // answers EROFS for a read-only mount without writing anything.
  const std::string path = absl::StrCat(proc_root, "/sys/net/core/netdev_budget");
  if (::access(path.c_str(), W_OK) == 0) return absl::OkStatus();
  const int error = errno;
  std::string why;
  if (error == EROFS) why = "; /proc/sys is mounted read-only (systemd ProtectKernelTunables=yes?)";
  if (error == ENOENT) why = WhyMissing(proc_root);
  return absl::FailedPreconditionError(
      absl::StrCat("--mode=apply: ", path, " is not writable: ", driver::ErrnoText(error), why,
                   "; apply mode cannot change the host's settings, refusing to start"));
}

}  // namespace nictune::service
