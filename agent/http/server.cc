#include "agent/http/server.h"

#include <civetweb.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/bearer_token.h"
#include "agent/http/http_message.h"
#include "agent/log.h"
#include "driver/errno_text.h"

namespace nictune::http {
namespace {

void InitCivetwebOnce() {
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
}

// Readers must not starve measurement: under a burst of clients the workers (and the master that
// accepts for them) would share the CPU equally with the sampling loop, which then misses its
// deadlines. On Linux nice() changes only the calling thread, so the server's threads run 10 steps
// below the rest of the agent (relative, so a service started with Nice= keeps the order).
// Failure changes nothing but the scheduling, so it is only logged.
constexpr int kServerThreadNiceIncrement = 10;

void* LowerServerThreadPriority(const mg_context*, int) {
  errno = 0;
  if (nice(kServerThreadNiceIncrement) == -1 && errno != 0) {
    const int error_number = errno;
    agent::LogWarning(absl::StrCat("http: nice(", kServerThreadNiceIncrement,
                                   ") for a server thread: ", driver::ErrnoText(error_number)));
  }
  return nullptr;
}

// Reads the body up to limit + 1 bytes, so a body without Content-Length that is too large is
// still caught. nullopt when the connection failed mid-body.
std::optional<std::string> ReadBody(mg_connection* connection, size_t limit) {
  std::string body;
  char buffer[8192];
  while (body.size() <= limit) {
    const int n = mg_read(connection, buffer, sizeof buffer);
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    body.append(buffer, static_cast<size_t>(n));
  }
  return body;
}

// The same bytes the unix socket server writes (http_message.h).
void Write(mg_connection* connection, const std::string& method, const Response& response) {
  const std::string text = SerializeResponse(response, /*include_body=*/method != "HEAD");
  mg_write(connection, text.data(), text.size());
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(ServerOptions options,
                                                              Router router) {
  InitCivetwebOnce();
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(options), std::move(router)));
  const ServerOptions& o = server->options_;
  const std::string threads = std::to_string(o.num_threads);
  const std::string queue = std::to_string(o.connection_queue);
  const std::string backlog = std::to_string(o.listen_backlog);
  const std::string timeout = std::to_string(o.request_timeout_ms);
  const char* configuration[] = {"listening_ports",
                                 o.listen.c_str(),
                                 "num_threads",
                                 threads.c_str(),
                                 "connection_queue",
                                 queue.c_str(),
                                 "listen_backlog",
                                 backlog.c_str(),
                                 "request_timeout_ms",
                                 timeout.c_str(),
                                 "enable_keep_alive",
                                 "no",
                                 "enable_directory_listing",
                                 "no",
                                 nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = &HttpServer::LogMessage;
  callbacks.init_thread = LowerServerThreadPriority;
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = server.get();
  init.configuration_options = configuration;
  char error_text[256] = "";
  mg_error_data error{};
  error.text = error_text;
  error.text_buffer_size = sizeof error_text;
  server->context_ = mg_start2(&init, &error);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("http server on ", o.listen, ": start failed: ", error_text));
  }
  mg_server_port ports[1]{};
  if (mg_get_server_ports(server->context_, 1, ports) != 1) {
    return absl::InternalError(
        absl::StrCat("http server on ", o.listen, ": started but reports no listening port"));
  }
  server->port_ = ports[0].port;
  mg_set_request_handler(server->context_, "/", &HttpServer::HandleRequest, server.get());
  return server;
}

HttpServer::~HttpServer() {
  if (context_ != nullptr) mg_stop(context_);
}

int HttpServer::LogMessage(const mg_connection* connection, const char* message) {
  const std::string line = absl::StrCat("http: ", message);
  const mg_context* context = connection != nullptr ? mg_get_context(connection) : nullptr;
  auto* server = context != nullptr ? static_cast<HttpServer*>(mg_get_user_data(context)) : nullptr;
  if (server == nullptr) {
    agent::LogWarning(line);
    return 1;
  }
  // One kind of message, whatever the client's address, port or byte counts in it.
  std::string kind;
  for (const char c : line) {
    if (c < '0' || c > '9') kind.push_back(c);
  }
  server->problems_.Log(agent::LogLevel::kWarning, kind, line, absl::Now());
  return 1;  // logged here; CivetWeb does not print it again
}

int HttpServer::HandleRequest(mg_connection* connection, void* server) {
  const mg_request_info* info = mg_get_request_info(connection);
  const std::string method = info != nullptr && info->request_method ? info->request_method : "";
  // Nothing may unwind into CivetWeb's C code.
  Response response;
  try {
    response = static_cast<const HttpServer*>(server)->Serve(connection);
  } catch (const std::exception& e) {
    response = ErrorResponse(500, "internal", e.what());
  } catch (...) {
    response = ErrorResponse(500, "internal", "unknown exception");
  }
  Write(connection, method, response);
  return response.status;
}

Response HttpServer::Serve(mg_connection* connection) const {
  const mg_request_info* info = mg_get_request_info(connection);
  Request request;
  request.method = info->request_method ? info->request_method : "";
  request.path = info->local_uri ? info->local_uri : "";
  request.query = info->query_string ? info->query_string : "";
  if (const char* authorization = mg_get_header(connection, "Authorization")) {
    request.authorization = authorization;
  }
  request.transport = Transport::kTcp;

  if (info->content_length > 0 &&
      static_cast<unsigned long long>(info->content_length) > options_.max_body_bytes) {
    return ErrorResponse(413, "payload_too_large",
                         absl::StrCat("request body of ", info->content_length,
                                      " bytes exceeds the limit of ", options_.max_body_bytes));
  }
  if (auto refusal = RefuseUnauthorized(request, router_.EffectOf(request), options_.api_token)) {
    return *refusal;
  }
  std::optional<std::string> body = ReadBody(connection, options_.max_body_bytes);
  if (!body) {
    return ErrorResponse(400, "bad_request", "connection failed while reading the request body");
  }
  if (body->size() > options_.max_body_bytes) {
    return ErrorResponse(
        413, "payload_too_large",
        absl::StrCat("request body exceeds the limit of ", options_.max_body_bytes, " bytes"));
  }
  request.body = *std::move(body);
  return router_.Dispatch(request);
}

}  // namespace nictune::http
