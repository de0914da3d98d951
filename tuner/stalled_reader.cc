// SPDX-License-Identifier: Apache-2.0
#include "tuner/stalled_reader.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace nictune::tuner {
namespace {

// Seconds as "2.30 s" or "4.60 ms".
std::string Seconds(double s) {
  return s >= 1 ? absl::StrFormat("%.2f s", s) : absl::StrFormat("%.2f ms", s * 1e3);
}

}  // namespace

std::vector<StalledReader> SetAsideStalledReaders(QueueObservation& queue, absl::Duration window) {
  std::vector<StalledReader> stalled;
  const double seconds = absl::ToDoubleSeconds(window);
  if (seconds <= 0) return stalled;
  for (SocketObservation& s : queue.sockets) {
    if (s.open_drain_wait_s <= 0 || s.drops == 0 || s.packets == 0) continue;
    if (s.rcvbuf_bytes == 0 || s.truesize_mean_bytes <= 0) continue;
    const double rate_pps = static_cast<double>(s.packets) / seconds;
    const double fill_time_s =
        static_cast<double>(s.rcvbuf_bytes) / s.truesize_mean_bytes / rate_pps;
    const double stalled_s = std::min(s.open_drain_wait_s, seconds);
    if (stalled_s <= fill_time_s) continue;
    const auto after_fill =
        static_cast<uint64_t>(std::llround(rate_pps * (stalled_s - fill_time_s)));
    const uint64_t set_aside = std::min(s.drops, after_fill);
    if (set_aside == 0) continue;
    s.drops -= set_aside;
    queue.drops.socket -= std::min(queue.drops.socket, set_aside);
    stalled.push_back({.socket = s.name,
                       .open_wait_s = s.open_drain_wait_s,
                       .fill_time_s = fill_time_s,
                       .drops_set_aside = set_aside});
  }
  return stalled;
}

std::string StalledReadersText(const std::vector<StalledReader>& stalled) {
  std::vector<std::string> parts;
  for (const StalledReader& r : stalled) {
    parts.push_back(absl::StrFormat(
        "socket %s: its reader has not read for %s, longer than the %s it takes to fill: %u of "
        "its drops are the reader's; no interval or buffer helps",
        r.socket, Seconds(r.open_wait_s), Seconds(r.fill_time_s), r.drops_set_aside));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace nictune::tuner
