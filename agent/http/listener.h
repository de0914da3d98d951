// SPDX-License-Identifier: Apache-2.0
// Listening sockets, opened at the very start of the agent: a port in use or a socket file held
// by a live agent stops the start before the change journal is touched. The HTTP server (server.h)
// is handed the socket later, once the routes exist.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "agent/http/listen_address.h"
#include "agent/http/request.h"

namespace nictune::http {

class Listener {
 public:
  // TCP on address, SO_REUSEADDR (a restart must not wait out TIME_WAIT), IPV6_V6ONLY for an IPv6
  // literal (it means that address, not the IPv4 ones too).
  static absl::StatusOr<Listener> Tcp(const ListenAddress& address, int backlog);

  // A unix socket file at `path` (absolute), mode 0600, its directory created 0755 if missing. A
  // socket file nobody listens on (connect: ECONNREFUSED) is a crashed agent's and is replaced; a
  // live one, or a path that is not a socket, is FailedPrecondition naming the path.
  static absl::StatusOr<Listener> Unix(const std::string& path, int backlog);

  Listener(Listener&& other) noexcept;
  Listener& operator=(Listener&&) = delete;
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  // Closes the socket; a unix socket's file is removed if it is still the one bound here.
  ~Listener();

  int fd() const { return fd_; }
  Transport transport() const { return transport_; }
  uint16_t port() const { return port_; }  // TCP: the bound port (the chosen one for port 0)
  // "127.0.0.1:9877" or the unix socket's path.
  const std::string& name() const { return name_; }

 private:
  Listener(int fd, Transport transport, std::string name)
      : fd_(fd), transport_(transport), name_(std::move(name)) {}

  int fd_ = -1;
  Transport transport_ = Transport::kTcp;
  std::string name_;
  uint16_t port_ = 0;
  ino_t socket_inode_ = 0;  // unix: so that closing removes our socket file, not a successor's
};

// What a start would meet, without keeping anything (nictuned --check): the TCP address bound
// and let go at once (EADDRINUSE when another program serves it), and the unix socket's path
// looked at as Listener::Unix would, nothing created or removed.
absl::Status CheckTcpFree(const ListenAddress& address);
absl::Status CheckUnixSocketFree(const std::string& path);

}  // namespace nictune::http
