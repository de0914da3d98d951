// SPDX-License-Identifier: Apache-2.0
#include "agent/service/per_packet_switch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/log.h"

namespace nictune::service {
namespace {

// /proc/net/snmp's count of UDP datagrams a full receive buffer refused.
constexpr char kUdpRcvbufErrors[] = "Udp.RcvbufErrors";

}  // namespace

std::string SocketPressure(const model::Window& window, double fill_pressure) {
  if (const auto found = window.protocol_per_s.find(kUdpRcvbufErrors);
      found != window.protocol_per_s.end() && found->second > 0) {
    return absl::StrFormat("%s %.0f/s", kUdpRcvbufErrors, found->second);
  }
  for (const auto& [netns, counters] : window.netns_protocol_per_s) {
    if (const auto found = counters.find(kUdpRcvbufErrors);
        found != counters.end() && found->second > 0) {
      return absl::StrFormat("%s %.0f/s in network namespace %u", kUdpRcvbufErrors, found->second,
                             netns);
    }
  }
  for (const model::DropWindow& drop : window.drops) {
    if (drop.reason_name == model::kSocketRcvbuffReason && drop.count > 0) {
      return absl::StrCat(drop.count, " ", model::kSocketRcvbuffReason, " drops",
                          drop.device.empty() ? "" : " on ", drop.device);
    }
  }
  for (const model::SocketWindow& socket : window.sockets) {
    if (socket.kernel_drops.value_or(0) > 0) {
      return absl::StrCat("port ", socket.key.local_port, ": ", *socket.kernel_drops,
                          " drops (sock_diag)");
    }
    if (socket.udp_queue_failures > 0 || socket.rcvqueue_full > 0) {
      return absl::StrCat("port ", socket.key.local_port, ": ",
                          socket.udp_queue_failures + socket.rcvqueue_full, " queue failures");
    }
    if (socket.peak_fill >= fill_pressure) {
      return absl::StrFormat("port %d filled to %.0f%%", socket.key.local_port,
                             100 * socket.peak_fill);
    }
  }
  return "";
}

PerPacketSwitch::PerPacketSwitch(driver::ProbeSource& probes, PerPacketSwitchOptions options)
    : probes_(probes), options_(options) {}

bool PerPacketSwitch::OnInterval(const model::Window& interval) {
  if (on_) return false;
  const std::string pressure = SocketPressure(interval, options_.fill_pressure);
  return !pressure.empty() && Switch(absl::StrCat("per-packet probes on: ", pressure));
}

bool PerPacketSwitch::OnTunerWindow(const model::Window& window) {
  if (!on_) return false;
  if (!SocketPressure(window, options_.fill_pressure).empty()) {
    quiet_ = 0;
    return false;
  }
  if (++quiet_ < options_.quiet_windows) return false;
  return Switch(
      absl::StrCat("per-packet probes off: no socket pressure for ", quiet_, " tuner windows"));
}

bool PerPacketSwitch::Switch(const std::string& why) {
  const bool next = !on_;
  if (absl::Status switched = probes_.SetPerPacketProbes(next); !switched.ok()) {
    agent::LogWarning(
        absl::StrCat("per-packet probes stay ", on_ ? "on" : "off", ": ", switched.message()));
    return false;
  }
  on_ = next;
  quiet_ = 0;
  agent::LogInfo(why);
  return true;
}

}  // namespace nictune::service
