#include "driver/knobs/file_knob.h"

#include "absl/strings/str_cat.h"
#include "driver/knobs/integer_file.h"
#include "driver/knobs/knob_catalog.h"

namespace nictune::driver::knobs {

std::string FileKnob::Describe() const {
  const std::string_view name = tuner::KnobName(address_.knob);
  return absl::StrCat(absl::string_view(name.data(), name.size()), " on ", address_.target);
}

absl::StatusOr<int64_t> FileKnob::Read() { return ReadIntegerFile(path_, Describe()); }

absl::Status FileKnob::Write(int64_t value) {
  if (absl::Status status = CheckKnobValue(address_, value); !status.ok()) return status;
  return WriteIntegerFile(path_, value, Describe());
}

}  // namespace nictune::driver::knobs
