// The CLI's root-only unix socket (Debian's CivetWeb has no unix sockets, see server.h): HTTP/1.1,
// one request per connection, every request handed to a Router with Transport::kUnixSocket.
//
// Who may talk: the socket file is 0600 and each peer's SO_PEERCRED uid must be 0 or the agent's
// own, else 403, checked before a byte of the request is read. A bounded pool of workers serves
// a bounded queue of accepted connections (a full queue gets 503); each request has one deadline
// for reading it and one for writing the answer (408 when the client is too slow), and limits on
// its head (431) and body (413). A slow client holds one worker until its deadline, never the
// others; only root or the agent can be that client.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/http/router.h"

namespace nictune::http {

struct UnixSocketOptions {
  std::string path = "/run/nictune/nictune.sock";    // its directory is created (0755) if missing
  int num_threads = 2;                               // requests served at once
  int connection_queue = 16;                         // accepted connections waiting for a worker
  absl::Duration read_timeout = absl::Seconds(10);   // to receive the whole request
  absl::Duration write_timeout = absl::Seconds(10);  // to send the whole response
  size_t max_head_bytes = 8 * 1024;
  size_t max_body_bytes = 64 * 1024;
};

class UnixSocketServer {
 public:
  // Binds and starts serving. A socket file nobody listens on (connect: ECONNREFUSED) is a stale
  // one from a crashed agent and is replaced; a live one, or a path that is not a socket, is
  // refused with FailedPrecondition naming the path.
  static absl::StatusOr<std::unique_ptr<UnixSocketServer>> Start(UnixSocketOptions options,
                                                                 Router router);

  UnixSocketServer(const UnixSocketServer&) = delete;
  UnixSocketServer& operator=(const UnixSocketServer&) = delete;
  // Stops accepting, lets the requests in flight finish (each is bounded by its deadlines),
  // closes the queued connections and removes the socket file.
  ~UnixSocketServer();

  const std::string& path() const { return options_.path; }

 private:
  UnixSocketServer(UnixSocketOptions options, Router router)
      : options_(std::move(options)), router_(std::move(router)) {}

  void AcceptLoop();
  void WorkerLoop();
  void Serve(int connection) const;

  const UnixSocketOptions options_;
  const Router router_;
  const uid_t own_uid_ = ::geteuid();
  int listen_fd_ = -1;
  int stop_fd_ = -1;        // eventfd: wakes the acceptor's poll on shutdown
  ino_t socket_inode_ = 0;  // so that shutdown removes our socket file, not a successor's
  std::atomic<bool> stopping_{false};

  std::mutex queue_mutex_;
  std::condition_variable queue_ready_;
  std::deque<int> queue_;  // accepted connections, owned until a worker takes one

  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

}  // namespace nictune::http
