// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/file_knob.h"

#include <sys/stat.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/knobs/integer_file.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_status.h"

namespace nictune::driver::knobs {

absl::Status FileKnob::DeviceGoneOr(absl::Status status) const {
  if (!IsUnsupported(status) || device_dir_.empty()) return status;
  struct stat info {};
  if (::stat(device_dir_.c_str(), &info) == 0 || errno != ENOENT) return status;
  return absl::NotFoundError(absl::StrCat(DescribeKnob(address_), ": the device is gone (",
                                          device_dir_, " no longer exists): ", status.message()));
}

absl::StatusOr<int64_t> FileKnob::Read() {
  absl::StatusOr<int64_t> value = ReadIntegerFile(path_, DescribeKnob(address_));
  if (!value.ok()) return DeviceGoneOr(value.status());
  return value;
}

absl::Status FileKnob::Write(int64_t value) {
  if (absl::Status status = CheckKnobValue(address_, value); !status.ok()) return status;
  return DeviceGoneOr(WriteIntegerFile(path_, value, DescribeKnob(address_)));
}

}  // namespace nictune::driver::knobs
