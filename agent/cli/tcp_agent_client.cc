#include "agent/cli/tcp_agent_client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/http_message.h"
#include "agent/http/unix_socket_client.h"

namespace nictune::cli {
namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status Failure(const std::string& url, absl::string_view operation, int error) {
  return absl::Status(
      absl::ErrnoToStatusCode(error),
      absl::StrCat(url, ": ", operation, ": ", std::strerror(error), " (errno ", error, ")"));
}

// poll() until fd is ready for `events` or the deadline passes (ETIMEDOUT).
absl::Status WaitFor(int fd, short events, absl::Time deadline, const std::string& url,
                     absl::string_view operation) {
  for (;;) {
    const int64_t ms =
        std::clamp<int64_t>(absl::ToInt64Milliseconds(deadline - absl::Now()), 0, 1'000'000);
    pollfd p{.fd = fd, .events = events, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(ms));
    if (ready > 0) return absl::OkStatus();
    if (ready == 0) return Failure(url, operation, ETIMEDOUT);
    if (errno != EINTR) return Failure(url, operation, errno);
  }
}

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
      last = Failure(url, "socket", errno);
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = Failure(url, "connect", errno);
      ::close(fd);
      continue;
    }
    absl::Status waited = WaitFor(fd, POLLOUT, deadline, url, "connect");
    int error = 0;
    socklen_t length = sizeof error;
    if (waited.ok() && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    last = waited.ok() ? Failure(url, "connect", error) : waited;
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
  const Descriptor fd(*connected);

  std::string request = http::SerializeRequest(method, target, body);
  if (token_) {
    // After the request line: SerializeRequest has no parameter for extra headers.
    request.insert(request.find("\r\n") + 2,
                   absl::StrCat("Authorization: Bearer ", *token_, "\r\n"));
  }
  absl::string_view unsent = request;
  while (!unsent.empty()) {
    if (absl::Status s = WaitFor(fd.get(), POLLOUT, deadline, url_, "send"); !s.ok()) return s;
    const ssize_t n = ::send(fd.get(), unsent.data(), unsent.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    // The server may answer early (413, 403) and close before reading the rest: read its answer.
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) break;
    if (n < 0) return Failure(url_, "send", errno);
    unsent.remove_prefix(static_cast<size_t>(n));
  }

  std::string reply;
  char chunk[16384];
  for (;;) {
    if (absl::Status s = WaitFor(fd.get(), POLLIN, deadline, url_, "read"); !s.ok()) return s;
    const ssize_t n = ::recv(fd.get(), chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0 && errno == ECONNRESET && !reply.empty()) break;
    if (n < 0) return Failure(url_, "read", errno);
    if (n == 0) break;
    reply.append(chunk, static_cast<size_t>(n));
    if (reply.size() > http::kMaxClientResponseBytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(url_, ": response exceeds ", http::kMaxClientResponseBytes, " bytes"));
    }
  }
  absl::StatusOr<http::Response> response = http::ParseResponse(reply);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat(url_, ": ", response.status().message()));
  }
  return response;
}

}  // namespace nictune::cli
