// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/socket_placement.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/model/socket_arrivals.h"
#include "agent/observe/window_counts.h"
#include "tuner/observation_check.h"

namespace nictune::observe {
namespace {

constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint16_t kAfInet6 = 10;

std::string SocketName(const driver::SocketKey& key) {
  std::string proto = key.protocol == kIpProtoUdp   ? "udp"
                      : key.protocol == kIpProtoTcp ? "tcp"
                                                    : absl::StrCat("proto ", key.protocol);
  if (key.family == kAfInet6) absl::StrAppend(&proto, "6");
  return absl::StrFormat("%s port %u cookie %u", proto, key.local_port, key.cookie);
}

// The window's drop records indexed once, so that placing each socket is a lookup: scanning every
// record for every socket grew with sockets x records, and every overflowing socket has its own
// records (10000 tracked sockets took 0.3 s per tuner window).
struct DropIndex {
  using PerDevice = std::map<std::string, uint64_t>;  // device -> drops, records naming one
  std::unordered_map<uint64_t, PerDevice> by_cookie;
  std::map<std::pair<uint16_t, uint8_t>, PerDevice> by_port;  // (local port, l4 protocol)
};

DropIndex IndexDrops(const std::vector<model::DropWindow>& drops) {
  DropIndex index;
  for (const model::DropWindow& d : drops) {
    if (d.device.empty()) continue;
    index.by_cookie[d.socket_cookie][d.device] += d.count;
    index.by_port[{d.local_port, d.l4_protocol}][d.device] += d.count;
  }
  return index;
}

// The device with the most drops (the first by name of those tied); empty when none names one.
template <typename Key, typename Index>
std::string DeviceWithMostDrops(const Index& index, const Key& key) {
  const auto found = index.find(key);
  if (found == index.end()) return std::string();
  std::string best;
  uint64_t most = 0;
  for (const auto& [device, count] : found->second) {
    if (best.empty() || count > most) {
      best = device;
      most = count;
    }
  }
  return best;
}

std::string DeviceOf(const model::SocketWindow& s, const DropIndex& drops,
                     const std::map<uint16_t, std::string>& port_devices,
                     const RememberedPlaces& remembered) {
  std::string device = DeviceWithMostDrops(drops.by_cookie, s.key.cookie);
  if (!device.empty()) return device;
  if (s.key.local_port != 0) {
    device = DeviceWithMostDrops(drops.by_port, std::pair(s.key.local_port, s.key.protocol));
    if (!device.empty()) return device;
  }
  if (const auto earlier = remembered.by_cookie.find(s.key.cookie);
      earlier != remembered.by_cookie.end()) {
    return earlier->second;
  }
  if (s.key.local_port != 0) {
    const auto predecessor = remembered.by_address.find(AddressOf(s.key));
    if (predecessor != remembered.by_address.end()) return predecessor->second;
  }
  const auto configured = port_devices.find(s.key.local_port);
  return configured == port_devices.end() ? std::string() : configured->second;
}

const model::TruesizeWindow* TruesizeOf(const model::Window& window, const std::string& device) {
  for (const model::TruesizeWindow& t : window.truesize) {
    if (t.device == device) return &t;
  }
  return nullptr;
}

}  // namespace

SocketAddress AddressOf(const driver::SocketKey& key) {
  return {.netns_inode = key.netns_inode, .protocol = key.protocol, .local_port = key.local_port};
}

SocketDevices DevicesOfSockets(const model::Window& window,
                               const std::map<uint16_t, std::string>& port_devices,
                               const RememberedPlaces& remembered) {
  SocketDevices devices;
  const DropIndex drops = IndexDrops(window.drops);
  for (const model::SocketWindow& s : window.sockets) {
    std::string device = DeviceOf(s, drops, port_devices, remembered);
    if (!device.empty()) devices[s.key.cookie] = std::move(device);
  }
  return devices;
}

SocketPlacement PlaceSockets(const model::Window& window, const tuner::HostKnobs& host,
                             const std::map<uint16_t, std::string>& port_devices,
                             const RememberedPlaces& remembered) {
  SocketPlacement out;
  const SocketDevices devices = DevicesOfSockets(window, port_devices, remembered);
  const model::RcvbuffDropsByCookie rcvbuff = model::IndexRcvbuffDrops(window.drops);
  for (const model::SocketWindow& s : window.sockets) {
    tuner::SocketObservation o{.name = SocketName(s.key)};
    const auto placed = devices.find(s.key.cookie);
    if (placed == devices.end()) {
      out.unplaced.push_back(o.name);
      continue;
    }
    const std::string& device = placed->second;
    o.drops = model::SocketDrops(s, rcvbuff);
    // What arrived for the socket (agent/model/socket_arrivals.h).
    const uint64_t enqueued = CountOver(s.enqueues_per_s, window.seconds);
    o.packets = enqueued > UINT64_MAX - o.drops ? UINT64_MAX : enqueued + o.drops;
    // Coverage 0: no probe counted its enqueues in the window (only the kernel's counters listed
    // it, or its hook's slots missed the window), so the 0 above is not a count.
    o.arrivals_measured = s.coverage.share > 0;
    o.arrivals_share = std::clamp(s.coverage.share, 0.0, 1.0);
    o.peak_rate_pps = s.peak_arrivals_per_s;
    const model::TruesizeWindow* histogram = TruesizeOf(window, device);
    if (s.mean_truesize) {
      o.truesize_mean_bytes = *s.mean_truesize;
    } else if (histogram != nullptr) {
      o.truesize_mean_bytes = histogram->mean_bytes;
    }
    if (histogram != nullptr) o.truesize_p99_bytes = histogram->p99_bytes;
    o.rcvbuf_bytes = s.rcvbuf;
    // UDP admits one packet past a full buffer, so rmem_alloc can pass sk_rcvbuf a little; the
    // buffer was full.
    o.peak_fill = std::clamp(s.peak_fill, 0.0, 1.0);
    // The longest wait the probe saw a read end: a floor where its slots saw part of the window.
    // A socket read once in hours is held to the tuner's bound, which no buffer covers anyway,
    // rather than fail the whole window's check.
    o.drain_gap_s = std::min(s.longest_drain_gap_s, tuner::kMaxDrainGapSeconds);
    o.drain_gap_seen_below_s = s.drain_gap_seen_below_s;
    o.open_drain_wait_s = std::min(s.open_drain_wait_s, tuner::kMaxDrainGapSeconds);
    o.rcvbuf_locked = s.key.protocol == kIpProtoUdp && s.rcvbuf != 0 &&
                      static_cast<int64_t>(s.rcvbuf) != host.rmem_default;
    out.placed.push_back(PlacedSocket{.device = device, .key = s.key, .socket = std::move(o)});
  }
  return out;
}

RememberedPlaces PlacesOf(const model::Window& window, const SocketDevices& devices) {
  RememberedPlaces places;
  for (const model::SocketWindow& s : window.sockets) {
    const auto placed = devices.find(s.key.cookie);
    if (placed == devices.end()) continue;
    places.by_cookie[s.key.cookie] = placed->second;
    places.by_address[AddressOf(s.key)] = placed->second;
  }
  return places;
}

std::map<std::string, uint64_t> PlacedDropsByDevice(const SocketPlacement& placement) {
  std::map<std::string, uint64_t> drops;
  for (const PlacedSocket& p : placement.placed) drops[p.device] += p.socket.drops;
  return drops;
}

}  // namespace nictune::observe
