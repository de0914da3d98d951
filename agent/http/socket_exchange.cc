// SPDX-License-Identifier: Apache-2.0
#include "agent/http/socket_exchange.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/http_message.h"
#include "driver/errno_text.h"

namespace nictune::http {

absl::Status SocketError(absl::string_view where, absl::string_view operation, int error) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat(where, ": ", operation, ": ", driver::ErrnoText(error)));
}

absl::Status WaitForSocket(int fd, short events, absl::Time deadline, absl::string_view where,
                           absl::string_view operation) {
  for (;;) {
    const int64_t ms =
        std::clamp<int64_t>(absl::ToInt64Milliseconds(deadline - absl::Now()), 0, 1'000'000);
    pollfd p{.fd = fd, .events = events, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(ms));
    if (ready > 0) return absl::OkStatus();
    if (ready == 0) return SocketError(where, operation, ETIMEDOUT);
    if (errno != EINTR) return SocketError(where, operation, errno);
  }
}

absl::StatusOr<Response> ExchangeOnSocket(int fd, absl::string_view request, absl::Time deadline,
                                          absl::string_view where) {
  absl::string_view unsent = request;
  while (!unsent.empty()) {
    if (absl::Status s = WaitForSocket(fd, POLLOUT, deadline, where, "send"); !s.ok()) return s;
    const ssize_t n = ::send(fd, unsent.data(), unsent.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    // The server may answer early (413, 403) and close before reading the rest: read its answer.
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) break;
    if (n < 0) return SocketError(where, "send", errno);
    unsent.remove_prefix(static_cast<size_t>(n));
  }

  std::string reply;
  char chunk[16384];
  for (;;) {
    if (absl::Status s = WaitForSocket(fd, POLLIN, deadline, where, "read"); !s.ok()) return s;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0 && errno == ECONNRESET && !reply.empty()) break;
    if (n < 0) return SocketError(where, "read", errno);
    if (n == 0) break;
    reply.append(chunk, static_cast<size_t>(n));
    if (reply.size() > kMaxClientResponseBytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(where, ": response exceeds ", kMaxClientResponseBytes, " bytes"));
    }
  }
  absl::StatusOr<Response> response = ParseResponse(reply);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat(where, ": ", response.status().message()));
  }
  return response;
}

}  // namespace nictune::http
