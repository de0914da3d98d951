// SPDX-License-Identifier: Apache-2.0
// The HTTP server as a client sees it: a real libmicrohttpd server on an ephemeral loopback port
// and raw HTTP/1.1 over a socket.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/http/bearer_token.h"
#include "agent/http/json_body.h"
#include "agent/http/listen_address.h"
#include "agent/http/listener.h"
#include "agent/http/metrics_route.h"
#include "agent/http/server.h"
#include "agent/metrics/exporter.h"
#include "agent/model/json_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

struct Reply {
  int status = 0;
  std::string head;
  std::string body;
};

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{.tv_sec = 5, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ADD_FAILURE() << "connect to 127.0.0.1:" << port << ": " << errno;
  }
  return fd;
}

std::string ReadAll(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

Reply Parse(const std::string& raw) {
  Reply reply;
  const size_t end_of_head = raw.find("\r\n\r\n");
  reply.head = raw.substr(0, end_of_head);
  if (end_of_head != std::string::npos) reply.body = raw.substr(end_of_head + 4);
  // "HTTP/1.1 404 Not Found"
  if (raw.size() > 12) {
    EXPECT_TRUE(absl::SimpleAtoi(raw.substr(9, 3), &reply.status)) << raw;
  }
  return reply;
}

// One request; the client half-closes once it is sent, so the server's answer ends the exchange.
Reply Exchange(int port, const std::string& raw_request) {
  const int fd = Connect(port);
  EXPECT_EQ(write(fd, raw_request.data(), raw_request.size()),
            static_cast<ssize_t>(raw_request.size()));
  const std::string raw = ReadAll(fd);
  close(fd);
  return Parse(raw);
}

Reply Get(int port, const std::string& target, const std::string& extra_headers = "") {
  return Exchange(
      port, absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n",
                         extra_headers, "\r\n"));
}

std::string PostText(const std::string& target, const std::string& body,
                     const std::string& extra_headers = "") {
  return absl::StrCat("POST ", target, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n",
                      "Content-Type: application/json\r\nContent-Length: ", body.size(), "\r\n",
                      extra_headers, "\r\n", body);
}

Reply Post(int port, const std::string& target, const std::string& body,
           const std::string& extra_headers = "") {
  return Exchange(port, PostText(target, body, extra_headers));
}

nlohmann::json Json(const Reply& r) {
  return nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
}

constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Start({}); }

  void Start(ServerOptions options) {
    server_.reset();
    absl::StatusOr<Listener> listener =
        Listener::Tcp({.host = "127.0.0.1", .ipv6 = false, .port = 0}, 64);
    ASSERT_TRUE(listener.ok()) << listener.status();
    Router router;
    ASSERT_TRUE(AddMetricsRoute(router, exporter_).ok());
    ASSERT_TRUE(
        router
            .Add("GET", "/api/v1/status", Effect::kReadsOnly,
                 [](const Request& r) {
                   return Response{.body = model::JsonText(nlohmann::json{{"query", r.query}})};
                 })
            .ok());
    // Echoes the "value" member of a JSON body; a body of another shape makes .at() throw.
    ASSERT_TRUE(
        router
            .Add("POST", "/api/v1/apply", Effect::kChanges,
                 [this](const Request& r) {
                   ++applied_;
                   auto body = ParseJsonBody(r);
                   if (!body.ok()) {
                     return ErrorResponse(400, "bad_request", std::string(body.status().message()));
                   }
                   const int value = body->at("value").get<int>();
                   return Response{.body = model::JsonText(nlohmann::json{{"echo", value}})};
                 })
            .ok());
    // A POST that only computes (as whatif): the token rule leaves it alone. It counts the
    // bodies it is handed, and their sizes.
    ASSERT_TRUE(router
                    .Add("POST", "/api/v1/compute", Effect::kReadsOnly,
                         [this](const Request& r) {
                           ++computed_;
                           last_body_size_ = r.body.size();
                           return Response{.body = r.body};
                         })
                    .ok());
    auto started = HttpServer::Start(*std::move(listener), std::move(options), std::move(router));
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    ASSERT_GT(server_->port(), 0);
  }

  int port() const { return server_->port(); }

  metrics::MetricsExporter exporter_;
  std::atomic<int> applied_{0};
  std::atomic<int> computed_{0};
  std::atomic<size_t> last_body_size_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, MetricsAreServedInTextFormat004) {
  model::Snapshot snapshot;
  snapshot.sources = {{.name = "/proc/stat", .source = model::Source::kProcfs, .in_use = true}};
  exporter_.Update(snapshot, {}, {});
  const Reply r = Get(port(), "/metrics");
  EXPECT_EQ(r.status, 200) << r.head;
  EXPECT_THAT(r.head, HasSubstr("Content-Type: text/plain; version=0.0.4; charset=utf-8"));
  EXPECT_THAT(r.body, HasSubstr("nictune_source_up{kind=\"procfs\",source=\"/proc/stat\"} 1\n"));
}

