// SPDX-License-Identifier: Apache-2.0
// Stalled readers (docs/design.md glossary): a socket whose reader has not read for longer than
// the socket takes to fill, and than twice the longest pause it came back from in the window,
// drops whatever arrives after the fill, at any interval and any buffer the tuner sets. Those
// drops are the reader's: left out of what the interval plan and the policies judge the queue by,
// and said, since a person has to act on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tuner/observation.h"

namespace nictune::tuner {

struct StalledReader {
  std::string socket;
  double open_wait_s = 0;  // how long its reader has not read
  double fill_time_s = 0;  // how long the socket takes to fill at the window's arrival rate
  double usual_pause_s = 0;  // the longest pause its reader came back from (drain_gap_s)
  uint64_t drops_set_aside = 0;
};

// The socket's reader, if it is stalled: with the drops that arrived after the socket filled
// during its open wait (at the window's mean rate for the socket). A socket without a known
// buffer, charge per packet or rate is none.
std::optional<StalledReader> StalledReaderOf(const SocketObservation& socket,
                                             absl::Duration window);

// Takes each stalled reader's drops (StalledReaderOf) from its socket's and the queue's socket
// drops; returns the readers so treated.
std::vector<StalledReader> SetAsideStalledReaders(QueueObservation& queue, absl::Duration window);

// "socket S: its reader has not read for 2.30 s, past the 4.60 ms the socket takes to fill and
// twice the longest pause it came back from (0.15 ms): 9000 of its drops are the reader's; ...",
// joined by "; ".
std::string StalledReadersText(const std::vector<StalledReader>& stalled);

}  // namespace nictune::tuner
