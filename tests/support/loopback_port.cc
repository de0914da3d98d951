// SPDX-License-Identifier: Apache-2.0
#include "tests/support/loopback_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {
namespace {

absl::Status PortError(const std::string& what, int error_number) {
  return ErrnoError(absl::StrCat("free loopback port: ", what), error_number);
}

}  // namespace

absl::StatusOr<uint16_t> FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return PortError("socket", errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error_number = errno;
    close(fd);
    return PortError("bind 127.0.0.1:0", error_number);
  }
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace nictune::testing_support