TEST_F(HttpServerTest, RoutedHandlerGetsTheQuery) {
  const Reply r = Get(port(), "/api/v1/status?since=1700000000&series=a%2Cb");
  EXPECT_EQ(r.status, 200) << r.head;
  EXPECT_THAT(r.head, HasSubstr("Content-Type: application/json"));
  EXPECT_EQ(Json(r)["query"], "since=1700000000&series=a%2Cb");
}

TEST_F(HttpServerTest, UnknownPathIs404WithJsonError) {
  const Reply r = Get(port(), "/api/v1/nothing-here");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.head, HasSubstr("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_THAT(r.head, HasSubstr("\r\nX-Content-Type-Options: nosniff\r\n"));
  EXPECT_THAT(r.head, HasSubstr("\r\nCache-Control: no-store"));
  EXPECT_EQ(Json(r)["error"], "not_found");
  EXPECT_THAT(Json(r)["detail"].get<std::string>(), HasSubstr("/api/v1/nothing-here"));
}

TEST_F(HttpServerTest, WrongMethodIs405AndSaysWhichAreAllowed) {
  // No route serves DELETE /metrics, so nothing would change: 405, not the token's 403.
  const Reply r = Exchange(port(),
                           "DELETE /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           "Content-Length: 0\r\n\r\n");
  EXPECT_EQ(r.status, 405);
  EXPECT_THAT(r.head, HasSubstr("Allow: GET"));
  const Reply get_on_post = Get(port(), "/api/v1/apply");
  EXPECT_EQ(get_on_post.status, 405);
  EXPECT_THAT(get_on_post.head, HasSubstr("Allow: POST"));
  EXPECT_EQ(Json(get_on_post)["error"], "method_not_allowed");
}

TEST_F(HttpServerTest, MutatingRequestOnTcpWithoutConfiguredTokenIs403) {
  const Reply r = Post(port(), "/api/v1/apply", R"({"value": 1})",
                       absl::StrCat("Authorization: Bearer ", kToken, "\r\n"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Json(r)["error"], "forbidden");
  EXPECT_THAT(Json(r)["detail"].get<std::string>(), HasSubstr("--api_token_file"));
  EXPECT_EQ(applied_, 0);
}

TEST_F(HttpServerTest, ReadOnlyPostOnTcpNeedsNoToken) {
  const Reply r = Post(port(), "/api/v1/compute", R"({"value": 3})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r)["value"], 3);
}

TEST_F(HttpServerTest, MutatingRequestNeedsTheConfiguredBearerToken) {
  Start({.api_token = kToken});
  EXPECT_EQ(Post(port(), "/api/v1/apply", R"({"value": 1})").status, 403);
  EXPECT_EQ(Post(port(), "/api/v1/apply", R"({"value": 1})",
                 "Authorization: Bearer 0123456789abcdef0123456789abcdeX\r\n")
                .status,
            403);
  EXPECT_EQ(Post(port(), "/api/v1/apply", R"({"value": 1})",
                 absl::StrCat("Authorization: Basic ", kToken, "\r\n"))
                .status,
            403);
  EXPECT_EQ(Post(port(), "/api/v1/apply", R"({"value": 1})",
                 absl::StrCat("Authorization: Bearer", kToken, "\r\n"))
                .status,
            403)
      << "the scheme and the token are separated by a space";
  EXPECT_EQ(applied_, 0);
  const Reply ok = Post(port(), "/api/v1/apply", R"({"value": 7})",
                        absl::StrCat("Authorization: Bearer ", kToken, "\r\n"));
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Json(ok)["echo"], 7);
  // RFC 9110: the scheme is case-insensitive.
  const Reply lower = Post(port(), "/api/v1/apply", R"({"value": 8})",
                           absl::StrCat("Authorization: bearer  ", kToken, "\r\n"));
  EXPECT_EQ(lower.status, 200) << lower.body;
  EXPECT_EQ(Json(lower)["echo"], 8);
}

TEST_F(HttpServerTest, MalformedOrMisshapenJsonIs400) {
  Start({.api_token = kToken});
  const std::string auth = absl::StrCat("Authorization: Bearer ", kToken, "\r\n");
  const Reply malformed = Post(port(), "/api/v1/apply", R"({"value": )", auth);
  EXPECT_EQ(malformed.status, 400);
  EXPECT_THAT(Json(malformed)["detail"].get<std::string>(), HasSubstr("not valid JSON"));
  // Valid JSON of the wrong shape: the handler's .at() throws, the router answers 400.
  const Reply misshapen = Post(port(), "/api/v1/apply", R"({"value": "seven"})", auth);
  EXPECT_EQ(misshapen.status, 400);
  EXPECT_EQ(Json(misshapen)["error"], "bad_request");
  // The client names the request when it prints the error: the detail does not repeat it.
  const std::string detail = Json(misshapen)["detail"].get<std::string>();
  EXPECT_THAT(detail, StartsWith("the request body: ")) << detail;
  EXPECT_THAT(detail, Not(HasSubstr("/api/v1/apply"))) << detail;
}

TEST_F(HttpServerTest, BodyOverTheLimitIs413AndChunkedOrUnframedBodiesAre411) {
  Start({.max_body_bytes = 1024, .api_token = kToken});
  const std::string auth = absl::StrCat("Authorization: Bearer ", kToken, "\r\n");
  const std::string padding(2000, ' ');
  const Reply declared = Post(port(), "/api/v1/apply", R"({"value": 1})" + padding, auth);
  EXPECT_EQ(declared.status, 413);
  EXPECT_EQ(Json(declared)["error"], "payload_too_large");
  const std::string chunk = R"({"value": 1})";
  const Reply chunked = Exchange(
      port(), absl::StrCat("POST /api/v1/apply HTTP/1.1\r\nHost: x\r\nConnection: close\r\n", auth,
                           "Transfer-Encoding: chunked\r\n\r\n",
                           absl::StrFormat("%x", chunk.size()), "\r\n", chunk, "\r\n0\r\n\r\n"));
  EXPECT_EQ(chunked.status, 411) << chunked.head;
  EXPECT_EQ(Json(chunked)["error"], "length_required");
  const Reply unframed = Exchange(
      port(), absl::StrCat("POST /api/v1/apply HTTP/1.1\r\nHost: x\r\nConnection: close\r\n", auth,
                           "\r\n"));
  EXPECT_EQ(unframed.status, 411) << unframed.head;
  EXPECT_EQ(applied_, 0);
  // Just under the limit passes.
  const Reply small =
      Post(port(), "/api/v1/apply", R"({"value": 2})" + std::string(900, ' '), auth);
  EXPECT_EQ(small.status, 200) << small.body;
}

TEST_F(HttpServerTest, HeadOverTheLimitIs431) {
  Start({.max_head_bytes = 2048});
  const Reply big =
      Get(port(), "/metrics", absl::StrCat("X-Padding: ", std::string(3000, 'a'), "\r\n"));
  EXPECT_EQ(big.status, 431) << big.head;
  const Reply fits = Get(port(), "/metrics", "X-Padding: aaaa\r\n");
  EXPECT_EQ(fits.status, 200) << fits.head;
}

TEST_F(HttpServerTest, ABodyCutShortAtAnyByteNeverReachesTheRoute) {
  Start({.idle_timeout = absl::Seconds(1), .api_token = kToken});
  const std::string auth = absl::StrCat("Authorization: Bearer ", kToken, "\r\n");
  const std::string body = R"({"value": 1234567, "knob": "netdev_budget", "target": "host"})";
  const std::string whole = PostText("/api/v1/apply", body, auth);
  const size_t head_end = whole.find("\r\n\r\n") + 4;
  // Every cut inside the body, all at once: each client sends that much, then stops sending
  // (half-close), and each connection is dropped once it has been silent for the idle timeout.
  std::vector<int> cut_short;
  for (size_t cut = head_end; cut < whole.size(); ++cut) {
    cut_short.push_back(Connect(port()));
    ASSERT_EQ(write(cut_short.back(), whole.data(), cut), static_cast<ssize_t>(cut));
    ::shutdown(cut_short.back(), SHUT_WR);
  }
  for (size_t i = 0; i < cut_short.size(); ++i) {
    const std::string answer = ReadAll(cut_short[i]);
    close(cut_short[i]);
    EXPECT_EQ(answer, "") << "cut at " << head_end + i;
  }
  EXPECT_EQ(applied_, 0) << "a route ran on a partial body";
  // And one that stalls without closing is dropped once its connection falls silent.
  const int fd = Connect(port());
  ASSERT_EQ(write(fd, whole.data(), whole.size() - 5), static_cast<ssize_t>(whole.size() - 5));
  const auto start = std::chrono::steady_clock::now();
  const std::string answer = ReadAll(fd);
  const auto waited = std::chrono::steady_clock::now() - start;
  close(fd);
  EXPECT_EQ(answer, "");
  EXPECT_LT(waited, std::chrono::milliseconds(4000));
  EXPECT_EQ(applied_, 0);
  // The whole request still works.
  EXPECT_EQ(Exchange(port(), whole).status, 200);
  EXPECT_EQ(applied_, 1);
}

TEST_F(HttpServerTest, ConnectionThatStallsIsClosedAfterTheIdleTimeout) {
  Start({.idle_timeout = absl::Seconds(1)});
  const int fd = Connect(port());
  const std::string partial = "GET /metrics HTTP/1.1\r\nHost: x\r\n";  // never finished
  ASSERT_EQ(write(fd, partial.data(), partial.size()), static_cast<ssize_t>(partial.size()));
  const auto start = std::chrono::steady_clock::now();
  ReadAll(fd);  // returns at EOF, or after the 5 s socket timeout if the server never closes
  const auto waited = std::chrono::steady_clock::now() - start;
  close(fd);
  EXPECT_LT(waited, std::chrono::milliseconds(4000));
}

TEST_F(HttpServerTest, SlowClientsHoldConnectionsNotTheServer) {
  // 100 clients that send a header line now and then (a slowloris), against 2 event loops.
  std::vector<int> slow;
  for (int i = 0; i < 100; ++i) {
    slow.push_back(Connect(port()));
    const std::string start = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    ASSERT_EQ(write(slow.back(), start.data(), start.size()), static_cast<ssize_t>(start.size()));
  }
  for (int round = 0; round < 3; ++round) {
    for (const int fd : slow) {
      const std::string more = "X-Slow: yes\r\n";
      EXPECT_EQ(write(fd, more.data(), more.size()), static_cast<ssize_t>(more.size()));
    }
    const auto start = std::chrono::steady_clock::now();
    const Reply r = Get(port(), "/metrics");
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.status, 200);
    EXPECT_LT(took, std::chrono::milliseconds(1000)) << "round " << round;
  }
  for (const int fd : slow) close(fd);
}

TEST_F(HttpServerTest, AWebSocketUpgradeGetsAnOrdinaryAnswer) {
  const Reply r = Get(port(), "/api/v1/status",
                      "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n");
  EXPECT_EQ(r.status, 200) << r.head;
  EXPECT_THAT(r.head, HasSubstr("HTTP/1.1 200 OK\r\n"));
  EXPECT_TRUE(Json(r).contains("query"));
}

TEST(HttpServerStartTest, PortInUseIsAnErrorNamingTheAddress) {
  auto first = Listener::Tcp({.host = "127.0.0.1", .ipv6 = false, .port = 0}, 16);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Listener::Tcp({.host = "127.0.0.1", .ipv6 = false, .port = first->port()}, 16);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr(absl::StrCat("127.0.0.1:", first->port())));
  EXPECT_THAT(second.status().message(), HasSubstr("errno 98"));
}

TEST(ListenAddressTest, ParsesHostAndPortStrictly) {
  auto v4 = ParseListenAddress("127.0.0.1:9877");
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 9877);
  EXPECT_TRUE(IsLoopback(*v4));
  auto v6 = ParseListenAddress("[::1]:9877");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_TRUE(v6->ipv6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_TRUE(IsLoopback(*v6));
  EXPECT_EQ(FormatListenAddress(*v6), "[::1]:9877");
  auto named = ParseListenAddress("localhost:80");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->host, "127.0.0.1");
  auto any = ParseListenAddress("0.0.0.0:9877");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_FALSE(IsLoopback(*any));
  for (const char* bad : {"999.1.1.1:38119", "38119", ":38119", "127.0.0.1:1,127.0.0.1:2",
                          "127.0.0.1:65536", "127.0.0.1:", "127.0.0.1:+80", "::1:9877", "[::1]9877",
                          "[fe80::1%eth0]:80", "example.com:80", "1.2.3:80", ""}) {
    auto parsed = ParseListenAddress(bad);
    if (parsed.ok()) {
      ADD_FAILURE() << bad << " parsed as " << parsed->host << ":" << parsed->port;
    } else {
      EXPECT_THAT(parsed.status().message(), HasSubstr("--listen"));
    }
  }
}

