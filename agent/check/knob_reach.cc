// SPDX-License-Identifier: Apache-2.0
#include "agent/check/knob_reach.h"

#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"
#include "driver/kernel_name.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_target.h"

namespace nictune::check {
namespace {

using driver::knobs::KnobHome;
using driver::knobs::KnobSpec;

// Ok when a write to `path` would pass its mode and mount; the errno access(2) gives otherwise.
absl::Status FileWritable(const std::string& path) {
  if (::access(path.c_str(), W_OK) == 0) return absl::OkStatus();
  const int error = errno;
  return absl::PermissionDeniedError(
      absl::StrCat(path, ": not writable: ", driver::ErrnoText(error)));
}

std::string SpecPath(const KnobSpec& spec) {
  return std::string(spec.path.data(), spec.path.size());
}

absl::Status WriteVerdict(const driver::knobs::KernelPaths& paths, const std::string& target,
                          const KnobSpec& spec, const absl::Status& net_admin) {
  switch (spec.home) {
    case KnobHome::kHostSysctl:
      return FileWritable(absl::StrCat(paths.proc_root, "/", SpecPath(spec)));
    case KnobHome::kDeviceSysfs:
      if (!net_admin.ok()) return net_admin;
      return FileWritable(absl::StrCat(paths.sys_root, "/class/net/",
                                       driver::KernelNameBytes(target), "/", SpecPath(spec)));
    case KnobHome::kEthtoolCoalesce:
      return net_admin;
    case KnobHome::kEthtoolRings:
    case KnobHome::kAdviceOnly:
      break;
  }
  return absl::UnimplementedError("advice only");
}

bool Settable(tuner::Knob knob, bool host) {
  return !tuner::ByHandOnly(knob) && tuner::ActsOnHost(knob) == host;
}

}  // namespace

KnobReach CheckKnobReach(const driver::knobs::KernelPaths& paths, const std::string& target,
                         const std::string& driver, const absl::Status& net_admin) {
  const bool host = target == driver::knobs::kHostTarget;
  driver::knobs::KernelKnobProvider provider(paths);
  KnobReach reach{.target = target, .driver = driver, .knobs = {}};
  for (const tuner::Knob knob : tuner::kAllKnobs) {
    if (!Settable(knob, host)) continue;
    KnobAccessCheck check{.knob = knob, .read = absl::OkStatus(), .write = absl::OkStatus()};
    absl::StatusOr<std::unique_ptr<driver::knobs::KnobAccess>> access =
        provider.Open({.knob = knob, .target = target});
    check.read = access.ok() ? (*access)->Read().status() : access.status();
    if (check.read.ok()) {
      check.write = WriteVerdict(paths, target, driver::knobs::SpecOf(knob), net_admin);
    }
    reach.knobs.push_back(std::move(check));
  }
  return reach;
}

}  // namespace nictune::check
