// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/other_tuners.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "agent/procfs/read_file.h"

namespace nictune::observe {
namespace {

struct KnownTuner {
  absl::string_view comm;  // /proc/PID/comm, at most 15 characters
  absl::string_view overlap;
};

constexpr KnownTuner kKnownTuners[] = {
    {"tuned",
     "its profiles set net.core sysctls (netdev_budget, rmem) and, with the net plugin, ethtool "
     "coalescing and rings"},
    {"bpftune",
     "its net_buffer tuner raises netdev_budget and netdev_budget_usecs, its buffer tuners rmem"},
    {"irqbalance",
     "it moves queue interrupts between CPUs: the per-CPU figures of a queue follow it"},
};

}  // namespace

absl::StatusOr<std::vector<OtherTuner>> FindOtherTuners(const std::string& proc_root) {
  std::error_code error;
  if (!std::filesystem::exists(proc_root + "/1", error)) {
    return absl::FailedPreconditionError(absl::StrCat(
        proc_root, "/1 is not visible: other services' processes are hidden from nictuned "
                   "(systemd ProtectProc=invisible, or another pid namespace)"));
  }
  std::vector<OtherTuner> found;
  for (std::filesystem::directory_iterator it(proc_root, error), end; !error && it != end;
       it.increment(error)) {
    int pid = 0;
    if (!absl::SimpleAtoi(it->path().filename().string(), &pid)) continue;
    absl::StatusOr<std::string> comm = procfs::ReadFile(it->path().string() + "/comm");
    if (!comm.ok()) continue;  // gone since the listing
    const absl::string_view name = absl::StripAsciiWhitespace(*comm);
    for (const KnownTuner& tuner : kKnownTuners) {
      if (name == tuner.comm) {
        found.push_back(
            {.name = std::string(tuner.comm), .pid = pid, .overlap = std::string(tuner.overlap)});
      }
    }
  }
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("listing ", proc_root, ": ", error.message(), " (errno ", error.value(), ")"));
  }
  std::sort(found.begin(), found.end(),
            [](const OtherTuner& a, const OtherTuner& b) { return a.pid < b.pid; });
  return found;
}

}  // namespace nictune::observe