TEST(BearerTokenTest, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("secret-token-123", "secret-token-123"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token-123", "secret-token-124"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token-123", "secret-token-12"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token-12", "secret-token-123"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(BearerTokenTest, UnixSocketRequestsNeedNoTokenAndReadsNeverDo) {
  const Request post_unix{
      .method = "POST", .path = "/api/v1/apply", .transport = Transport::kUnixSocket};
  EXPECT_FALSE(RefuseUnauthorized(post_unix, Effect::kChanges, std::nullopt).has_value());
  const Request get_tcp{.method = "GET", .path = "/api/v1/status"};
  EXPECT_FALSE(RefuseUnauthorized(get_tcp, Effect::kReadsOnly, std::nullopt).has_value());
  const Request post_tcp{.method = "POST", .path = "/api/v1/apply"};
  ASSERT_TRUE(RefuseUnauthorized(post_tcp, Effect::kChanges, std::nullopt).has_value());
  EXPECT_EQ(RefuseUnauthorized(post_tcp, Effect::kChanges, std::nullopt)->status, 403);
}

TEST(RouterTest, EffectIsTheRoutesOwnAndReadsOnlyWhereNoRouteServes) {
  Router router;
  const Handler ok = [](const Request&) { return Response{}; };
  ASSERT_TRUE(router.Add("POST", "/compute", Effect::kReadsOnly, ok).ok());
  ASSERT_TRUE(router.Add("POST", "/write", Effect::kChanges, ok).ok());
  EXPECT_EQ(router.EffectOf({.method = "POST", .path = "/compute"}), Effect::kReadsOnly);
  EXPECT_EQ(router.EffectOf({.method = "POST", .path = "/write"}), Effect::kChanges);
  EXPECT_EQ(router.EffectOf({.method = "DELETE", .path = "/write"}), Effect::kReadsOnly);
  EXPECT_EQ(router.EffectOf({.method = "POST", .path = "/elsewhere"}), Effect::kReadsOnly);
}

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/nictune_token_XXXXXX";
    const int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = name;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void Write(const std::string& text, mode_t mode) {
    std::ofstream(path_) << text;
    ASSERT_EQ(chmod(path_.c_str(), mode), 0);
  }
  std::string path_;
};

