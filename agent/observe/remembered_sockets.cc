// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/remembered_sockets.h"

#include <set>
#include <utility>

#include "driver/probe_tracepoints.h"

namespace nictune::observe {
namespace {

// This window's figures of a socket it did not list are unknown; what describes its buffer, its
// traffic's shape and its reader stays as last seen.
tuner::SocketObservation AsCarried(const tuner::SocketObservation& last, double seconds_unseen) {
  tuner::SocketObservation carried = last;
  carried.packets = 0;
  carried.arrivals_measured = false;
  carried.arrivals_share = 0;
  carried.drops = 0;
  carried.peak_fill = 0;
  carried.open_drain_wait_s = 0;
  carried.seconds_unseen = seconds_unseen;
  return carried;
}

// A watch of at least this share of the window saw all of it: what it did not list got nothing.
constexpr double kWholeWatch = 0.99;

absl::Time EndOf(const model::Window& window) { return absl::FromUnixNanos(window.end_unix_ns); }

}  // namespace

double SocketHookWatchedSeconds(const model::Window& window) {
  for (const model::ProbeWindow& probe : window.probes) {
    if (probe.hook == driver::kSocketFillConcern) return probe.coverage * window.seconds;
  }
  return 0;
}

RememberedPlaces RememberedDevices(const RememberedSockets& remembered) {
  RememberedPlaces places;
  std::map<SocketAddress, absl::Time> latest;
  for (const auto& [cookie, socket] : remembered) {
    places.by_cookie[cookie] = socket.placed.device;
    const SocketAddress address = AddressOf(socket.placed.key);
    const auto seen = latest.find(address);
    if (seen != latest.end() && seen->second > socket.seen_at) continue;
    latest[address] = socket.seen_at;
    places.by_address[address] = socket.placed.device;
  }
  return places;
}

std::vector<PlacedSocket> CarriedSockets(const RememberedSockets& remembered,
                                         const SocketPlacement& placement,
                                         const model::Window& window,
                                         const SocketCarryOptions& options) {
  std::set<uint64_t> listed;
  for (const PlacedSocket& p : placement.placed) listed.insert(p.key.cookie);
  const double watched_s = SocketHookWatchedSeconds(window);
  const double watched_share = window.seconds > 0 ? watched_s / window.seconds : 0;
  const bool whole_watch = watched_share >= kWholeWatch;
  std::vector<PlacedSocket> carried;
  for (const auto& [cookie, socket] : remembered) {
    const absl::Duration unseen = EndOf(window) - socket.seen_at;
    if (unseen > options.limit || listed.count(cookie) > 0) continue;
    // A socket whose rate was never counted can be judged by a whole window's watch alone.
    const bool judged =
        whole_watch || (watched_share >= options.judging_watch &&
                        socket.arrivals_per_s * watched_s >= options.packets_to_judge);
    if (judged) continue;
    PlacedSocket p = socket.placed;
    p.socket = AsCarried(socket.placed.socket, absl::ToDoubleSeconds(unseen));
    p.carried = true;
    carried.push_back(std::move(p));
  }
  return carried;
}

RememberedSockets RememberSockets(const RememberedSockets& remembered,
                                  const SocketPlacement& placement, const model::Window& window) {
  RememberedSockets next;
  for (const PlacedSocket& p : placement.placed) {
    const auto earlier = remembered.find(p.key.cookie);
    if (p.carried) {
      if (earlier != remembered.end()) next.emplace(p.key.cookie, earlier->second);
      continue;
    }
    RememberedSocket& record = next[p.key.cookie];
    record.placed = p;
    record.seen_at = EndOf(window);
    if (p.socket.arrivals_measured && window.seconds > 0) {
      record.arrivals_per_s = static_cast<double>(p.socket.packets) / window.seconds;
    } else if (earlier != remembered.end()) {
      record.arrivals_per_s = earlier->second.arrivals_per_s;
    }
  }
  return next;
}

}  // namespace nictune::observe
