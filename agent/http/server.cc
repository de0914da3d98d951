// SPDX-License-Identifier: Apache-2.0
#include "agent/http/server.h"

#include <microhttpd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/bearer_token.h"
#include "agent/log.h"
#include "driver/errno_text.h"

namespace nictune::http {
namespace {

// Readers must not starve measurement: under a burst of clients the event loops would share the
// CPU equally with the sampling loop, which then misses its deadlines. On Linux nice() changes
// only the calling thread, so each server thread lowers itself once, on its first request, 10
// steps below the rest of the agent (relative, so a service started with Nice= keeps the order).
constexpr int kServerThreadNiceIncrement = 10;

void LowerThisThreadOnce() {
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
  errno = 0;
  if (nice(kServerThreadNiceIncrement) == -1 && errno != 0) {
    const int error_number = errno;
    agent::LogWarning(absl::StrCat("http: nice(", kServerThreadNiceIncrement,
                                   ") for a server thread: ", driver::ErrnoText(error_number)));
  }
}

// The unix socket's verdict on a connection's peer, kept as the connection's socket context.
enum PeerVerdict : uintptr_t { kPeerUnchecked = 0, kPeerAllowed = 1, kPeerRefused = 2 };

bool PeerIsRootOrUs(int fd, uid_t own_uid) {
  ucred credentials{};
  socklen_t length = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return false;
  return credentials.uid == 0 || credentials.uid == own_uid;
}

std::optional<std::string> Header(MHD_Connection* connection, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void AppendPercentEncoded(std::string& out, absl::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~' || c == ':') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0F];
    }
  }
}

// libmicrohttpd hands out the query decoded, argument by argument: this spells it again as a raw
// query string for the routes' own parser (query.h), in the order the client sent it.
std::string RawQuery(MHD_Connection* connection) {
  std::string query;
  MHD_get_connection_values(
      connection, MHD_GET_ARGUMENT_KIND,
      [](void* out, MHD_ValueKind, const char* key, const char* value) -> MHD_Result {
        auto& text = *static_cast<std::string*>(out);
        if (!text.empty()) text += '&';
        AppendPercentEncoded(text, key);
        if (value != nullptr) {
          text += '=';
          AppendPercentEncoded(text, value);
        }
        return MHD_YES;
      },
      &query);
  return query;
}

// The request line's target and every header, as the client sent them (roughly: the separators
// are counted as one byte each).
size_t HeadBytes(MHD_Connection* connection, const char* url) {
  size_t bytes = std::strlen(url);
  MHD_get_connection_values(
      connection, MHD_HEADER_KIND,
      [](void* total, MHD_ValueKind, const char* key, const char* value) -> MHD_Result {
        *static_cast<size_t*>(total) +=
            std::strlen(key) + (value != nullptr ? std::strlen(value) : 0) + 4;
        return MHD_YES;
      },
      &bytes);
  return bytes;
}

MHD_Result Queue(MHD_Connection* connection, const Response& answer) {
  MHD_Response* response = MHD_create_response_from_buffer(
      answer.body.size(), const_cast<char*>(answer.body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, "Content-Type", answer.content_type.c_str());
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : answer.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned int>(answer.status), response);
  MHD_destroy_response(response);
  return queued;
}

// One request from its head to its answer.
struct PendingRequest {
  Request request;
  bool answered = false;  // a refusal went out before the body: whatever follows is dropped
  bool body_too_large = false;
};

}  // namespace