TEST_F(TokenFileTest, ReadsTheTokenWithoutItsNewline) {
  Write(absl::StrCat(kToken, "\n"), 0600);
  const auto token = ReadTokenFile(path_);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, kToken);
}

TEST_F(TokenFileTest, RefusesAFileOthersCanRead) {
  Write(kToken, 0644);
  const auto token = ReadTokenFile(path_);
  ASSERT_FALSE(token.ok());
  EXPECT_THAT(token.status().message(), HasSubstr("mode 0644"));
  EXPECT_THAT(token.status().message(), HasSubstr(path_));
}

TEST_F(TokenFileTest, RefusesAShortToken) {
  Write("short\n", 0600);
  EXPECT_THAT(ReadTokenFile(path_).status().message(), HasSubstr("at least 16"));
}

TEST_F(TokenFileTest, RefusesAFileAnotherUserOwns) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown the file to another user";
  Write(kToken, 0600);
  ASSERT_EQ(chown(path_.c_str(), 65534, 65534), 0);
  const auto token = ReadTokenFile(path_);
  ASSERT_FALSE(token.ok());
  EXPECT_THAT(token.status().message(), HasSubstr("owned by uid 65534"));
}

TEST_F(TokenFileTest, MissingFileNamesTheErrno) {
  EXPECT_THAT(ReadTokenFile(path_ + ".absent").status().message(),
              HasSubstr("No such file or directory (errno 2)"));
}

}  // namespace
}  // namespace nictune::http
