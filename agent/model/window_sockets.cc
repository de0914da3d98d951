// SPDX-License-Identifier: Apache-2.0
// AddSocketCensus (window_parts.h): the kernel's own per-socket figures over the window.
#include <algorithm>
#include <map>
#include <optional>

#include "agent/model/window_parts.h"

namespace nictune::model::internal {
namespace {

// A socket only the kernel's counters list is worth a row from this fill on (the probes record
// fill from half full too: ProbeOptions::socket_fill_threshold_pct).
constexpr double kFillOfNote = 0.5;

double FillOf(const driver::SocketMemory& s) {
  return s.rcvbuf == 0 ? 0 : static_cast<double>(s.rmem_alloc) / static_cast<double>(s.rcvbuf);
}

// sk_drops moved in the window: against the start's reading, or all of it for a socket the start
// did not keep because it had not dropped then (a complete start lists every one that had).
std::optional<uint64_t> DropsInWindow(const driver::SocketMemory& now,
                                      const driver::SocketMemory* then, bool start_complete) {
  if (then != nullptr) return static_cast<uint32_t>(now.drops - then->drops);  // sk_drops wraps
  if (start_complete) return now.drops;
  return std::nullopt;
}

// The probes' charge per packet over the socket's life, for a socket they tracked but saw nothing
// of in this window (their hook gated or between slots): the charge changes with the traffic, not
// from one window to the next, and a gauge that blinked out with every closed gate would read
// empty most of the time.
std::optional<double> ProbesTruesize(const Snapshot& after, uint64_t cookie) {
  if (!after.bpf) return std::nullopt;
  for (const driver::SocketFill& s : after.bpf->sockets) {
    if (s.key.cookie != cookie || s.truesize_samples == 0) continue;
    return static_cast<double>(s.truesize_sum) / static_cast<double>(s.truesize_samples);
  }
  return std::nullopt;
}

SocketWindow* Find(Window& out, uint64_t cookie) {
  for (SocketWindow& s : out.sockets) {
    if (s.key.cookie == cookie) return &s;
  }
  return nullptr;
}

}  // namespace

void AddSocketCensus(const Snapshot& before, const Snapshot& after, Window& out) {
  if (!after.udp_sockets) return;
  std::map<uint64_t, const driver::SocketMemory*> earlier;
  if (before.udp_sockets) {
    for (const driver::SocketMemory& s : before.udp_sockets->sockets) earlier[s.cookie] = &s;
  }
  const bool start_complete = before.udp_sockets && !before.udp_sockets->truncated;
  for (const driver::SocketMemory& s : after.udp_sockets->sockets) {
    const auto then = earlier.find(s.cookie);
    const std::optional<uint64_t> drops =
        DropsInWindow(s, then == earlier.end() ? nullptr : then->second, start_complete);
    const double fill = FillOf(s);
    SocketWindow* row = Find(out, s.cookie);
    if (row == nullptr) {
      if (drops.value_or(0) == 0 && fill < kFillOfNote) continue;
      out.sockets.push_back(SocketWindow{.key = {.cookie = s.cookie,
                                                 .family = s.family,
                                                 .protocol = s.protocol,
                                                 .local_port = s.local_port,
                                                 .netns_inode = s.netns_inode},
                                         .coverage = {.share = 0}});
      row = &out.sockets.back();
      row->mean_truesize = ProbesTruesize(after, s.cookie);
    }
    row->kernel_drops = drops;
    row->fill = fill;
    row->rmem_alloc = s.rmem_alloc;
    row->rcvbuf = s.rcvbuf;
    row->peak_fill = std::max(row->peak_fill, fill);
  }
  std::sort(out.sockets.begin(), out.sockets.end(),
            [](const SocketWindow& x, const SocketWindow& y) { return x.peak_fill > y.peak_fill; });
}

}  // namespace nictune::model::internal
