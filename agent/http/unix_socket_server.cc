#include "agent/http/unix_socket_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/http/http_message.h"
#include "agent/log.h"
#include "driver/errno_text.h"

namespace nictune::http {
namespace {

absl::Status ErrnoStatus(int error, absl::string_view what) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat(what, ": ", driver::ErrnoText(error)));
}

std::optional<sockaddr_un> SocketAddress(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path) return std::nullopt;
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

// Milliseconds until deadline for poll(), at least 0.
int RemainingMs(absl::Time deadline) {
  const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1'000'000));
}

enum class ReadOutcome { kData, kEnd, kTimeout, kError };

// Appends what one read() returns once fd is readable, waiting until deadline at most.
ReadOutcome ReadSome(int fd, absl::Time deadline, size_t at_most, std::string& buffer) {
  for (;;) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, RemainingMs(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return ReadOutcome::kError;
    if (ready == 0) return ReadOutcome::kTimeout;
    char chunk[8192];
    const ssize_t n = ::read(fd, chunk, std::min(sizeof chunk, at_most));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return ReadOutcome::kError;
    if (n == 0) return ReadOutcome::kEnd;
    buffer.append(chunk, static_cast<size_t>(n));
    return ReadOutcome::kData;
  }
}

// Best effort: a client that went away or stalls past the deadline just misses its answer.
void WriteAll(int fd, absl::string_view data, absl::Time deadline) {
  while (!data.empty()) {
    pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
    const int ready = ::poll(&p, 1, RemainingMs(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// End of the head: the blank line, with CRLF or bare LF line ends. npos while incomplete.
std::pair<size_t, size_t> FindHeadEnd(absl::string_view buffer) {
  const size_t crlf = buffer.find("\r\n\r\n");
  const size_t lf = buffer.find("\n\n");
  if (crlf != absl::string_view::npos && (lf == absl::string_view::npos || crlf < lf)) {
    return {crlf, crlf + 4};
  }
  if (lf != absl::string_view::npos) return {lf, lf + 2};
  return {absl::string_view::npos, absl::string_view::npos};
}

// Replaces a socket file nobody listens on; refuses a live one and anything not a socket.
absl::Status ClearStaleSocket(const std::string& path, const sockaddr_un& address) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
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

}  // namespace

absl::StatusOr<std::unique_ptr<UnixSocketServer>> UnixSocketServer::Start(UnixSocketOptions options,
                                                                          Router router) {
  const std::string path = options.path;  // a copy: options moves into the server below
  const std::optional<sockaddr_un> address = SocketAddress(path);
  if (!address || path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("unix socket \"", path,
                                                   "\": expected an absolute path shorter than ",
                                                   sizeof(sockaddr_un::sun_path), " bytes"));
  }
  if (options.num_threads < 1 || options.connection_queue < 1 ||
      options.read_timeout <= absl::ZeroDuration() ||
      options.write_timeout <= absl::ZeroDuration() || options.max_head_bytes < 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unix socket ", path,
        ": num_threads and connection_queue must be >= 1, timeouts > 0, max_head_bytes >= 64"));
  }
  if (absl::Status s = MakeParentDirectory(path); !s.ok()) return s;
  if (absl::Status s = ClearStaleSocket(path, *address); !s.ok()) return s;

  std::unique_ptr<UnixSocketServer> server(
      new UnixSocketServer(std::move(options), std::move(router)));
  server->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (server->listen_fd_ < 0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": socket"));
  }
  if (::bind(server->listen_fd_, reinterpret_cast<const sockaddr*>(&*address), sizeof *address) !=
      0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": bind"));
  }
  // Until this chmod the umask decides; the peer check below guards that moment too.
  struct stat st {};
  if (::chmod(path.c_str(), 0600) != 0 || ::stat(path.c_str(), &st) != 0) {
    const absl::Status s = ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": chmod 0600"));
    ::unlink(path.c_str());
    return s;
  }
  server->socket_inode_ = st.st_ino;
  if (::listen(server->listen_fd_, server->options_.connection_queue) != 0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": listen"));
  }
  server->stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (server->stop_fd_ < 0) {
    return ErrnoStatus(errno, absl::StrCat("unix socket ", path, ": eventfd"));
  }
  for (int i = 0; i < server->options_.num_threads; ++i) {
    server->workers_.emplace_back(&UnixSocketServer::WorkerLoop, server.get());
  }
  server->acceptor_ = std::thread(&UnixSocketServer::AcceptLoop, server.get());
  return server;
}

