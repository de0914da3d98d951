// SPDX-License-Identifier: Apache-2.0
// The census' two ways of listing a namespace's UDP sockets (driver/socket_memory.h): sock_diag,
// and /proc/net/udp where sock_diag cannot answer.
#include <netinet/in.h>
#include <sys/socket.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "driver/netlink/sock_diag.h"
#include "driver/network_namespaces.h"
#include "driver/proc_net_udp.h"
#include "driver/socket_memory.h"

namespace nictune::driver {
namespace {

// A line of /proc/net/udp is 128 bytes: this holds about half a million sockets.
constexpr size_t kMaxProcNetUdpBytes = 64 << 20;

class SockDiagListing : public UdpSocketLister {
 public:
  std::string_view name() const override { return "sock_diag"; }

  absl::Status List(uint32_t netns_inode,
                    absl::FunctionRef<void(const SocketMemory&)> on_socket) override {
    absl::StatusOr<netlink::SockDiagSocket> socket = netlink::SockDiagSocket::Open(netns_inode);
    if (!socket.ok()) return socket.status();
    for (const uint8_t family : {uint8_t{AF_INET}, uint8_t{AF_INET6}}) {
      if (absl::Status dumped = socket->DumpUdp(family, on_socket); !dumped.ok()) return dumped;
    }
    return absl::OkStatus();
  }
};

class ProcNetUdpListing : public UdpSocketLister {
 public:
  std::string_view name() const override { return "/proc/net/udp"; }

  absl::Status List(uint32_t netns_inode,
                    absl::FunctionRef<void(const SocketMemory&)> on_socket) override {
    for (const auto& [file, family] :
         {std::pair<const char*, uint16_t>{"udp", AF_INET}, {"udp6", AF_INET6}}) {
      absl::StatusOr<std::string> text = ReadThreadProcNet(file, kMaxProcNetUdpBytes);
      // A kernel without IPv6 has no udp6.
      if (!text.ok() && family == AF_INET6 && absl::IsUnavailable(text.status())) continue;
      if (!text.ok()) return text.status();
      absl::StatusOr<std::vector<SocketMemory>> sockets =
          ParseProcNetUdp(*text, absl::StrCat("/proc/net/", file), family, netns_inode);
      if (!sockets.ok()) return sockets.status();
      for (const SocketMemory& socket : *sockets) on_socket(socket);
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<UdpSocketLister> SockDiagUdpLister() { return std::make_unique<SockDiagListing>(); }

std::unique_ptr<UdpSocketLister> ProcNetUdpLister() {
  return std::make_unique<ProcNetUdpListing>();
}

}  // namespace nictune::driver
