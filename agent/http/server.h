// SPDX-License-Identifier: Apache-2.0
// The agent's one HTTP server, for both transports (TCP and the CLI's unix socket), on
// libmicrohttpd: a few poll() loops serve many connections each, so clients that send slowly (a
// slowloris, a stalled CLI) hold a connection slot and a few KiB, never a thread. Every
// request is handed to a Router once it is complete; a request whose body never arrives whole is
// closed when its connection falls silent and never reaches a route.
//
// Limits, one set for both transports: connections at once, bytes of head (431) and of body
// (413), a Content-Length on every request with a body (411; chunked bodies are refused too),
// and the idle timeout. On TCP, routes that change state need the API token (bearer_token.h); on
// the unix socket each peer's SO_PEERCRED uid must be 0 or the agent's own (else 403).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/http/listener.h"
#include "agent/http/router.h"
#include "agent/rate_limited_log.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace nictune::http {

struct ServerOptions {
  int threads = 2;  // event loops; each serves its share of the connections
  // Beyond this a new connection waits in the listen backlog until one ends. Each holds a memory
  // pool of max_head_bytes + 8 KiB and the body read so far: under 20 MiB at worst. poll() scans
  // every connection of its loop on each wake, so more would cost more than it serves: 1000
  // clients were answered at about twice the rate with 256 than with 512.
  int max_connections = 256;
  absl::Duration idle_timeout = absl::Seconds(10);  // silence that closes a connection
  size_t max_head_bytes = 8 * 1024;                 // request line and headers (431 beyond)
  size_t max_body_bytes = 64 * 1024;                // 413 beyond, without reading it
  std::optional<std::string> api_token;  // TCP: from --api_token_file; none: mutations refused
};

class HttpServer {
 public:
  // Serves `listener` until destroyed. InvalidArgument for options out of range; Unavailable when
  // libmicrohttpd cannot start (its reason in the log).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(Listener listener, ServerOptions options,
                                                           Router router);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Stops the event loops (the requests in flight end with them) and closes the listener.
  ~HttpServer();

  uint16_t port() const { return listener_.port(); }
  const std::string& name() const { return listener_.name(); }

 private:
  friend struct ServerCallbacks;  // libmicrohttpd's C callbacks (server.cc)

  HttpServer(Listener listener, ServerOptions options, Router router)
      : listener_(std::move(listener)), options_(std::move(options)), router_(std::move(router)) {}

  // The answer to a request whose head is in, before its body is read: a refusal, or none.
  // peer_allowed: the unix socket's SO_PEERCRED verdict (always true on TCP).
  std::optional<Response> Screen(const Request& request, bool peer_allowed,
                                 std::optional<size_t> content_length,
                                 bool has_transfer_encoding) const;

  Listener listener_;
  const ServerOptions options_;
  const Router router_;
  const uid_t own_uid_ = ::geteuid();
  // libmicrohttpd's complaints (a client that reset, too many connections) come once per
  // connection: under a flood of clients, one line a minute per kind of message.
  agent::RateLimitedLog problems_;
  MHD_Daemon* daemon_ = nullptr;
};

}  // namespace nictune::http
