// SPDX-License-Identifier: Apache-2.0
// POST /api/v1/whatif: the tuner's plan (tuner/whatif.h) and the simulator on the numbers a
// person supplies: the interval and buffer the tuner would set for that socket, the buffer an
// interval asked about needs, and the simulator's run of each. It reads and writes nothing of the
// host, so it needs no token.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"

namespace nictune::http {

inline constexpr const char* kWhatifPath = "/api/v1/whatif";

absl::Status AddWhatifRoute(Router& router);

}  // namespace nictune::http
