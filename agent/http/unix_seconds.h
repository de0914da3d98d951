// SPDX-License-Identifier: Apache-2.0
// Times in the API's JSON bodies: seconds since the Unix epoch, with their fraction.
#pragma once

#include "absl/time/time.h"

namespace nictune::http {

inline double UnixSeconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

}  // namespace nictune::http
