#include "agent/http/unix_socket_client.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/http/http_message.h"

namespace nictune::http {
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

absl::Status Failure(const std::string& socket_path, absl::string_view operation, int error) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat("unix socket ", socket_path, ": ", operation, ": ",
                                   std::strerror(error), " (errno ", error, ")"));
}

// poll() until fd is ready for `events` or the deadline passes (ETIMEDOUT).
absl::Status WaitFor(int fd, short events, absl::Time deadline, const std::string& socket_path,
                     absl::string_view operation) {
  for (;;) {
    const int64_t ms =
        std::clamp<int64_t>(absl::ToInt64Milliseconds(deadline - absl::Now()), 0, 1'000'000);
    pollfd p{.fd = fd, .events = events, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(ms));
    if (ready > 0) return absl::OkStatus();
    if (ready == 0) return Failure(socket_path, operation, ETIMEDOUT);
    if (errno != EINTR) return Failure(socket_path, operation, errno);
  }
}

}  // namespace

absl::StatusOr<Response> Call(const std::string& socket_path, const std::string& method,
                              const std::string& target, const std::string& body,
                              absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof address.sun_path) {
    return absl::InvalidArgumentError(absl::StrCat("unix socket \"", socket_path,
                                                   "\": path empty or longer than ",
                                                   sizeof address.sun_path - 1, " bytes"));
  }
  std::memcpy(address.sun_path, socket_path.data(), socket_path.size());
  const Descriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return Failure(socket_path, "socket", errno);
  // A unix connect does not wait for accept(): it completes or fails at once (EAGAIN when the
  // backlog is full).
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return Failure(socket_path, "connect", errno);
  }

  const std::string request = SerializeRequest(method, target, body);
  absl::string_view unsent = request;
  while (!unsent.empty()) {
    if (absl::Status s = WaitFor(fd.get(), POLLOUT, deadline, socket_path, "send"); !s.ok()) {
      return s;
    }
    const ssize_t n = ::send(fd.get(), unsent.data(), unsent.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    // The server may answer early (413, 403) and close before reading the rest: read its answer.
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) break;
    if (n < 0) return Failure(socket_path, "send", errno);
    unsent.remove_prefix(static_cast<size_t>(n));
  }

  std::string reply;
  char chunk[16384];
  for (;;) {
    if (absl::Status s = WaitFor(fd.get(), POLLIN, deadline, socket_path, "read"); !s.ok()) {
      return s;
    }
    const ssize_t n = ::recv(fd.get(), chunk, sizeof chunk, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0 && errno == ECONNRESET && !reply.empty()) break;
    if (n < 0) return Failure(socket_path, "read", errno);
    if (n == 0) break;
    reply.append(chunk, static_cast<size_t>(n));
    if (reply.size() > kMaxClientResponseBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "unix socket ", socket_path, ": response exceeds ", kMaxClientResponseBytes, " bytes"));
    }
  }
  absl::StatusOr<Response> response = ParseResponse(reply);
  if (!response.ok()) {
    return absl::DataLossError(
        absl::StrCat("unix socket ", socket_path, ": ", response.status().message()));
  }
  return response;
}

}  // namespace nictune::http
