// The agent's one HTTP server (CivetWeb): a bounded pool of worker threads, request timeouts, a
// request body limit (413), the token rule for mutating requests (bearer_token.h), and every
// request handed to a Router. No document root: it serves nothing but the routes.
//
// Debian's libcivetweb 1.15 is built without USE_X_DOM_SOCKET (mg_check_feature(0x800) == 0), so
// this server listens on TCP only; the CLI's root-only unix socket needs its own listener.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "agent/http/router.h"
#include "agent/rate_limited_log.h"

struct mg_context;
struct mg_connection;

namespace nictune::http {

struct ServerOptions {
  std::string listen = "127.0.0.1:9877";  // HOST:PORT; port 0 picks a free port (see port())
  int num_threads = 4;                    // concurrent connections served; more wait in the queue
  int connection_queue = 16;              // accepted connections waiting for a worker
  // Connections the kernel completes and holds for accept() (capped by net.core.somaxconn).
  // Beyond it the kernel drops the handshake's last ACK (tcp_abort_on_overflow=0): the client
  // believes it is connected and waits seconds for retransmissions with no answer. CivetWeb's 200
  // left hundreds of a thousand simultaneous scrapes hanging past 10 s; 1024 holds them, each
  // waiting its turn for a worker (a few KiB of kernel memory each, no descriptor of ours).
  int listen_backlog = 1024;
  int request_timeout_ms = 10'000;       // for reading a request and writing its response
  size_t max_body_bytes = 64 * 1024;     // larger bodies get 413 without being read
  std::optional<std::string> api_token;  // from --api_token_file; none: mutations refused on TCP
};

class HttpServer {
 public:
  // Binds and starts serving. Fails with the address and CivetWeb's reason when it cannot bind.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(ServerOptions options, Router router);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Stops accepting and waits for the requests in flight.
  ~HttpServer();

  // The TCP port it listens on (the chosen one when ServerOptions.listen asked for port 0).
  int port() const { return port_; }

 private:
  HttpServer(ServerOptions options, Router router)
      : options_(std::move(options)), router_(std::move(router)) {}

  static int HandleRequest(mg_connection* connection, void* server);
  static int LogMessage(const mg_connection* connection, const char* message);
  Response Serve(mg_connection* connection) const;

  ServerOptions options_;
  Router router_;
  // CivetWeb's complaints (a client that reset, a full queue) come once per connection: under a
  // flood of clients, one line a minute per kind of message.
  agent::RateLimitedLog problems_;
  mg_context* context_ = nullptr;
  int port_ = 0;
};

}  // namespace nictune::http