struct ServerCallbacks {
  static MHD_Result Handle(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* /*version*/, const char* upload_data,
                           size_t* upload_data_size, void** request_state) {
    auto* server = static_cast<HttpServer*>(cls);
    LowerThisThreadOnce();
    auto* pending = static_cast<PendingRequest*>(*request_state);
    if (pending == nullptr) return Begin(*server, connection, url, method, request_state);
    if (pending->answered) {
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (*upload_data_size > 0) {
      std::string& body = pending->request.body;
      if (body.size() + *upload_data_size > server->options_.max_body_bytes) {
        pending->body_too_large = true;
      } else {
        body.append(upload_data, *upload_data_size);
      }
      *upload_data_size = 0;
      return MHD_YES;
    }
    // The whole body is in: only now may a route run.
    pending->answered = true;
    if (pending->body_too_large) {
      return Queue(connection,
                   ErrorResponse(413, "payload_too_large",
                                 absl::StrCat("request body exceeds the limit of ",
                                              server->options_.max_body_bytes, " bytes")));
    }
    return Queue(connection, server->router_.Dispatch(pending->request));
  }

  static void Completed(void*, MHD_Connection*, void** request_state, MHD_RequestTerminationCode) {
    delete static_cast<PendingRequest*>(*request_state);
    *request_state = nullptr;
  }

  static void Connection(void* cls, MHD_Connection* connection, void** socket_state,
                         MHD_ConnectionNotificationCode what) {
    const auto* server = static_cast<const HttpServer*>(cls);
    if (what != MHD_CONNECTION_NOTIFY_STARTED ||
        server->listener_.transport() != Transport::kUnixSocket) {
      return;
    }
    // Checked once per connection, before a byte of a request is read.
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    const bool allowed = info != nullptr && PeerIsRootOrUs(info->connect_fd, server->own_uid_);
    *socket_state = reinterpret_cast<void*>(allowed ? kPeerAllowed : kPeerRefused);
  }

  // printf-like: libmicrohttpd hands over its own format.
  [[gnu::format(printf, 2, 0)]] static void Log(void* cls, const char* format, va_list arguments) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, arguments);
    std::string line = absl::StrCat("http: ", absl::StripTrailingAsciiWhitespace(text));
    // One kind of message, whatever the client's address, port or byte counts in it.
    std::string kind;
    for (const char c : line) {
      if (c < '0' || c > '9') kind.push_back(c);
    }
    static_cast<HttpServer*>(cls)->problems_.Log(agent::LogLevel::kWarning, kind, line,
                                                 absl::Now());
  }

 private:
  static MHD_Result Begin(HttpServer& server, MHD_Connection* connection, const char* url,
                          const char* method, void** request_state) {
    auto* pending = new PendingRequest;
    *request_state = pending;
    Request& request = pending->request;
    request.method = method;
    request.path = url;
    request.query = RawQuery(connection);
    request.authorization = Header(connection, "Authorization").value_or("");
    request.transport = server.listener_.transport();
    if (HeadBytes(connection, url) > server.options_.max_head_bytes) {
      pending->answered = true;
      return Queue(connection,
                   ErrorResponse(431, "head_too_large",
                                 absl::StrCat("request head exceeds the limit of ",
                                              server.options_.max_head_bytes, " bytes")));
    }
    bool peer_allowed = true;
    if (request.transport == Transport::kUnixSocket) {
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
      peer_allowed =
          info != nullptr && reinterpret_cast<uintptr_t>(info->socket_context) == kPeerAllowed;
    }
    std::optional<size_t> content_length;
    if (std::optional<std::string> text = Header(connection, "Content-Length")) {
      size_t value = 0;
      if (absl::SimpleAtoi(*text, &value)) content_length = value;
    }
    const bool chunked = Header(connection, "Transfer-Encoding").has_value();
    if (std::optional<Response> refusal =
            server.Screen(request, peer_allowed, content_length, chunked)) {
      pending->answered = true;
      return Queue(connection, *refusal);
    }
    return MHD_YES;
  }
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(Listener listener,
                                                              ServerOptions options,
                                                              Router router) {
  if (options.threads < 1 || options.max_connections < 1 ||
      options.idle_timeout < absl::Seconds(1) || options.max_head_bytes < 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "http server on ", listener.name(),
        ": threads and max_connections must be >= 1, idle_timeout >= 1s, max_head_bytes >= 1024"));
  }
  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(listener), std::move(options), std::move(router)));
  const ServerOptions& o = server->options_;
  // The connection's memory pool holds the head being read and the answer's headers; the body
  // is copied out as it arrives, and the answer's body is its own allocation.
  const size_t pool_bytes = o.max_head_bytes + 8 * 1024;
  const auto timeout_s = static_cast<unsigned int>(absl::ToInt64Seconds(o.idle_timeout));
  // Callbacks go in as intptr_t with their closure beside them, as libmicrohttpd's arrays take
  // them. The logger comes first, so that even the other options' complaints reach our log.
  const auto callback = [](auto* function) { return reinterpret_cast<intptr_t>(function); };
  std::vector<MHD_OptionItem> daemon_options = {
      {MHD_OPTION_EXTERNAL_LOGGER, callback(&ServerCallbacks::Log), server.get()},
      {MHD_OPTION_LISTEN_SOCKET, server->listener_.fd(), nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, o.max_connections, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(pool_bytes), nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, callback(&ServerCallbacks::Completed), server.get()},
      {MHD_OPTION_NOTIFY_CONNECTION, callback(&ServerCallbacks::Connection), server.get()}};
  // One loop is no pool: libmicrohttpd warns about a pool of one (or of zero).
  if (o.threads > 1) daemon_options.push_back({MHD_OPTION_THREAD_POOL_SIZE, o.threads, nullptr});
  daemon_options.push_back({MHD_OPTION_END, 0, nullptr});
  // poll(), not epoll: with libmicrohttpd's edge-triggered epoll a client that sent half a
  // request and closed stayed in CLOSE_WAIT until the idle timeout, so 600 of them filled every
  // slot; with poll each is dropped at once.
  server->daemon_ = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, nullptr,
      nullptr, &ServerCallbacks::Handle, server.get(), MHD_OPTION_ARRAY, daemon_options.data(),
      MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("http server on ", server->listener_.name(),
                                               ": libmicrohttpd did not start (see the log)"));
  }
  return server;
}

HttpServer::~HttpServer() {
  if (daemon_ == nullptr) return;
  // Quiesce first: the listening socket stays ours to close (the Listener does, and removes a
  // unix socket's file), and libmicrohttpd stops accepting before its loops end.
  MHD_quiesce_daemon(daemon_);
  MHD_stop_daemon(daemon_);
}

std::optional<Response> HttpServer::Screen(const Request& request, bool peer_allowed,
                                           std::optional<size_t> content_length,
                                           bool has_transfer_encoding) const {
  if (!peer_allowed) {
    return ErrorResponse(403, "forbidden",
                         "this socket answers root and the agent's own user only (SO_PEERCRED)");
  }
  if (has_transfer_encoding) {
    return ErrorResponse(411, "length_required",
                         "chunked request bodies are not accepted: send Content-Length");
  }
  if (!content_length && request.method != "GET" && request.method != "HEAD") {
    return ErrorResponse(
        411, "length_required",
        absl::StrCat(request.method, " needs a Content-Length (0 for an empty body)"));
  }
  if (content_length.value_or(0) > options_.max_body_bytes) {
    return ErrorResponse(413, "payload_too_large",
                         absl::StrCat("request body of ", *content_length,
                                      " bytes exceeds the limit of ", options_.max_body_bytes));
  }
  return RefuseUnauthorized(request, router_.EffectOf(request), options_.api_token);
}

}  // namespace nictune::http
