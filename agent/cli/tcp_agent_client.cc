// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/tcp_agent_client.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/http_message.h"
#include "agent/http/socket_exchange.h"
#include "driver/file_descriptor.h"

namespace nictune::cli {
namespace {

// A non-blocking connect bounded by the deadline; the error of the last address tried.
absl::StatusOr<int> Connect(const std::string& url, const AgentUrl& address, absl::Time deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(address.host.c_str(), address.port.c_str(), &hints, &found);
      rc != 0) {
    return absl::UnavailableError(
        absl::StrCat(url, ": resolve ", address.host, ": ", ::gai_strerror(rc)));
  }
  absl::Status last = absl::UnavailableError(absl::StrCat(url, ": no address"));
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      last = http::SocketError(url, "socket", errno);
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = http::SocketError(url, "connect", errno);
      ::close(fd);
      continue;
    }
    absl::Status waited = http::WaitForSocket(fd, POLLOUT, deadline, url, "connect");
    int error = 0;
    socklen_t length = sizeof error;
    if (waited.ok() && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    last = waited.ok() ? http::SocketError(url, "connect", error) : waited;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return last;
}

}  // namespace

absl::StatusOr<http::Response> TcpAgentClient::Call(const std::string& method,
                                                    const std::string& target,
                                                    const std::string& body) {
  const absl::Time deadline = absl::Now() + timeout_;
  absl::StatusOr<int> connected = Connect(url_, address_, deadline);
  if (!connected.ok()) return connected.status();
  const driver::FileDescriptor fd(*connected);
  std::vector<std::pair<std::string, std::string>> headers;
  if (token_) headers.emplace_back("Authorization", absl::StrCat("Bearer ", *token_));
  return http::ExchangeOnSocket(fd.get(), http::SerializeRequest(method, target, body, headers),
                                deadline, url_);
}

}  // namespace nictune::cli
