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
  // (knob_catalog) before any write.
  FileKnob(KnobAddress address, std::string path)
      : address_(std::move(address)), path_(std::move(path)) {}

  const KnobAddress& address() const override { return address_; }
  absl::StatusOr<int64_t> Read() override;
  // Writes and reads back (integer_file): the value is in the kernel when this returns Ok.
  absl::Status Write(int64_t value) override;

  const std::string& path() const { return path_; }

 private:
  KnobAddress address_;
  std::string path_;
};

}  // namespace nictune::driver::knobs
