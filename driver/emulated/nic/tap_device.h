// The TAP device the emulated NIC feeds: IFF_TAP | IFF_NO_PI | IFF_NAPI, so that every frame
// written to it goes through the kernel's NAPI, GRO and socket receive path as a driver's would.
// Configured with ioctls in the calling thread's network namespace (the emulated NIC's own).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace nictune::driver::emulated {

struct TapConfig {
  std::string name = "emu0";
  uint32_t address = 0;  // host byte order
  int prefix_length = 24;
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
  int fd() const { return fd_; }

  // Hands one frame to the kernel as received. true when the TAP took the whole frame.
  bool Deliver(std::span<const uint8_t> frame);

  // Reads and discards what the kernel transmitted through the device (ARP, ICMP errors), so its
  // queue never fills. Returns the number of frames discarded.
  uint64_t DiscardTransmitted();

 private:
  TapDevice(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  int fd_ = -1;
  std::string name_;
  std::array<uint8_t, 6> mac_{};
};

// True for 10/8, 172.16/12 and 192.168/16: the only addresses the emulated NIC will use.
bool IsPrivateIpv4(uint32_t address);

// "10.77.0.1/24" -> address and prefix; InvalidArgument naming the text otherwise.
absl::Status ParseIpv4Prefix(const std::string& text, uint32_t& address, int& prefix_length);

}  // namespace nictune::driver::emulated
