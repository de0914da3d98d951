// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the agent's HTTP server: requests cut short, with fuzzed headers, over the
// unix socket. The one route checks that every body it is handed is whole: the body states its
// own length in its first 8 bytes, and the route aborts when what arrived differs. The input
// chooses the declared length, the headers and where the client stops sending; the server must
// never hand a route a partial body, whatever comes before or after the cut.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/http/listener.h"
#include "agent/http/router.h"
#include "agent/http/server.h"

namespace {

namespace http = nictune::http;

constexpr size_t kLengthDigits = 8;

std::string SocketPath() {
  static const std::string path = absl::StrCat("/tmp/nictune-http-fuzz-", ::getpid(), ".sock");
  return path;
}

// The body must say its own length; anything else is a body the server cut or padded.
http::Response CheckWhole(const http::Request& request) {
  size_t stated = 0;
  if (request.body.size() < kLengthDigits ||
      !absl::SimpleAtoi(request.body.substr(0, kLengthDigits), &stated) ||
      stated != request.body.size()) {
    std::fprintf(stderr, "route got a %zu-byte body that says %s\n", request.body.size(),
                 request.body.substr(0, kLengthDigits).c_str());
    std::abort();
  }
  return http::Response{.body = "{}"};
}

http::HttpServer& Server() {
  static http::HttpServer* const server = [] {
    ::unlink(SocketPath().c_str());
    absl::StatusOr<http::Listener> listener = http::Listener::Unix(SocketPath(), 64);
    if (!listener.ok()) std::abort();
    http::Router router;
    if (!router.Add("POST", "/check", http::Effect::kReadsOnly, CheckWhole).ok()) std::abort();
    auto started = http::HttpServer::Start(*std::move(listener), {}, std::move(router));
    if (!started.ok()) std::abort();
    return started->release();
  }();
  return *server;
}

// A header value from fuzz bytes, kept on its line.
std::string HeaderValue(const uint8_t* data, size_t size) {
  std::string value;
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    value += (c == '\r' || c == '\n' || c == '\0') ? ' ' : c;
  }
  return value;
}

void Send(const std::string& bytes) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, SocketPath().c_str(), sizeof address.sun_path - 1);
  timeval timeout{.tv_sec = 5, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
    (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buffer[4096];
    while (::read(fd, buffer, sizeof buffer) > 0) {
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Server();
  if (size < 4) return 0;
  // data[0..1]: the body's length (at least its 8 digits); data[2..3]: where the client stops,
  // as a share of the request; the rest: one header's value and the body's filler.
  const size_t body_length = kLengthDigits + ((size_t{data[0]} << 8 | data[1]) % 4096);
  const size_t cut_share = size_t{data[2]} << 8 | data[3];
  const size_t header_bytes = (size - 4) / 2;
  std::string body = absl::StrCat(absl::Dec(body_length, absl::kZeroPad8));
  for (size_t i = 0; body.size() < body_length; ++i) {
    body += static_cast<char>(
        size - 4 > header_bytes ? data[4 + header_bytes + i % (size - 4 - header_bytes)] : 'x');
  }
  const std::string request = absl::StrCat(
      "POST /check HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\nX-Fuzz: ",
      HeaderValue(data + 4, header_bytes), "\r\nContent-Length: ", body_length, "\r\n\r\n", body);
  // cut_share 65535 and above the request's length: the whole request.
  const size_t cut = std::min(request.size(), request.size() * cut_share / 65535);
  Send(request.substr(0, cut));
  return 0;
}
