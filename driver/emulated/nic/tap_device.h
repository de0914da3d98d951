// SPDX-License-Identifier: Apache-2.0
// The TAP device the emulated NIC feeds: IFF_TAP | IFF_NO_PI | IFF_NAPI, so that every frame
// written to it goes through the kernel's NAPI, GRO and socket receive path as a driver's would.
// With several queues it is IFF_MULTI_QUEUE: one file descriptor per queue, each with a NAPI
// instance of its own, and a frame written to a queue's descriptor is received on that queue.
// Configured with ioctls in the calling thread's network namespace (the emulated NIC's own).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/emulated/flow_spec.h"

namespace nictune::driver::emulated {

struct TapConfig {
  std::string name = "emu0";
  uint32_t address = 0;  // host byte order
  int prefix_length = 24;
  size_t queues = 1;  // 1..kMaxQueues
};

class TapDevice {
 public:
  // Creates the device, gives it its address (the kernel adds the connected route), brings it
  // and loopback up.
  static absl::StatusOr<std::unique_ptr<TapDevice>> Create(const TapConfig& config);
  TapDevice(const TapDevice&) = delete;
  TapDevice& operator=(const TapDevice&) = delete;
  ~TapDevice();

  const std::string& name() const { return name_; }
  const std::array<uint8_t, 6>& mac() const { return mac_; }
  size_t queues() const { return fds_.size(); }
  int fd(size_t queue) const { return fds_[queue]; }

  // Hands one frame to the kernel as received on `queue`. true when the TAP took the whole frame.
  bool Deliver(size_t queue, std::span<const uint8_t> frame);

  // Reads and discards what the kernel transmitted through one queue (ARP, ICMP errors), so it
  // never fills. Returns the number of frames discarded.
  uint64_t DiscardTransmitted(size_t queue);

 private:
  explicit TapDevice(std::string name) : name_(std::move(name)) {}
  absl::Status OpenQueue(size_t queues);
  std::vector<int> fds_;
  std::string name_;
  std::array<uint8_t, 6> mac_{};
};

// True for 10/8, 172.16/12 and 192.168/16: the only addresses the emulated NIC will use.
bool IsPrivateIpv4(uint32_t address);

// "10.77.0.1/24" -> address and prefix; InvalidArgument naming the text otherwise.
absl::Status ParseIpv4Prefix(const std::string& text, uint32_t& address, int& prefix_length);

}  // namespace nictune::driver::emulated
