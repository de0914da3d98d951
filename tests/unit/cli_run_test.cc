// SPDX-License-Identifier: Apache-2.0
// Running nictune commands: exit codes and one-line errors for an unreachable agent (a real
// missing socket, a real refused TCP port) and for the agent's HTTP errors; --json printing the
// answer unchanged; top's frames, screen clearing on a terminal only, and Ctrl-C; and a real
// exchange over the agent's unix socket server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/build_info.h"
#include "agent/cli/agent_url.h"
#include "agent/cli/cli_args.h"
#include "agent/cli/run_command.h"
#include "agent/cli/tcp_agent_client.h"
#include "agent/cli/unix_socket_agent_client.h"
#include "agent/http/listener.h"
#include "agent/http/router.h"
#include "agent/http/server.h"
#include "agent/http/whatif_route.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/temp_dir.h"

namespace nictune::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

// Answers every call from a real Router, and records what was asked.
class RouterClient : public AgentClient {
 public:
  explicit RouterClient(http::Router router) : router_(std::move(router)) {}

  absl::StatusOr<http::Response> Call(const std::string& method, const std::string& target,
                                      const std::string& body) override {
    calls.push_back(absl::StrCat(method, " ", target));
    const size_t question = target.find('?');
    return router_.Dispatch(
        {.method = method,
         .path = target.substr(0, question),
         .query = question == std::string::npos ? "" : target.substr(question + 1),
         .body = body,
         .transport = http::Transport::kUnixSocket});
  }
  std::string Where() const override { return "unix socket /test.sock"; }

  std::vector<std::string> calls;

 private:
  http::Router router_;
};

class CountingPacer : public Pacer {
 public:
  explicit CountingPacer(int stop_after = -1) : stop_after_(stop_after) {}
  absl::Time Now() override { return absl::FromUnixSeconds(1'800'000'000); }
  bool Sleep(absl::Duration duration) override {
    slept.push_back(duration);
    return static_cast<int>(slept.size()) != stop_after_;
  }
  std::vector<absl::Duration> slept;

 private:
  int stop_after_;
};

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

CliRun RunWith(AgentClient& client, Pacer& pacer, const std::vector<std::string>& args,
               bool tty = false) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return {};
  std::ostringstream out;
  std::ostringstream err;
  CliRun run;
  run.code = RunCli(*parsed, client, pacer, {.out = out, .err = err, .is_tty = tty});
  run.out = out.str();
  run.err = err.str();
  return run;
}

// A snapshot route that counts its calls into the body, so frames can be told apart.
http::Router SnapshotRouter() {
  http::Router router;
  auto frames = std::make_shared<int>(0);
  EXPECT_TRUE(router
                  .Add("GET", "/api/v1/snapshot", http::Effect::kReadsOnly,
                       [frames](const http::Request&) {
                         ++*frames;
                         return http::Response{
                             .body = Json{{"seconds", *frames}, {"queues", Json::array()}}.dump()};
                       })
                  .ok());
  return router;
}

TEST(CliRunTest, MissingSocketIsExit3NamingTheSocket) {
  UnixSocketAgentClient client("/tmp/nictune-cli-test-no-such-dir/nictune.sock");
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"status"});
  EXPECT_EQ(run.code, 3);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "nictune: cannot reach the agent: unix socket "
            "/tmp/nictune-cli-test-no-such-dir/nictune.sock: connect: No such file or directory "
            "(errno 2) (is nictuned running, and is --socket or --url the one it serves?)\n");
}

TEST(CliRunTest, VersionIsPrintedWithoutAnAgent) {
  UnixSocketAgentClient client("/tmp/nictune-cli-test-no-such-dir/nictune.sock");
  CountingPacer pacer;
  for (const auto& args : std::vector<std::vector<std::string>>{{"--version"}, {"version"}}) {
    const CliRun run = RunWith(client, pacer, args);
    EXPECT_EQ(run.code, 0) << args[0];
    EXPECT_EQ(run.out, absl::StrCat("nictune ", std::string(agent::Version()), "\n")) << args[0];
    EXPECT_EQ(run.err, "") << args[0];
  }
}

