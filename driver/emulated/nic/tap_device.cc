// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic/tap_device.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

ifreq RequestFor(const std::string& device) {
  ifreq request{};
  std::memcpy(request.ifr_name, device.data(), device.size());
  return request;
}

sockaddr_in Ipv4(uint32_t address) {
  sockaddr_in socket_address{};
  socket_address.sin_family = AF_INET;
  socket_address.sin_addr.s_addr = htonl(address);
  return socket_address;
}

absl::Status SetUp(int control_fd, const std::string& device) {
  ifreq request = RequestFor(device);
  if (ioctl(control_fd, SIOCGIFFLAGS, &request) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("SIOCGIFFLAGS ", device), errno);
  }
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  if (ioctl(control_fd, SIOCSIFFLAGS, &request) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("SIOCSIFFLAGS up ", device), errno);
  }
  return absl::OkStatus();
}

absl::Status Configure(int control_fd, const TapConfig& config, std::array<uint8_t, 6>& mac) {
  ifreq request = RequestFor(config.name);
  sockaddr_in address = Ipv4(config.address);
  std::memcpy(&request.ifr_addr, &address, sizeof(address));
  if (ioctl(control_fd, SIOCSIFADDR, &request) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("SIOCSIFADDR ", config.name), errno);
  }
  const uint32_t mask = config.prefix_length == 0 ? 0 : ~uint32_t{0} << (32 - config.prefix_length);
  sockaddr_in netmask = Ipv4(mask);
  std::memcpy(&request.ifr_netmask, &netmask, sizeof(netmask));
  if (ioctl(control_fd, SIOCSIFNETMASK, &request) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("SIOCSIFNETMASK ", config.name), errno);
  }
  if (absl::Status up = SetUp(control_fd, "lo"); !up.ok()) return up;
  if (absl::Status up = SetUp(control_fd, config.name); !up.ok()) return up;
  request = RequestFor(config.name);
  if (ioctl(control_fd, SIOCGIFHWADDR, &request) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("SIOCGIFHWADDR ", config.name), errno);
  }
  std::memcpy(mac.data(), request.ifr_hwaddr.sa_data, mac.size());
  return absl::OkStatus();
}

}  // namespace

bool IsPrivateIpv4(uint32_t address) {
  return (address >> 24) == 10 || (address >> 20) == ((172u << 4) | 1u) ||
         (address >> 16) == ((192u << 8) | 168u);
}

absl::Status ParseIpv4Prefix(const std::string& text, uint32_t& address, int& prefix_length) {
  const size_t slash = text.find('/');
  const std::string host = text.substr(0, slash);
  in_addr parsed{};
  if (inet_pton(AF_INET, host.c_str(), &parsed) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("address '", text, "': not IPv4[/prefix]"));
  }
  address = ntohl(parsed.s_addr);
  prefix_length = 24;
  if (slash != std::string::npos && (!absl::SimpleAtoi(text.substr(slash + 1), &prefix_length) ||
                                     prefix_length < 8 || prefix_length > 30)) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", text, "': prefix length must be 8..30"));
  }
  return absl::OkStatus();
}

absl::Status TapDevice::OpenQueue(size_t queues) {
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return netlink::ErrnoStatus("open /dev/net/tun", errno);
  fds_.push_back(fd);
  ifreq request = RequestFor(name_);
  request.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NAPI;
  if (queues > 1) request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_MULTI_QUEUE);
  if (ioctl(fd, TUNSETIFF, &request) != 0) {
    return netlink::ErrnoStatus(
        absl::StrCat("TUNSETIFF IFF_TAP|IFF_NO_PI|IFF_NAPI", queues > 1 ? "|IFF_MULTI_QUEUE " : " ",
                     name_, " queue ", fds_.size() - 1),
        errno);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TapDevice>> TapDevice::Create(const TapConfig& config) {
  if (config.name.empty() || config.name.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat("TAP device name '", config.name, "': 1 to ", IFNAMSIZ - 1, " characters"));
  }
  if (!IsPrivateIpv4(config.address)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TAP device ", config.name, ": address must be private (10/8, 172.16/12, 192.168/16)"));
  }
  if (config.queues < 1 || config.queues > kMaxQueues) {
    return absl::InvalidArgumentError(absl::StrCat("TAP device ", config.name, ": ", config.queues,
                                                   " queues, expected 1..", kMaxQueues));
  }
  auto device = std::unique_ptr<TapDevice>(new TapDevice(config.name));
  for (size_t queue = 0; queue < config.queues; ++queue) {
    if (absl::Status opened = device->OpenQueue(config.queues); !opened.ok()) return opened;
  }
  const int control_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (control_fd < 0) return netlink::ErrnoStatus("socket(AF_INET) for device ioctls", errno);
  absl::Status configured = Configure(control_fd, config, device->mac_);
  close(control_fd);
  if (!configured.ok()) return configured;
  return device;
}

TapDevice::~TapDevice() {
  for (int fd : fds_) close(fd);
}

bool TapDevice::Deliver(size_t queue, std::span<const uint8_t> frame) {
  const ssize_t written = write(fds_[queue], frame.data(), frame.size());
  return written == static_cast<ssize_t>(frame.size());
}

uint64_t TapDevice::DiscardTransmitted(size_t queue) {
  uint8_t buffer[2048];
  uint64_t frames = 0;
  while (read(fds_[queue], buffer, sizeof(buffer)) > 0) ++frames;
  return frames;
}

}  // namespace nictune::driver::emulated
