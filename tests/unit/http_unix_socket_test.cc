// SPDX-License-Identifier: Apache-2.0
// The CLI's unix socket as clients see it: a real listener in a temporary directory served by the
// agent's one HTTP server, the client the CLI uses, and raw bytes for what a well-behaved client
// never sends.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/http/http_message.h"
#include "agent/http/listener.h"
#include "agent/http/router.h"
#include "agent/http/server.h"
#include "agent/http/unix_socket_client.h"
#include "agent/model/json_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;

constexpr int kNobody = 65534;

// GET /ping answers how the request arrived; POST /echo returns its body.
Router TestRouter() {
  Router router;
  EXPECT_TRUE(router
                  .Add("GET", "/ping", Effect::kReadsOnly,
                       [](const Request& request) {
                         const bool unix_socket = request.transport == Transport::kUnixSocket;
                         return Response{
                             .body = model::JsonText(nlohmann::json{{"unix_socket", unix_socket},
                                                                    {"query", request.query}})};
                       })
                  .ok());
  EXPECT_TRUE(router
                  .Add("POST", "/echo", Effect::kChanges,
                       [](const Request& request) {
                         return Response{.content_type = "text/plain", .body = request.body};
                       })
                  .ok());
  return router;
}

int ConnectRaw(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  timeval timeout{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ADD_FAILURE() << "connect " << path << ": " << std::strerror(errno);
  }
  return fd;
}

std::string ReadToEnd(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

// Sends raw bytes, half-closes, and parses whatever comes back.
Response RawExchange(const std::string& path, const std::string& bytes) {
  const int fd = ConnectRaw(path);
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
  ::shutdown(fd, SHUT_WR);
  const std::string reply = ReadToEnd(fd);
  ::close(fd);
  absl::StatusOr<Response> parsed = ParseResponse(reply);
  EXPECT_TRUE(parsed.ok()) << parsed.status() << " in " << reply;
  return parsed.ok() ? *parsed : Response{.status = 0};
}

class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-unix-socket-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // Parent directory created by the listener itself, one level below the temporary one.
    path_ = dir_ + "/run/nictune.sock";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<HttpServer> StartServer() {
    absl::StatusOr<Listener> listener = Listener::Unix(path_, 16);
    EXPECT_TRUE(listener.ok()) << listener.status();
    if (!listener.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<HttpServer>> server =
        HttpServer::Start(*std::move(listener), options_, TestRouter());
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  std::string dir_;
  std::string path_;
  ServerOptions options_;
};

TEST_F(UnixSocketTest, ServesGetAndPostOverTheUnixTransport) {
  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);

  absl::StatusOr<Response> get = Call(path_, "GET", "/ping?a=1%2F2", "");
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->content_type, "application/json");
  const nlohmann::json ping = nlohmann::json::parse(get->body);
  EXPECT_EQ(ping["unix_socket"], true);
  EXPECT_EQ(ping["query"], "a=1%2F2");  // raw, as the router's handlers expect

  const std::string body(50'000, 'x');
  absl::StatusOr<Response> post = Call(path_, "POST", "/echo", body);
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ(post->status, 200);
  EXPECT_EQ(post->content_type, "text/plain");
  EXPECT_EQ(post->body, body);

  absl::StatusOr<Response> missing = Call(path_, "GET", "/nothing", "");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->status, 404);
  absl::StatusOr<Response> wrong_method = Call(path_, "PUT", "/ping", "");
  ASSERT_TRUE(wrong_method.ok()) << wrong_method.status();
  EXPECT_EQ(wrong_method->status, 405);
}

TEST_F(UnixSocketTest, SocketIsOwnerOnlyInAnOpenDirectoryAndRemovedOnShutdown) {
  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  struct stat socket_stat {};
  ASSERT_EQ(::stat(path_.c_str(), &socket_stat), 0);
  EXPECT_TRUE(S_ISSOCK(socket_stat.st_mode));
  EXPECT_EQ(socket_stat.st_mode & 07777, 0600u);
  struct stat dir_stat {};
  ASSERT_EQ(::stat((dir_ + "/run").c_str(), &dir_stat), 0);
  EXPECT_EQ(dir_stat.st_mode & 07777, 0755u);

  server.reset();
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(UnixSocketTest, OtherUsersGet403) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to run a client as uid " << kNobody << " (euid is " << ::geteuid()
                 << ")";
  }
  // Fork before the server starts any thread, so that the child may allocate freely.
  int go[2];
  int result[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(result), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);
    ::close(result[0]);
    char byte = 0;
    int status = -1;  // -1: setuid failed; -2: call failed
    if (::setgid(kNobody) == 0 && ::setuid(kNobody) == 0 && ::read(go[0], &byte, 1) == 1) {
      absl::StatusOr<Response> reply = Call(path_, "GET", "/ping", "");
      status = reply.ok() ? reply->status : -2;
    }
    (void)!::write(result[1], &status, sizeof status);
    ::_exit(0);
  }
  ::close(go[0]);
  ::close(result[1]);

  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  // The file mode keeps other users out on its own; open it up (as if the umask had) to reach
  // the second guard, the peer's credentials.
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(path_.c_str(), 0666), 0);
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  int status = 0;
  ASSERT_EQ(::read(result[0], &status, sizeof status), static_cast<ssize_t>(sizeof status));
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  ::close(go[1]);
  ::close(result[0]);
  EXPECT_EQ(status, 403) << "-1: setuid failed, -2: the call failed";

  // Root itself is still served.
  absl::StatusOr<Response> root = Call(path_, "GET", "/ping", "");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->status, 200);
}