TEST(CliRunTest, RefusedTcpPortIsExit3NamingTheUrl) {
  // A port nothing listens on: bound and closed again.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  const std::string url = absl::StrCat("http://127.0.0.1:", ntohs(address.sin_port));
  absl::StatusOr<AgentUrl> parsed = ParseAgentUrl(url);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  TcpAgentClient client(url, *parsed, std::nullopt);
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"recommend"});
  EXPECT_EQ(run.code, 3);
  EXPECT_EQ(run.err, absl::StrCat("nictune: cannot reach the agent: ", url,
                                  ": connect: Connection refused (errno 111) (is nictuned "
                                  "running, and is --socket or --url the one it serves?)\n"));
}

// The real TCP server with a token configured: the client presents --token_file's token on a
// request to a route that changes state, and without it the server's 403 comes back.
TEST(CliRunTest, TcpClientPresentsTheTokenToTheRealServer) {
  const std::string token = "0123456789abcdef-cli-token";
  http::Router router;
  ASSERT_TRUE(
      router
          .Add("POST", "/api/v1/restore", http::Effect::kChanges,
               [](const http::Request&) { return http::Response{.body = R"({"restored": []})"}; })
          .ok());
  absl::StatusOr<http::Listener> listener =
      http::Listener::Tcp({.host = "127.0.0.1", .ipv6 = false, .port = 0}, 16);
  ASSERT_TRUE(listener.ok()) << listener.status();
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Start(*std::move(listener), {.api_token = token}, std::move(router));
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string url = absl::StrCat("http://127.0.0.1:", (*server)->port());
  absl::StatusOr<AgentUrl> parsed = ParseAgentUrl(url);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  CountingPacer pacer;

  TcpAgentClient with_token(url, *parsed, token);
  const CliRun allowed = RunWith(with_token, pacer, {"--json", "restore"});
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_EQ(Json::parse(allowed.out)["restored"], Json::array());

  TcpAgentClient without_token(url, *parsed, std::nullopt);
  const CliRun refused = RunWith(without_token, pacer, {"restore"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_THAT(refused.err, HasSubstr("POST /api/v1/restore: 403 forbidden"));
}

TEST(CliRunTest, HttpErrorIsExit1WithTheServersErrorAndDetail) {
  RouterClient client{http::Router()};
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"apply"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err,
            "nictune: unix socket /test.sock: POST /api/v1/apply: 404 not_found: no resource at "
            "/api/v1/apply\n");
  EXPECT_EQ(run.out, "");
  // --json also prints the error body for scripts.
  const CliRun json = RunWith(client, pacer, {"--json", "restore"});
  EXPECT_EQ(json.code, 1);
  EXPECT_EQ(Json::parse(json.out)["error"], "not_found");
}

// whatif runs the agent's own route in process: no agent is asked (this socket does not exist),
// and a bad input, the route's own refusal, is a usage error of the parser: nothing is sent
// anywhere, with --device too (before the agent would be asked for the device's ring).
TEST(CliRunTest, WhatifNeedsNoAgentAndBadInputsAreUsageErrors) {
  UnixSocketAgentClient client("/tmp/nictune-cli-test-no-such-dir/nictune.sock");
  CountingPacer pacer;
  const absl::StatusOr<CliArgs> bad =
      ParseCliArgs({"whatif", "--rate_pps=-5", "--truesize_bytes=2994", "--rcvbuf_bytes=212992"});
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
  EXPECT_EQ(bad.status().message(),
            "nictune: whatif field \"rate_pps\": must be >= 1 and <= 1e+07, got -5.0");
  const absl::StatusOr<CliArgs> bad_device =
      ParseCliArgs({"whatif", "--device=eth0", "--rate_pps=-5", "--truesize_bytes=2994",
                    "--rcvbuf_bytes=212992"});
  EXPECT_EQ(bad_device.status().message(), bad.status().message());
  const CliRun seed = RunWith(client, pacer,
                              {"whatif", "--rate_pps=812744", "--truesize_bytes=2994",
                               "--rcvbuf_bytes=212992", "--margin=0"});
  EXPECT_EQ(seed.code, 0) << seed.err;
  EXPECT_THAT(seed.out, HasSubstr("recommended: rx-usecs 87"));
}

// --device asks the agent's snapshot for the device's rx ring and sends it as ring_size: 2 Mpps
// into 8 MiB on a 1024-descriptor ring is capped at the ring's (1 - 0.05) * 1024 / 2 Mpps - 2 us
// = 484.4 us.
TEST(CliRunTest, WhatifForADeviceTakesItsRingFromTheAgent) {
  http::Router router;
  ASSERT_TRUE(http::AddWhatifRoute(router).ok());
  ASSERT_TRUE(router
                  .Add("GET", "/api/v1/snapshot", http::Effect::kReadsOnly,
                       [](const http::Request&) {
                         return http::Response{
                             .body = R"({"settings": [{"device": "eth1", "rings": {"rx": 1024}},
                                         {"device": "veth0", "rings": {"supported": false,
                                          "error": "Operation not supported"}}]})"};
                       })
                  .ok());
  RouterClient client(std::move(router));
  CountingPacer pacer;
  const std::vector<std::string> flow{"whatif", "--rate_pps=2000000", "--truesize_bytes=2304",
                                      "--rcvbuf_bytes=8388608"};
  std::vector<std::string> eth1 = flow;
  eth1.push_back("--device=eth1");
  const CliRun run = RunWith(client, pacer, eth1);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(client.calls, ::testing::ElementsAre("GET /api/v1/snapshot", "POST /api/v1/whatif"));
  EXPECT_THAT(run.out, HasSubstr("recommended: rx-usecs 484,"));
  EXPECT_THAT(run.out, HasSubstr("a longer one overruns the ring"));

  std::vector<std::string> veth = flow;
  veth.push_back("--device=veth0");
  const CliRun no_ring = RunWith(client, pacer, veth);
  EXPECT_EQ(no_ring.code, 1);
  EXPECT_EQ(no_ring.err,
            "nictune whatif --device=veth0: the agent reads no rx ring size for veth0: Operation "
            "not supported; pass --ring_size\n");
  std::vector<std::string> missing = flow;
  missing.push_back("--device=eth9");
  EXPECT_THAT(RunWith(client, pacer, missing).err,
              HasSubstr("the agent's snapshot has no device eth9; pass --ring_size"));
}

