// The body of POST /api/v1/whatif, parsed strictly: an unknown, repeated or mistyped field, or a
// value outside its range, is an error naming the field, so a typo in a script fails loudly
// instead of silently answering a different question.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tuner/policy_config.h"

namespace nictune::http {

struct WhatifRequest {
  double rate_pps = 0;                    // arrival rate into the socket
  int64_t truesize_bytes = 0;             // kernel charge per packet (skb->truesize)
  int64_t rcvbuf_bytes = 0;               // sk_rcvbuf
  int64_t drain_gap_us = 0;               // longest time the reader leaves the socket undrained
  double margin = tuner::kDefaultMargin;  // fraction of the fill time kept unused, as the tuner
  std::optional<int64_t> rx_usecs;        // interval to simulate; none: the recommended one
};

// Ranges, inclusive: beyond them the question is not a socket's (10 Mpps into one socket, a
// reader away for 100 ms, an interrupt every 100 ms), and they bound the simulation a request
// runs (whatif_route.h). rcvbuf is the kernel's int.
inline constexpr double kMaxWhatifRatePps = 1e7;
inline constexpr int64_t kMaxWhatifTruesizeBytes = int64_t{1} << 30;
inline constexpr int64_t kMaxWhatifRcvbufBytes = 2147483647;  // sk_rcvbuf is an int
inline constexpr int64_t kMaxWhatifDrainGapUs = 100'000;
inline constexpr double kMaxWhatifMargin = 0.9;
inline constexpr int64_t kMaxWhatifRxUsecs = 100'000;

// body must be one JSON object with the required rate_pps, truesize_bytes, rcvbuf_bytes and the
// optional drain_gap_us, margin, rx_usecs. Byte counts and microseconds are JSON integers; rate
// and margin any finite number. InvalidArgument naming the field (or the body) otherwise.
absl::StatusOr<WhatifRequest> ParseWhatifRequest(absl::string_view body);

}  // namespace nictune::http
