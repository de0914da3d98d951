// SPDX-License-Identifier: Apache-2.0
// What NAPI makes of one interrupt's burst on the emulated NIC (driver/emulated/README.md, "The
// model"): the burst is in the TAP queue's backlog before its threaded poll starts; each poll takes
// up to the weight; a poll that takes the whole weight is repolled; the poll that takes less
// completes, and since the burst's later frames found the NAPI scheduled (tun marks it "missed"),
// the kernel polls once more and finds nothing. A real NIC's interrupt schedules its NAPI once and
// has no such last empty poll.
#pragma once

#include <cstdint>

namespace nictune::testing_support {

struct BurstPolls {
  int64_t polls = 0;             // napi:napi_poll events for the burst
  int64_t budget_exhausted = 0;  // of them, those whose work reached the weight
};

inline BurstPolls PredictBurstPolls(int64_t frames, int64_t weight) {
  if (frames <= 0) return {};
  const int64_t full = frames / weight;
  // The full polls, the one that completes (it may find nothing when frames is a multiple of the
  // weight), and the empty one after it when a second frame marked the NAPI missed.
  return {.polls = full + 1 + (frames > 1 ? 1 : 0), .budget_exhausted = full};
}

}  // namespace nictune::testing_support
