#include "agent/service/apply_self_test.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace nictune::service {

absl::Status CheckSysctlsWritable(const std::string& proc_root) {
  // A file, not the directory: /proc/sys directories are never writable, even to root. access(2)
  // answers EROFS for a read-only mount without writing anything.
  const std::string path = absl::StrCat(proc_root, "/sys/net/core/netdev_budget");
  if (::access(path.c_str(), W_OK) == 0) return absl::OkStatus();
  const int error = errno;
  return absl::FailedPreconditionError(absl::StrCat(
      "--mode=apply: ", path, " is not writable: ", std::strerror(error), " (errno ", error, ")",
      error == EROFS ? "; /proc/sys is mounted read-only (systemd ProtectKernelTunables=yes?)" : "",
      "; apply mode cannot change the host's settings, refusing to start"));
}

}  // namespace nictune::service
