#include "driver/knobs/host_sysctl.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "driver/knobs/integer_file.h"

namespace nictune::driver::knobs {
namespace {

constexpr char kWhat[] = "netdev_max_backlog on host";

std::string BacklogPath(const std::string& proc_root) {
  return absl::StrCat(proc_root, "/sys/net/core/netdev_max_backlog");
}

}  // namespace

absl::StatusOr<int64_t> ReadNetdevMaxBacklog(const std::string& proc_root) {
  return ReadIntegerFile(BacklogPath(proc_root), kWhat);
}

absl::Status WriteNetdevMaxBacklog(const std::string& proc_root, int64_t value) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (value < 1 || value > kMax) {
    return absl::InvalidArgumentError(absl::StrCat(kWhat, ": ", value, " is outside 1..", kMax,
                                                   " (a backlog <= 0 drops every packet)"));
  }
  return WriteIntegerFile(BacklogPath(proc_root), value, kWhat);
}

}  // namespace nictune::driver::knobs