UnixSocketServer::~UnixSocketServer() {
  stopping_ = true;
  if (stop_fd_ >= 0) {
    const uint64_t one = 1;
    // An eventfd write of 8 bytes only fails when the counter would overflow: not with one write.
    (void)!::write(stop_fd_, &one, sizeof one);
  }
  queue_ready_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  for (std::thread& worker : workers_) worker.join();
  for (const int connection : queue_) ::close(connection);
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    struct stat st {};
    if (socket_inode_ != 0 && ::lstat(options_.path.c_str(), &st) == 0 &&
        st.st_ino == socket_inode_) {
      ::unlink(options_.path.c_str());
    }
  }
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void UnixSocketServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{.fd = listen_fd_, .events = POLLIN, .revents = 0},
                     {.fd = stop_fd_, .events = POLLIN, .revents = 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      agent::LogError(
          absl::StrCat("unix socket ", options_.path, ": poll: ", driver::ErrnoText(errno)));
      return;
    }
    if (fds[1].revents != 0 || stopping_) return;
    const int connection = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (connection < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      agent::LogWarning(
          absl::StrCat("unix socket ", options_.path, ": accept: ", driver::ErrnoText(errno)));
      // Out of descriptors: give the workers a moment to close some instead of spinning.
      ::poll(nullptr, 0, 100);
      continue;
    }
    std::unique_lock lock(queue_mutex_);
    if (queue_.size() >= static_cast<size_t>(options_.connection_queue)) {
      lock.unlock();
      const Response busy =
          ErrorResponse(503, "busy",
                        absl::StrCat("all ", options_.num_threads, " workers are busy and ",
                                     options_.connection_queue, " connections wait; retry"));
      WriteAll(connection, SerializeResponse(busy, true), absl::Now());
      ::close(connection);
      continue;
    }
    queue_.push_back(connection);
    lock.unlock();
    queue_ready_.notify_one();
  }
}

void UnixSocketServer::WorkerLoop() {
  for (;;) {
    int connection = -1;
    {
      std::unique_lock lock(queue_mutex_);
      queue_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      connection = queue_.front();
      queue_.pop_front();
    }
    Serve(connection);
    ::close(connection);
  }
}

void UnixSocketServer::Serve(int connection) const {
  const absl::Time read_deadline = absl::Now() + options_.read_timeout;
  const auto reply = [&](const Response& response, bool include_body) {
    WriteAll(connection, SerializeResponse(response, include_body),
             absl::Now() + options_.write_timeout);
  };

  ucred peer{};
  socklen_t peer_size = sizeof peer;
  if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0) return;
  if (peer.uid != 0 && peer.uid != own_uid_) {
    reply(ErrorResponse(
              403, "forbidden",
              absl::StrCat("uid ", peer.uid, " (pid ", peer.pid,
                           ") may not use the agent's socket; only root and uid ", own_uid_)),
          true);
    return;
  }

  std::string buffer;
  size_t head_end = std::string::npos;
  size_t body_start = std::string::npos;
  while (head_end == std::string::npos) {
    if (buffer.size() > options_.max_head_bytes) {
      reply(ErrorResponse(431, "header_too_large",
                          absl::StrCat("request head exceeds the limit of ",
                                       options_.max_head_bytes, " bytes")),
            true);
      return;
    }
    switch (ReadSome(connection, read_deadline, options_.max_head_bytes + 1 - buffer.size() + 4,
                     buffer)) {
      case ReadOutcome::kData:
        break;
      case ReadOutcome::kTimeout:
        reply(ErrorResponse(408, "timeout",
                            absl::StrCat("request head not received within ",
                                         absl::FormatDuration(options_.read_timeout))),
              true);
        return;
      case ReadOutcome::kEnd:
      case ReadOutcome::kError:
        return;  // nobody left to answer
    }
    std::tie(head_end, body_start) = FindHeadEnd(buffer);
  }
  if (head_end > options_.max_head_bytes) {
    reply(ErrorResponse(431, "header_too_large",
                        absl::StrCat("request head exceeds the limit of ", options_.max_head_bytes,
                                     " bytes")),
          true);
    return;
  }

  absl::StatusOr<RequestHead> head =
      ParseRequestHead(absl::string_view(buffer).substr(0, head_end));
  if (!head.ok()) {
    reply(ErrorResponse(400, "bad_request", std::string(head.status().message())), true);
    return;
  }
  const bool include_body = head->method != "HEAD";
  if (head->has_transfer_encoding) {
    reply(ErrorResponse(411, "length_required",
                        "Transfer-Encoding is not supported here; send the body with "
                        "Content-Length"),
          include_body);
    return;
  }
  const bool sends_body =
      head->method == "POST" || head->method == "PUT" || head->method == "PATCH";
  if (!head->content_length.has_value() && sends_body) {
    reply(ErrorResponse(411, "length_required",
                        absl::StrCat(head->method, " needs a Content-Length header")),
          include_body);
    return;
  }
  const size_t length = head->content_length.value_or(0);
  if (length > options_.max_body_bytes) {
    reply(ErrorResponse(413, "payload_too_large",
                        absl::StrCat("request body of ", length, " bytes exceeds the limit of ",
                                     options_.max_body_bytes)),
          include_body);
    return;
  }
  std::string body = buffer.substr(body_start);
  while (body.size() < length) {
    switch (ReadSome(connection, read_deadline, length - body.size(), body)) {
      case ReadOutcome::kData:
        break;
      case ReadOutcome::kTimeout:
        reply(ErrorResponse(408, "timeout",
                            absl::StrCat("request body: ", body.size(), " of ", length,
                                         " bytes received within ",
                                         absl::FormatDuration(options_.read_timeout))),
              include_body);
        return;
      case ReadOutcome::kEnd:
        reply(ErrorResponse(
                  400, "bad_request",
                  absl::StrCat("request body ended after ", body.size(), " of ", length, " bytes")),
              include_body);
        return;
      case ReadOutcome::kError:
        return;
    }
  }
  body.resize(length);  // one request per connection: anything after it is ignored

  Request request;
  request.method = head->method;
  request.path = head->path;
  request.query = head->query;
  request.authorization = HeaderValue(*head, "authorization").value_or("");
  request.body = std::move(body);
  request.transport = Transport::kUnixSocket;
  reply(router_.Dispatch(request), include_body);
}

}  // namespace nictune::http
