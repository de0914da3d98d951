// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/control_client.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"
#include "driver/file_descriptor.h"

namespace nictune::driver::emulated {
namespace {

absl::Status ErrnoError(absl::string_view path, absl::string_view operation, int error_number) {
  return absl::UnavailableError(absl::StrCat("emulated NIC control socket ", path, ": ", operation,
                                             ": ", ErrnoText(error_number)));
}

}  // namespace

absl::StatusOr<std::string> ControlClient::Call(const ControlRequest& request) const {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("emulated NIC control socket ", socket_path_,
                                                   ": path longer than ",
                                                   sizeof(address.sun_path) - 1, " bytes"));
  }
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
  FileDescriptor fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return ErrnoError(socket_path_, "socket", errno);
  timeval timeout = absl::ToTimeval(timeout_);
  if (setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
      setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) != 0) {
    return ErrnoError(socket_path_, "setsockopt(SO_RCVTIMEO/SO_SNDTIMEO)", errno);
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error_number = errno;
    absl::Status failed = ErrnoError(socket_path_, "connect", error_number);
    if (error_number == ENOENT || error_number == ECONNREFUSED) {
      return absl::NotFoundError(absl::StrCat(failed.message(), ": no emulated NIC serves it"));
    }
    return failed;
  }
  const std::string line = FormatControlRequest(request) + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = send(fd.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError(socket_path_, "send", errno);
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buffer[4096];
  while (response.find('\n') == std::string::npos) {
    const ssize_t n = recv(fd.get(), buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError(socket_path_, "recv", errno);
    if (n == 0) {
      return absl::UnavailableError(absl::StrCat("emulated NIC control socket ", socket_path_,
                                                 ": closed before answering '",
                                                 FormatControlRequest(request), "'"));
    }
    response.append(buffer, static_cast<size_t>(n));
  }
  absl::StatusOr<std::string> value = ParseControlResponse(response.substr(0, response.find('\n')));
  if (!value.ok()) {
    return absl::Status(value.status().code(), absl::StrCat("emulated NIC ", socket_path_, " '",
                                                            FormatControlRequest(request),
                                                            "': ", value.status().message()));
  }
  return value;
}

}  // namespace nictune::driver::emulated