TEST_F(UnixSocketTest, StaleSocketIsReplaced) {
  // A socket file whose listener died without removing it, as after a crash.
  ASSERT_EQ(::mkdir((dir_ + "/run").c_str(), 0755), 0);
  const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(stale, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ::close(stale);
  ASSERT_TRUE(std::filesystem::is_socket(path_));

  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  absl::StatusOr<Response> get = Call(path_, "GET", "/ping", "");
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->status, 200);
}

TEST_F(UnixSocketTest, LiveSocketAndOtherFilesAreRefused) {
  std::unique_ptr<HttpServer> first = StartServer();
  ASSERT_NE(first, nullptr);
  absl::StatusOr<Listener> second = Listener::Unix(path_, 16);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("listens on it"));
  EXPECT_THAT(second.status().message(), HasSubstr(path_));
  // The first one is untouched and still serving.
  absl::StatusOr<Response> get = Call(path_, "GET", "/ping", "");
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->status, 200);
  first.reset();

  std::ofstream(path_) << "not a socket\n";
  absl::StatusOr<Listener> over_file = Listener::Unix(path_, 16);
  ASSERT_FALSE(over_file.ok());
  EXPECT_THAT(over_file.status().message(), HasSubstr("is not a socket"));
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));
}

TEST_F(UnixSocketTest, OversizeRequestsAre413And431) {
  options_.max_body_bytes = 1024;
  options_.max_head_bytes = 1024;
  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);

  absl::StatusOr<Response> big = Call(path_, "POST", "/echo", std::string(4096, 'x'));
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->status, 413);
  EXPECT_THAT(big->body, HasSubstr("4096 bytes exceeds the limit of 1024"));

  absl::StatusOr<Response> fits = Call(path_, "POST", "/echo", std::string(1024, 'y'));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->status, 200);

  const Response long_head = RawExchange(
      path_, absl::StrCat("GET /ping HTTP/1.1\r\nHost: x\r\nX-Filler: ", std::string(2000, 'z'),
                          "\r\n\r\n"));
  EXPECT_EQ(long_head.status, 431);
}

TEST_F(UnixSocketTest, MalformedRequestsAreRefusedAndNeverReachARoute) {
  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  // What libmicrohttpd refuses itself (a 400 page, or a close without an answer: "" here) and
  // what the server refuses with its JSON.
  const struct {
    std::string bytes;
    std::string answer;
  } cases[] = {
      {"GARBAGE\r\n\r\n", ""},
      {"GET /ping HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", "HTTP/1.1 400"},
      {"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400"},
      {"POST /echo HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 411"},
      {"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
       "HTTP/1.1 411"},
  };
  for (const auto& c : cases) {
    const int fd = ConnectRaw(path_);
    EXPECT_EQ(::send(fd, c.bytes.data(), c.bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(c.bytes.size()));
    ::shutdown(fd, SHUT_WR);
    const std::string reply = ReadToEnd(fd);
    ::close(fd);
    if (c.answer.empty()) {
      EXPECT_EQ(reply, "") << c.bytes;
    } else {
      EXPECT_EQ(reply.substr(0, c.answer.size()), c.answer) << c.bytes << " -> " << reply;
    }
  }
  // A body cut short is never echoed: the connection ends without an answer once it falls
  // silent.
  options_.idle_timeout = absl::Seconds(1);
  server.reset();
  server = StartServer();
  const int fd = ConnectRaw(path_);
  const std::string shortened = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nshort";
  EXPECT_EQ(::send(fd, shortened.data(), shortened.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(shortened.size()));
  ::shutdown(fd, SHUT_WR);
  EXPECT_EQ(ReadToEnd(fd), "");
  ::close(fd);
}

TEST_F(UnixSocketTest, SlowClientIsDroppedWithoutBlockingOthers) {
  options_.threads = 1;
  options_.idle_timeout = absl::Seconds(2);
  std::unique_ptr<HttpServer> server = StartServer();
  ASSERT_NE(server, nullptr);

  const int slow = ConnectRaw(path_);
  const std::string partial = "GET /ping HTTP/1.1\r\nHost: x\r\n";  // never finished
  ASSERT_EQ(::send(slow, partial.data(), partial.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(partial.size()));
  // Others are served, on the one event loop, while the slow client is still connected.
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<Response> get = Call(path_, "GET", "/ping", "");
    ASSERT_TRUE(get.ok()) << get.status();
    EXPECT_EQ(get->status, 200);
  }
  pollfd p{.fd = slow, .events = POLLIN, .revents = 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0) << "the slow client was answered or dropped too early";
  // Silent past the idle timeout: dropped without an answer.
  EXPECT_EQ(ReadToEnd(slow), "");
  ::close(slow);
}

TEST_F(UnixSocketTest, ClientNamesTheSocketWhenNothingListens) {
  absl::StatusOr<Response> reply = Call(dir_ + "/absent.sock", "GET", "/ping", "");
  ASSERT_FALSE(reply.ok());
  EXPECT_THAT(reply.status().message(), HasSubstr(dir_ + "/absent.sock: connect"));
  EXPECT_THAT(reply.status().message(), HasSubstr("errno 2"));
}

}  // namespace
}  // namespace nictune::http
