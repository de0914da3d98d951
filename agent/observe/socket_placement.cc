#include "agent/observe/socket_placement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/observe/window_counts.h"

namespace nictune::observe {
namespace {

constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint16_t kAfInet6 = 10;
constexpr char kSocketRcvbuffReason[] = "SOCKET_RCVBUFF";

std::string SocketName(const driver::SocketKey& key) {
  std::string proto = key.protocol == kIpProtoUdp   ? "udp"
                      : key.protocol == kIpProtoTcp ? "tcp"
                                                    : absl::StrCat("proto ", key.protocol);
  if (key.family == kAfInet6) absl::StrAppend(&proto, "6");
  return absl::StrFormat("%s port %u cookie %u", proto, key.local_port, key.cookie);
}

// The device with the most drops among the records `matches` selects; empty when none names one.
template <typename Match>
std::string DeviceWithMostDrops(const std::vector<model::DropWindow>& drops, Match matches) {
  std::map<std::string, uint64_t> per_device;
  for (const model::DropWindow& d : drops) {
    if (!d.device.empty() && matches(d)) per_device[d.device] += d.count;
  }
  std::string best;
  uint64_t most = 0;
  for (const auto& [device, count] : per_device) {
    if (best.empty() || count > most) {
      best = device;
      most = count;
    }
  }
  return best;
}

std::string DeviceOf(const model::SocketWindow& s, const model::Window& window,
                     const std::map<uint16_t, std::string>& port_devices) {
  std::string device = DeviceWithMostDrops(
      window.drops, [&](const model::DropWindow& d) { return d.socket_cookie == s.key.cookie; });
  if (!device.empty()) return device;
  if (s.key.local_port != 0) {
    device = DeviceWithMostDrops(window.drops, [&](const model::DropWindow& d) {
      return d.local_port == s.key.local_port && d.l4_protocol == s.key.protocol;
    });
    if (!device.empty()) return device;
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

// Two probes see a full receive buffer: kfree_skb with SOCKET_RCVBUFF and the socket's own
// rcvqueue_full / udp_fail_queue_rcv_skb events. They count the same drops, so the larger wins.
uint64_t DropsOf(const model::SocketWindow& s, const model::Window& window) {
  uint64_t by_reason = 0;
  for (const model::DropWindow& d : window.drops) {
    if (d.socket_cookie == s.key.cookie && d.reason_name == kSocketRcvbuffReason) {
      by_reason += d.count;
    }
  }
  return std::max(by_reason, s.rcvqueue_full + s.udp_queue_failures);
}

}  // namespace

SocketPlacement PlaceSockets(const model::Window& window, const tuner::HostKnobs& host,
                             const std::map<uint16_t, std::string>& port_devices) {
  SocketPlacement out;
  for (const model::SocketWindow& s : window.sockets) {
    tuner::SocketObservation o{.name = SocketName(s.key)};
    const std::string device = DeviceOf(s, window, port_devices);
    if (device.empty()) {
      out.unplaced.push_back(o.name);
      continue;
    }
    o.drops = DropsOf(s, window);
    // What arrived for the socket: what it took and what its full buffer refused. Counting only
    // the taken packets would read an overflowing socket's rate as its buffer's drain rate.
    const uint64_t enqueued = CountOver(s.enqueues_per_s, window.seconds);
    o.packets = enqueued > UINT64_MAX - o.drops ? UINT64_MAX : enqueued + o.drops;
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
    o.rcvbuf_locked = s.key.protocol == kIpProtoUdp && s.rcvbuf != 0 &&
                      static_cast<int64_t>(s.rcvbuf) != host.rmem_default;
    out.placed.push_back(PlacedSocket{.device = device, .socket = std::move(o)});
  }
  return out;
}

}  // namespace nictune::observe
