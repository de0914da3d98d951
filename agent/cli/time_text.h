// SPDX-License-Identifier: Apache-2.0
// How the CLI shows a time: UTC to the second ("2026-11-29 23:21:21"), in every view.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace nictune::cli {

std::string TimeText(absl::Time time);

}  // namespace nictune::cli
