// SPDX-License-Identifier: Apache-2.0
// A KnobAccess over one integer file: the host sysctls under PROC_ROOT/sys/net and the per-device
// sysfs settings under SYS_ROOT/class/net/DEV (napi_defer_hard_irqs, gro_flush_timeout).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "driver/knobs/knob_access.h"

namespace nictune::driver::knobs {

class FileKnob final : public KnobAccess {
 public:
  // `path` is the file to read and write; values are checked against the knob's kernel range
  // (knob_catalog) before any write. `device_dir` (SYS_ROOT/class/net/DEV, empty for a sysctl)
  // tells a device that went away (NotFound) from a kernel without the file (unsupported).
  FileKnob(KnobAddress address, std::string path, std::string device_dir = "")
      : address_(std::move(address)), path_(std::move(path)), device_dir_(std::move(device_dir)) {}

  const KnobAddress& address() const override { return address_; }
  absl::StatusOr<int64_t> Read() override;
  // Writes and reads back (integer_file): the value is in the kernel when this returns Ok.
  absl::Status Write(int64_t value) override;

  const std::string& path() const { return path_; }

 private:
  // A missing file reads as unsupported; when the device's directory went with it, the device is
  // gone (removed or renamed): NotFound, as for a device the provider cannot find.
  absl::Status DeviceGoneOr(absl::Status status) const;

  KnobAddress address_;
  std::string path_;
  std::string device_dir_;
};

}  // namespace nictune::driver::knobs
