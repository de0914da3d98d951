// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for POST /api/v1/whatif: no body may crash the parser or the answer (ASan,
// UBSan: an out-of-range double cast to an integer is undefined and aborts), every accepted body
// holds values inside the ranges of tuner/whatif.h, and every answer advises a buffer at least
// the question's with simulations whose span and ring are inside their bounds. Seeds:
// tests/fuzz/seeds/http_whatif (deploy/fuzz.sh).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "agent/http/whatif_request.h"
#include "tuner/sim_whatif.h"
#include "tuner/whatif.h"

namespace {

namespace tuner = nictune::tuner;

bool WithinLimits(const tuner::WhatIfQuestion& q) {
  return std::isfinite(q.rate_pps) && q.rate_pps >= tuner::kMinWhatIfRatePps &&
         q.rate_pps <= tuner::kMaxWhatIfRatePps && q.truesize_bytes >= 1 &&
         q.truesize_bytes <= tuner::kMaxWhatIfTruesizeBytes && q.rcvbuf_bytes >= 1 &&
         q.rcvbuf_bytes <= tuner::kMaxWhatIfRcvbufBytes && q.drain_gap_us >= 0 &&
         q.drain_gap_us <= tuner::kMaxWhatIfDrainGapUs && std::isfinite(q.margin) &&
         q.margin >= 0 && q.margin <= tuner::kMaxWhatIfMargin &&
         (!q.rx_usecs || (*q.rx_usecs >= 0 && *q.rx_usecs <= tuner::kMaxWhatIfRxUsecs)) &&
         (!q.ring_size || (*q.ring_size >= 1 && *q.ring_size <= tuner::kMaxWhatIfRingSize));
}

// The run the route would make at rx_usecs with rcvbuf_bytes; simulated when it is short (the
// longest take seconds under the sanitizers, past libFuzzer's per-input timeout).
void Simulate(const tuner::WhatIfQuestion& q, int64_t rx_usecs, int64_t rcvbuf_bytes) {
  const tuner::WhatIfInput in = tuner::WhatIfSimulationInput(q, rx_usecs, rcvbuf_bytes);
  if (in.duration_us < 1 || in.duration_us > tuner::kMaxWhatIfSimulatedUs || in.ring_size < 1 ||
      in.ring_size > tuner::kMaxSimRingSize) {
    std::abort();
  }
  if (q.rate_pps * static_cast<double>(in.duration_us) * 1e-6 > 1e5) return;
  if (!tuner::SimulateWhatIf(in).ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const auto question = nictune::http::ParseWhatifRequest(input);
  if (!question.ok()) return 0;
  if (!WithinLimits(*question)) std::abort();
  const auto advice = tuner::AdviseWhatIf(*question);
  if (!advice.ok()) std::abort();  // a question within the limits always has an answer
  if (advice->rcvbuf_bytes < question->rcvbuf_bytes || advice->rcvbuf_bytes <= 0) std::abort();
  const int64_t rx_usecs = question->rx_usecs.value_or(advice->rx_usecs);
  if (tuner::HoldAt(*advice, rx_usecs).rcvbuf_needed_bytes < 0) std::abort();
  Simulate(*question, rx_usecs, question->rcvbuf_bytes);
  Simulate(*question, advice->rx_usecs, advice->rcvbuf_bytes);
  return 0;
}
