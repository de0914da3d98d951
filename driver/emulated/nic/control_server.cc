// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic/control_server.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

constexpr size_t kMaxLineBytes = 4096;

// Answers are short; a client that does not read them is dropped rather than waited for.
void SendAll(int fd, const std::string& line) {
  size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ControlServer>> ControlServer::Listen(const std::string& path,
                                                                     int epoll_fd) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("control socket path '", path, "': 1 to ",
                                                   sizeof(address.sun_path) - 1, " bytes"));
  }
  struct stat existing {};
  if (lstat(path.c_str(), &existing) == 0) {
    return absl::AlreadyExistsError(absl::StrCat("control socket ", path, " exists already"));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return netlink::ErrnoStatus("socket(AF_UNIX) for the control socket", errno);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error_number = errno;
    close(fd);
    return netlink::ErrnoStatus(absl::StrCat("bind control socket ", path), error_number);
  }
  auto server = std::unique_ptr<ControlServer>(new ControlServer(path, fd, epoll_fd));
  // Whoever can write the socket can change the NIC's moderation: root only.
  if (chmod(path.c_str(), 0600) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("chmod 0600 control socket ", path), errno);
  }
  if (listen(fd, 16) != 0) return netlink::ErrnoStatus(absl::StrCat("listen on ", path), errno);
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("epoll_ctl ADD control socket ", path), errno);
  }
  return server;
}

ControlServer::~ControlServer() {
  std::vector<int> open_clients;
  for (const auto& [fd, unused] : clients_) open_clients.push_back(fd);
  for (int fd : open_clients) Drop(fd);
  close(listen_fd_);
  unlink(path_.c_str());
}

void ControlServer::AcceptAll() {
  while (true) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: none left; anything else: the client went away already
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      close(fd);
      continue;
    }
    clients_[fd] = "";
  }
}

void ControlServer::Drop(int fd) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  close(fd);
  clients_.erase(fd);
}

void ControlServer::Serve(int fd, const ControlHandler& handler) {
  auto client = clients_.find(fd);
  if (client == clients_.end()) return;
  char buffer[1024];
  // A client that sends its requests and shuts its side down (`printf ... | socat`) is answered
  // before it is dropped: its requests and its end of file can come in one wake-up.
  bool ended = false;
  while (true) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) {
      Drop(fd);
      return;
    }
    if (n == 0) {
      ended = true;
      break;
    }
    client->second.append(buffer, static_cast<size_t>(n));
  }
  std::string& pending = client->second;
  size_t newline = 0;
  while ((newline = pending.find('\n')) != std::string::npos) {
    const std::string line = pending.substr(0, newline);
    pending.erase(0, newline + 1);
    absl::StatusOr<ControlRequest> request = ParseControlRequest(line);
    const std::string answer =
        request.ok() ? handler(*request) : FormatErrorResponse(request.status());
    SendAll(fd, answer + "\n");
  }
  if (pending.size() > kMaxLineBytes) {
    SendAll(fd, FormatErrorResponse(absl::InvalidArgumentError(
                    absl::StrCat("control request longer than ", kMaxLineBytes, " bytes"))) +
                    "\n");
    Drop(fd);
    return;
  }
  if (ended) Drop(fd);
}

}  // namespace nictune::driver::emulated
