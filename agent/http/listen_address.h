// SPDX-License-Identifier: Apache-2.0
// --listen's HOST:PORT, parsed strictly: an address that does not parse is refused at start,
// never bound as something else.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::http {

struct ListenAddress {
  std::string host;  // the literal as given, without brackets: "127.0.0.1", "::1"
  bool ipv6 = false;
  uint16_t port = 0;  // 0: the kernel picks a free port
};

// "A.B.C.D:PORT" (four decimal parts, as inet_pton reads them), "[IPV6]:PORT", or
// "localhost:PORT" (127.0.0.1). PORT is 0..65535 in decimal. Anything else (a bare port, a host
// name, a list, an address with a zone) is InvalidArgument naming the text and what is wrong.
absl::StatusOr<ListenAddress> ParseListenAddress(absl::string_view text);

// 127.0.0.0/8 and ::1 (and ::ffff:127.x.y.z): nobody beyond this host can connect.
bool IsLoopback(const ListenAddress& address);

// "127.0.0.1:9877", "[::1]:9877".
std::string FormatListenAddress(const ListenAddress& address);

}  // namespace nictune::http