// --json prints what the agent answered, every field as sent, indented: a body with fields no
// view shows (a newer agent's) comes out whole.
TEST(CliRunTest, JsonPrintsTheAgentsAnswerUnchangedAndPretty) {
  const Json answer = {{"recommendations", Json::array({{{"knob", "rx_usecs"},
                                                         {"target", "eth0"},
                                                         {"current", 8000},
                                                         {"recommended", 84},
                                                         {"field_of_a_newer_agent", {1, 2}}}})},
                       {"samples", 10}};
  http::Router router;
  ASSERT_TRUE(
      router
          .Add("GET", "/api/v1/recommendations", http::Effect::kReadsOnly,
               [&answer](const http::Request&) { return http::Response{.body = answer.dump()}; })
          .ok());
  RouterClient client(std::move(router));
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"--json", "recommend"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(client.calls, (std::vector<std::string>{"GET /api/v1/recommendations"}));
  EXPECT_EQ(run.out, answer.dump(2) + "\n");
}

TEST(CliRunTest, TopPrintsCountFramesWithoutAnsiWhenNotATerminal) {
  RouterClient client(SnapshotRouter());
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"top", "--count=3", "--interval=2s"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(client.calls.size(), 3u);
  EXPECT_EQ(pacer.slept, (std::vector<absl::Duration>{absl::Seconds(2), absl::Seconds(2)}));
  EXPECT_THAT(run.out, HasSubstr("interval of 1 s"));
  EXPECT_THAT(run.out, HasSubstr("\n\ninterval of 3 s"));
  EXPECT_THAT(run.out, Not(HasSubstr("\x1b")));
}

// A pasted `nictune top` in a script or a pipe returns after one view.
TEST(CliRunTest, TopOffATerminalWithoutCountPrintsOneFrame) {
  RouterClient client(SnapshotRouter());
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"top"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(client.calls.size(), 1u);
  EXPECT_TRUE(pacer.slept.empty());
  EXPECT_THAT(run.out, HasSubstr("interval of 1 s"));
}

TEST(CliRunTest, TopRedrawsOnATerminalAndCtrlCEndsItWithExit0) {
  RouterClient client(SnapshotRouter());
  CountingPacer pacer(/*stop_after=*/2);
  const CliRun run = RunWith(client, pacer, {"top"}, /*tty=*/true);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(client.calls.size(), 2u);
  EXPECT_EQ(run.out.find("\x1b[H\x1b[2Jinterval of 1 s"), 0u);
  EXPECT_THAT(run.out, HasSubstr("\x1b[H\x1b[2Jinterval of 2 s"));
}

TEST(CliRunTest, TopStopsAtTheFirstError) {
  RouterClient client{http::Router()};
  CountingPacer pacer;
  const CliRun run = RunWith(client, pacer, {"top"});
  EXPECT_EQ(run.code, 1);
  EXPECT_TRUE(pacer.slept.empty());
  EXPECT_THAT(run.err, HasSubstr("GET /api/v1/snapshot: 404 not_found"));
}

