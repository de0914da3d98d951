// SPDX-License-Identifier: Apache-2.0
#include "agent/http/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nictune::http {
namespace {

absl::Status Invalid(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--listen=\"", text, "\": ", why,
                   "; expected A.B.C.D:PORT, [IPV6]:PORT or localhost:PORT, e.g. 127.0.0.1:9877"));
}

bool ParsePort(absl::string_view digits, uint16_t& port) {
  if (digits.empty() || digits.size() > 5) return false;
  for (const char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  uint32_t value = 0;
  if (!absl::SimpleAtoi(digits, &value) || value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return true;
}

}  // namespace

absl::StatusOr<ListenAddress> ParseListenAddress(absl::string_view text) {
  ListenAddress address;
  absl::string_view host;
  absl::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find("]:");
    if (close == absl::string_view::npos) return Invalid(text, "an IPv6 literal needs \"]:PORT\"");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    address.ipv6 = true;
  } else {
    const size_t colon = text.rfind(':');
    if (colon == absl::string_view::npos) return Invalid(text, "no host (a bare port is refused)");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (!ParsePort(port, address.port)) return Invalid(text, "the port is not 0..65535");
  if (host == "localhost") host = "127.0.0.1";
  const std::string literal(host);
  unsigned char bytes[sizeof(in6_addr)];
  const int family = address.ipv6 ? AF_INET6 : AF_INET;
  if (literal.empty() || inet_pton(family, literal.c_str(), bytes) != 1) {
    return Invalid(text, address.ipv6 ? "not an IPv6 address" : "not an IPv4 address");
  }
  address.host = literal;
  return address;
}

bool IsLoopback(const ListenAddress& address) {
  if (!address.ipv6) {
    in_addr v4{};
    return inet_pton(AF_INET, address.host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, address.host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string FormatListenAddress(const ListenAddress& address) {
  return address.ipv6 ? absl::StrCat("[", address.host, "]:", address.port)
                      : absl::StrCat(address.host, ":", address.port);
}

}  // namespace nictune::http
