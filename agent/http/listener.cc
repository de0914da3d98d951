// SPDX-License-Identifier: Apache-2.0
#include "agent/http/listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/log.h"
#include "driver/errno_text.h"

namespace nictune::http {
namespace {

absl::Status ErrnoStatus(int error, absl::string_view what) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat(what, ": ", driver::ErrnoText(error)));
}

absl::StatusOr<sockaddr_un> UnixAddress(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path[0] != '/' || path.size() >= sizeof address.sun_path) {
    return absl::InvalidArgumentError(absl::StrCat("unix socket \"", path,
                                                   "\": expected an absolute path shorter than ",
                                                   sizeof address.sun_path, " bytes"));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

// Whether a listener could take the path: nothing there, or a socket nobody listens on (true:
// it is to be replaced); an error for a live socket and anything not a socket.
absl::StatusOr<bool> StaleSocketAt(const std::string& path, const sockaddr_un& address) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": lstat"));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("unix socket ", path, ": exists and is not a socket; not replacing it"));
  }
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": socket"));
  const int connected =
      ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int connect_errno = errno;
  ::close(probe);
  if (connected == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "unix socket ", path, ": another process (an agent already running?) listens on it"));
  }
  if (connect_errno != ECONNREFUSED) {
    return ErrnoStatus(connect_errno,
                       absl::StrCat("unix socket ", path, ": probing the existing socket"));
  }
  return true;
}

// Replaces a socket file nobody listens on; refuses a live one and anything not a socket.
absl::Status ClearStaleSocket(const std::string& path, const sockaddr_un& address) {
  absl::StatusOr<bool> stale = StaleSocketAt(path, address);
  if (!stale.ok() || !*stale) return stale.status();
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": removing the stale socket"));
  }
  agent::LogInfo(
      absl::StrCat("unix socket ", path, ": replaced a stale socket nobody listened on"));
  return absl::OkStatus();
}

absl::Status MakeParentDirectory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return absl::OkStatus();
  const std::string parent = path.substr(0, slash);
  if (::mkdir(parent.c_str(), 0755) == 0) {
    // mkdir's mode passes through the umask; the CLI needs to traverse it.
    if (::chmod(parent.c_str(), 0755) != 0) {
      return ErrnoStatus(errno, absl::StrCat("unix socket directory ", parent, ": chmod 0755"));
    }
    return absl::OkStatus();
  }
  if (errno == EEXIST) return absl::OkStatus();
  return ErrnoStatus(errno, absl::StrCat("unix socket directory ", parent, ": mkdir"));
}

// Binds fd to the TCP address and reads back the port the kernel gave.
absl::StatusOr<uint16_t> BindTcp(int fd, const ListenAddress& address, const std::string& name) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (address.ipv6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(address.port);
    inet_pton(AF_INET6, address.host.c_str(), &v6->sin6_addr);
    length = sizeof *v6;
  } else {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(address.port);
    inet_pton(AF_INET, address.host.c_str(), &v4->sin_addr);
    length = sizeof *v4;
  }
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) != 0) {
    return ErrnoStatus(errno, absl::StrCat("listen on ", name, ": bind"));
  }
  socklen_t bound_length = sizeof storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &bound_length) != 0) {
    return ErrnoStatus(errno, absl::StrCat("listen on ", name, ": getsockname"));
  }
  return ntohs(address.ipv6 ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                            : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
}

}  // namespace

absl::StatusOr<Listener> Listener::Tcp(const ListenAddress& address, int backlog) {
  const std::string name = FormatListenAddress(address);
  const int fd =
      ::socket(address.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("listen on ", name, ": socket"));
  Listener listener(fd, Transport::kTcp, name);
  const int on = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      (address.ipv6 && ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0)) {
    return ErrnoStatus(errno, absl::StrCat("listen on ", name, ": setsockopt"));
  }
  absl::StatusOr<uint16_t> port = BindTcp(fd, address, name);
  if (!port.ok()) return port.status();
  if (::listen(fd, backlog) != 0) {
    return ErrnoStatus(errno, absl::StrCat("listen on ", name, ": listen"));
  }
  listener.port_ = *port;
  if (address.port == 0) {
    listener.name_ = FormatListenAddress({address.host, address.ipv6, *port});
  }
  return listener;
}

absl::Status CheckTcpFree(const ListenAddress& address) {
  absl::StatusOr<Listener> probe = Listener::Tcp(address, /*backlog=*/1);
  return probe.status();  // closed as it goes: nothing is kept
}

absl::Status CheckUnixSocketFree(const std::string& path) {
  const absl::StatusOr<sockaddr_un> address = UnixAddress(path);
  if (!address.ok()) return address.status();
  return StaleSocketAt(path, *address).status();
}

absl::StatusOr<Listener> Listener::Unix(const std::string& path, int backlog) {
  const absl::StatusOr<sockaddr_un> address = UnixAddress(path);
  if (!address.ok()) return address.status();
  if (absl::Status s = MakeParentDirectory(path); !s.ok()) return s;
  if (absl::Status s = ClearStaleSocket(path, *address); !s.ok()) return s;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": socket"));
  Listener listener(fd, Transport::kUnixSocket, path);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": bind"));
  }
  // Until this chmod the umask decides; the server's peer check guards that moment too.
  struct stat st {};
  if (::chmod(path.c_str(), 0600) != 0 || ::stat(path.c_str(), &st) != 0) {
    const absl::Status s = ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": chmod 0600"));
    ::unlink(path.c_str());
    return s;
  }
  listener.socket_inode_ = st.st_ino;
  if (::listen(fd, backlog) != 0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": listen"));
  }
  return listener;
}

Listener::Listener(Listener&& other) noexcept
    : fd_(other.fd_),
      transport_(other.transport_),
      name_(std::move(other.name_)),
      port_(other.port_),
      socket_inode_(other.socket_inode_) {
  other.fd_ = -1;
  other.socket_inode_ = 0;
}

Listener::~Listener() {
  if (fd_ >= 0) ::close(fd_);
  if (transport_ != Transport::kUnixSocket || socket_inode_ == 0) return;
  // Only our own file: a successor may have replaced it after we stopped listening.
  struct stat st {};
  if (::lstat(name_.c_str(), &st) == 0 && st.st_ino == socket_inode_) ::unlink(name_.c_str());
}

}  // namespace nictune::http