TEST(CliRunTest, AnswerOfTheWrongShapeIsAServerErrorNotACrash) {
  http::Router router;
  ASSERT_TRUE(router
                  .Add("GET", "/api/v1/status", http::Effect::kReadsOnly,
                       [](const http::Request&) {
                         return http::Response{.body = R"({"bpf":{"in_use":"yes"}})"};
                       })
                  .ok());
  ASSERT_TRUE(router
                  .Add("GET", "/api/v1/recommendations", http::Effect::kReadsOnly,
                       [](const http::Request&) { return http::Response{.body = "[1,2]"}; })
                  .ok());
  RouterClient client(std::move(router));
  CountingPacer pacer;
  const CliRun status = RunWith(client, pacer, {"status"});
  EXPECT_EQ(status.code, 1);
  EXPECT_THAT(status.err, HasSubstr("GET /api/v1/status: answer of an unexpected shape"));
  const CliRun recommend = RunWith(client, pacer, {"recommend"});
  EXPECT_EQ(recommend.code, 1);
  EXPECT_THAT(recommend.err, HasSubstr("200 but the answer is not a JSON object: [1,2]"));
}

TEST(CliRunTest, HistoryRelativeRangeIsResolvedBeforeSending) {
  RouterClient client{http::Router()};
  CountingPacer pacer;
  RunWith(client, pacer, {"history", "--series=a", "--since=-10m"});
  ASSERT_EQ(client.calls.size(), 1u);
  EXPECT_EQ(client.calls[0], "GET /api/v1/history?series=a&since=1799999400.000");
}

// The real unix socket server and client: the whatif answer of seed 001 end to end.
// A real exchange over the agent's unix socket server: an answer rendered, an error named with
// its socket and request; and whatif, answered in process, never reaches the server.
TEST(CliRunTest, RequestsOverTheRealUnixSocket) {
  absl::StatusOr<testing_support::TempDir> temp =
      testing_support::TempDir::Create("nictune-cli-run-");
  ASSERT_TRUE(temp.ok()) << temp.status();
  const std::string dir = temp->path();
  auto asked = std::make_shared<std::vector<std::string>>();
  {
    http::Router router;
    ASSERT_TRUE(router
                    .Add("GET", "/api/v1/history/series", http::Effect::kReadsOnly,
                         [asked](const http::Request& r) {
                           asked->push_back(r.path);
                           return http::Response{
                               .body =
                                   Json{{"series", {"nictune_softnet_processed_total"}}}.dump()};
                         })
                    .ok());
    ASSERT_TRUE(router
                    .Add("POST", "/api/v1/whatif", http::Effect::kReadsOnly,
                         [asked](const http::Request& r) {
                           asked->push_back(r.path);
                           return http::Response{.status = 500, .body = "{}"};
                         })
                    .ok());
    absl::StatusOr<http::Listener> listener = http::Listener::Unix(dir + "/s.sock", 16);
    ASSERT_TRUE(listener.ok()) << listener.status();
    absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
        http::HttpServer::Start(*std::move(listener), {}, std::move(router));
    ASSERT_TRUE(server.ok()) << server.status();
    UnixSocketAgentClient client(dir + "/s.sock");
    CountingPacer pacer;
    const CliRun list = RunWith(client, pacer, {"history", "--list"});
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_EQ(list.out, "nictune_softnet_processed_total\n");
    const CliRun whatif = RunWith(client, pacer,
                                  {"whatif", "--rate_pps=812744", "--truesize_bytes=2994",
                                   "--rcvbuf_bytes=212992", "--margin=0"});
    EXPECT_EQ(whatif.code, 0) << whatif.err;
    EXPECT_THAT(whatif.out,
                HasSubstr("capacity 71.14 packets (71.14 usable), fill time 87.5 us\n"));
    const CliRun missing = RunWith(client, pacer, {"status"});
    EXPECT_EQ(missing.code, 1);
    EXPECT_EQ(missing.err, absl::StrCat("nictune: unix socket ", dir,
                                        "/s.sock: GET /api/v1/status: 404 not_found: no resource "
                                        "at /api/v1/status\n"));
  }
  EXPECT_EQ(*asked, (std::vector<std::string>{"/api/v1/history/series"}));
}

}  // namespace
}  // namespace nictune::cli
