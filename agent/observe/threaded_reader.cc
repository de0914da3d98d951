// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/threaded_reader.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/observe/sysfs_integer.h"
#include "driver/kernel_name.h"
#include "tuner/limits.h"

namespace nictune::observe {

namespace {

absl::Status Reading(const std::string& device, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("read threaded NAPI mode of ", device, ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::optional<uint32_t>> ReadNapiThreaded(const std::string& sys_root,
                                                         const std::string& device) {
  const std::string dir = absl::StrCat(sys_root, "/class/net/", driver::KernelNameBytes(device));
  // A missing file means "unsupported" only on a device that exists.
  absl::StatusOr<std::optional<int64_t>> ifindex = ReadIntegerFile(dir + "/ifindex");
  if (!ifindex.ok()) return Reading(device, ifindex.status());
  if (!ifindex->has_value()) {
    return Reading(device,
                   absl::NotFoundError(absl::StrCat(dir, " does not exist (no such device)")));
  }
  const std::string path = dir + "/threaded";
  absl::StatusOr<std::optional<int64_t>> mode = ReadIntegerFile(path);
  if (!mode.ok()) return Reading(device, mode.status());
  if (!mode->has_value()) return std::nullopt;
  const tuner::KnobRange range = tuner::KernelRange(tuner::Knob::kNapiThreaded);
  if (!tuner::InRange(**mode, range)) {
    return Reading(device, absl::InvalidArgumentError(absl::StrCat(
                               path, ": ", **mode, " is outside ", range.min, "..", range.max)));
  }
  return static_cast<uint32_t>(**mode);
}

ThreadedReading ReadNapiThreadedModes(const std::string& sys_root,
                                      const std::vector<std::string>& devices) {
  ThreadedReading reading;
  for (const std::string& device : devices) {
    absl::StatusOr<std::optional<uint32_t>> mode = ReadNapiThreaded(sys_root, device);
    if (!mode.ok()) {
      reading.errors.push_back(std::string(mode.status().message()));
    } else if (mode->has_value()) {
      reading.modes[device] = **mode;
    }
  }
  return reading;
}

}  // namespace nictune::observe
