// SPDX-License-Identifier: Apache-2.0
#include "agent/http/unix_socket_client.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/http_message.h"
#include "agent/http/socket_exchange.h"
#include "driver/file_descriptor.h"

namespace nictune::http {

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
  const std::string where = absl::StrCat("unix socket ", socket_path);
  const driver::FileDescriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return SocketError(where, "socket", errno);
  // A unix connect does not wait for accept(): it completes or fails at once (EAGAIN when the
  // backlog is full).
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return SocketError(where, "connect", errno);
  }
  return ExchangeOnSocket(fd.get(), SerializeRequest(method, target, body, {}), deadline, where);
}

}  // namespace nictune::http
