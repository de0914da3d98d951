// SPDX-License-Identifier: Apache-2.0
// Named values checked against their inclusive ranges, the first one outside (or NaN) named in an
// InvalidArgument: "what-if: rate_pps = 1e-12 must be in [1, 1e+07]".
#pragma once

#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace nictune::tuner {

struct NamedRange {
  const char* name;
  double value;
  double min;
  double max;
};

inline absl::Status CheckRanges(absl::string_view what, std::initializer_list<NamedRange> ranges) {
  for (const NamedRange& r : ranges) {
    if (!(r.value >= r.min && r.value <= r.max)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: %s = %g must be in [%g, %g]", what, r.name, r.value, r.min, r.max));
    }
  }
  return absl::OkStatus();
}

}  // namespace nictune::tuner
