// SPDX-License-Identifier: Apache-2.0
#include "tests/support/loopback_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::testing_support {
namespace {

absl::Status ErrnoError(const std::string& what, int error_number) {
  return absl::UnavailableError(
      absl::StrCat(what, ": ", std::strerror(error_number), " (errno ", error_number, ")"));
}

// Closes the socket on every return path.
class SocketCloser {
 public:
  explicit SocketCloser(int fd) : fd_(fd) {}
  SocketCloser(const SocketCloser&) = delete;
  SocketCloser& operator=(const SocketCloser&) = delete;
  ~SocketCloser() { close(fd_); }

 private:
  int fd_;
};

}  // namespace

absl::StatusOr<HttpReply> HttpGetLoopback(uint16_t port, const std::string& target,
                                          absl::Duration timeout) {
  return HttpRequestLoopback(port, {.method = "GET", .target = target}, timeout);
}

absl::StatusOr<HttpReply> HttpRequestLoopback(uint16_t port, const HttpRequestSpec& spec,
                                              absl::Duration timeout) {
  const std::string& target = spec.target;
  const std::string where = absl::StrCat(spec.method, " http://127.0.0.1:", port, target);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError(absl::StrCat(where, ": socket"), errno);
  SocketCloser closer(fd);
  const timeval wait = absl::ToTimeval(timeout);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return ErrnoError(absl::StrCat(where, ": connect"), errno);
  }
  std::string request =
      absl::StrCat(spec.method, " ", target, " HTTP/1.0\r\nHost: 127.0.0.1:", port, "\r\n");
  if (!spec.authorization.empty()) {
    absl::StrAppend(&request, "Authorization: ", spec.authorization, "\r\n");
  }
  if (spec.method != "GET") absl::StrAppend(&request, "Content-Length: ", spec.body.size(), "\r\n");
  absl::StrAppend(&request, "\r\n", spec.body);
  size_t written = 0;
  while (written < request.size()) {
    const ssize_t n = write(fd, request.data() + written, request.size() - written);
    if (n <= 0) return ErrnoError(absl::StrCat(where, ": write"), errno);
    written += static_cast<size_t>(n);
  }
  std::string raw;
  char buffer[16384];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) return ErrnoError(absl::StrCat(where, ": read after ", raw.size(), " bytes"), errno);
    raw.append(buffer, static_cast<size_t>(n));
  }
  const size_t end_of_head = raw.find("\r\n\r\n");
  HttpReply reply;
  if (end_of_head == std::string::npos || raw.size() < 12 || !absl::StartsWith(raw, "HTTP/") ||
      !absl::SimpleAtoi(raw.substr(9, 3), &reply.status)) {
    return absl::DataLossError(
        absl::StrCat(where, ": not an HTTP reply (", raw.size(), " bytes): ", raw.substr(0, 200)));
  }
  const std::string head = absl::AsciiStrToLower(raw.substr(0, end_of_head));
  if (absl::StrContains(head, "transfer-encoding: chunked")) {
    return absl::UnimplementedError(absl::StrCat(where, ": chunked reply to an HTTP/1.0 request"));
  }
  reply.body = raw.substr(end_of_head + 4);
  return reply;
}

std::string UrlEncode(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X",
                            static_cast<unsigned int>(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

}  // namespace nictune::testing_support
