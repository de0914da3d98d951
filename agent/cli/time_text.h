// SPDX-License-Identifier: Apache-2.0
// How the CLI shows a time: UTC to the second ("2026-11-29 23:21:21"), in every view.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace nictune::cli {

std::string TimeText(absl::Time time);

// The agent's RFC 3339 time ("2026-11-29T23:21:21.5+00:00") as TimeText shows it, with " UTC";
// the text as given when it is not one.
std::string AgentTimeText(const std::string& rfc3339);

}  // namespace nictune::cli
