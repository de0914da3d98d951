// SPDX-License-Identifier: Apache-2.0
#include "tuner/stalled_reader.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tuner/fill_math.h"

namespace nictune::tuner {
namespace {

// A pause this many times the longest the reader came back from in the window is no longer one
// of its usual pauses.
constexpr double kUsualPauseFactor = 2;

// Seconds as "2.30 s" or "4.60 ms".
std::string Seconds(double s) {
  return s >= 1 ? absl::StrFormat("%.2f s", s) : absl::StrFormat("%.2f ms", s * 1e3);
}

}  // namespace

std::optional<StalledReader> StalledReaderOf(const SocketObservation& s, absl::Duration window) {
  const double seconds = absl::ToDoubleSeconds(window);
  if (seconds <= 0 || s.open_drain_wait_s <= 0 || s.drops == 0 || s.packets == 0) return {};
  if (s.rcvbuf_bytes == 0 || s.truesize_mean_bytes <= 0) return {};
  const double rate_pps = static_cast<double>(s.packets) / seconds;
  absl::StatusOr<FillResult> fill =
      ComputeFill({.rate_pps = rate_pps,
                   .truesize_bytes = s.truesize_mean_bytes,
                   .rcvbuf_bytes = static_cast<double>(s.rcvbuf_bytes),
                   .drain_gap_s = 0,
                   .margin = 0});
  if (!fill.ok()) return {};
  // A reader caught mid-way through the pauses it keeps taking is no stalled reader: a bigger
  // buffer holds those, and the pauses it came back from say how long they last.
  const double usual_pause_s = kUsualPauseFactor * s.drain_gap_s;
  if (s.open_drain_wait_s <= std::max(fill->fill_time_s, usual_pause_s)) return {};
  // The socket filled at (end - wait + fill): what arrived in the window after that.
  const double after_fill_s = std::min(s.open_drain_wait_s - fill->fill_time_s, seconds);
  const uint64_t drops =
      std::min(s.drops, static_cast<uint64_t>(std::llround(rate_pps * after_fill_s)));
  if (drops == 0) return {};
  return StalledReader{.socket = s.name,
                       .open_wait_s = s.open_drain_wait_s,
                       .fill_time_s = fill->fill_time_s,
                       .usual_pause_s = s.drain_gap_s,
                       .drops_set_aside = drops};
}

std::vector<StalledReader> SetAsideStalledReaders(QueueObservation& queue, absl::Duration window) {
  std::vector<StalledReader> stalled;
  for (SocketObservation& s : queue.sockets) {
    std::optional<StalledReader> reader = StalledReaderOf(s, window);
    if (!reader) continue;
    s.drops -= reader->drops_set_aside;
    queue.drops.socket -= std::min(queue.drops.socket, reader->drops_set_aside);
    stalled.push_back(*std::move(reader));
  }
  return stalled;
}

std::string StalledReadersText(const std::vector<StalledReader>& stalled) {
  std::vector<std::string> parts;
  for (const StalledReader& r : stalled) {
    parts.push_back(absl::StrFormat(
        "socket %s: its reader has not read for %s, past the %s the socket takes to fill and "
        "twice the longest pause it came back from (%s): %u of its drops are the reader's; no "
        "interval or buffer helps while it does not read",
        r.socket, Seconds(r.open_wait_s), Seconds(r.fill_time_s), Seconds(r.usual_pause_s),
        r.drops_set_aside));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace nictune::tuner
