// SPDX-License-Identifier: Apache-2.0
// The body of POST /api/v1/whatif, parsed strictly: an unknown, repeated or mistyped field, or a
// value outside its range (tuner/whatif.h), is an error naming the field, so a typo in a script
// fails loudly instead of silently answering a different question.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tuner/whatif.h"

namespace nictune::http {

// body must be one JSON object with the required rate_pps, truesize_bytes, rcvbuf_bytes and the
// optional drain_gap_us, margin, rx_usecs, ring_size. Byte counts, microseconds and descriptors
// are JSON integers; rate and margin any number. Every value within tuner/whatif.h's ranges (a
// rate from 1 pps), else InvalidArgument naming the field (or the body).
absl::StatusOr<tuner::WhatIfQuestion> ParseWhatifRequest(absl::string_view body);

}  // namespace nictune::http
