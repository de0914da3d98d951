#include "driver/knobs/file_knob.h"

#include "driver/knobs/integer_file.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_status.h"

namespace nictune::driver::knobs {

absl::StatusOr<int64_t> FileKnob::Read() { return ReadIntegerFile(path_, DescribeKnob(address_)); }

absl::Status FileKnob::Write(int64_t value) {
  if (absl::Status status = CheckKnobValue(address_, value); !status.ok()) return status;
  return WriteIntegerFile(path_, value, DescribeKnob(address_));
}

}  // namespace nictune::driver::knobs
