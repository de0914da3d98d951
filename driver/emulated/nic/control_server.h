// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's end of the control socket: a unix stream socket (mode 0600) that answers
// each request line (driver/emulated/control_protocol.h) with one response line. Non-blocking;
// the NIC's single thread drives it from its epoll loop between interrupts.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "driver/emulated/control_protocol.h"

namespace nictune::driver::emulated {

// Answers one parsed request with a response line (FormatOkResponse / FormatErrorResponse).
using ControlHandler = std::function<std::string(const ControlRequest&)>;

class ControlServer {
 public:
  // AlreadyExists when something is at `path`: never unlink a file we did not create.
  static absl::StatusOr<std::unique_ptr<ControlServer>> Listen(const std::string& path,
                                                               int epoll_fd);
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  ~ControlServer();  // closes every connection and removes the socket file

  int listen_fd() const { return listen_fd_; }
  bool IsClient(int fd) const { return clients_.contains(fd); }

  void AcceptAll();
  // Reads what the client sent and answers each complete line; closes it on EOF or error.
  void Serve(int fd, const ControlHandler& handler);

 private:
  ControlServer(std::string path, int listen_fd, int epoll_fd)
      : path_(std::move(path)), listen_fd_(listen_fd), epoll_fd_(epoll_fd) {}
  void Drop(int fd);

  std::string path_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  absl::flat_hash_map<int, std::string> clients_;  // fd -> bytes of an unfinished line
};

}  // namespace nictune::driver::emulated
