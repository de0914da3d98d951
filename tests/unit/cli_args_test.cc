// SPDX-License-Identifier: Apache-2.0
// The nictune command line: what parses, what is a usage error and how it is worded, and the HTTP
// request each command sends.
#include "agent/cli/cli_args.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "agent/cli/agent_request.h"
#include "agent/cli/agent_url.h"
#include "agent/cli/usage_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

CliArgs ParseOk(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : CliArgs{};
}

std::string ParseError(const std::vector<std::string>& args) {
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

AgentRequest RequestOk(const std::vector<std::string>& args) {
  absl::StatusOr<AgentRequest> request = RequestFor(ParseOk(args).command, kNow);
  EXPECT_TRUE(request.ok()) << request.status();
  return request.ok() ? *request : AgentRequest{};
}

TEST(CliArgsTest, GlobalOptionsGoBeforeOrAfterTheCommand) {
  const CliArgs before = ParseOk({"--socket=/tmp/a.sock", "--json", "status"});
  EXPECT_EQ(before.socket_path, "/tmp/a.sock");
  EXPECT_TRUE(before.json);
  EXPECT_TRUE(std::holds_alternative<StatusCommand>(before.command));
  const CliArgs after = ParseOk({"status", "--json=false", "--url=http://127.0.0.1:9877"});
  EXPECT_FALSE(after.json);
  EXPECT_EQ(after.url, "http://127.0.0.1:9877");
  EXPECT_EQ(ParseOk({"status"}).socket_path, "/run/nictune/nictune.sock");
}

TEST(CliArgsTest, UsageErrorsNameTheOption) {
  EXPECT_THAT(ParseError({}), HasSubstr("no command given"));
  EXPECT_THAT(ParseError({"stauts"}), HasSubstr("unknown command \"stauts\""));
  EXPECT_THAT(ParseError({"status", "extra"}), HasSubstr("unexpected argument \"extra\""));
  EXPECT_THAT(ParseError({"status", "--why"}), HasSubstr("nictune status: unknown option --why"));
  EXPECT_THAT(ParseError({"--socket=/a", "--url=http://h:1", "status"}),
              HasSubstr("--socket or --url, not both"));
  EXPECT_THAT(ParseError({"--token_file=/t", "status"}), HasSubstr("--token_file goes with --url"));
  EXPECT_THAT(ParseError({"top", "--count=0"}),
              HasSubstr("nictune top --count: \"0\" is not an integer in 1..1000000"));
  EXPECT_THAT(ParseError({"top", "--interval=fast"}), HasSubstr("nictune top --interval"));
  EXPECT_THAT(ParseError({"top", "--count=2", "--count=3"}), HasSubstr("given more than once"));
  EXPECT_THAT(ParseError({"recommend", "--why=maybe"}), HasSubstr("is not true or false"));
  EXPECT_THAT(ParseError({"history", "--series="}), HasSubstr("--series: needs a value"));
}

TEST(CliArgsTest, HelpNeedsNoCommand) {
  EXPECT_TRUE(std::holds_alternative<HelpCommand>(ParseOk({"--help"}).command));
  EXPECT_TRUE(std::holds_alternative<HelpCommand>(ParseOk({"whatif", "-h"}).command));
  EXPECT_THAT(UsageText(), HasSubstr("exit codes: 0 ok, 1 the agent answered with an error, 2 "
                                     "usage (nothing was sent;\nwhatif's numbers out of range "
                                     "too), 3 cannot reach the agent"));
}

// `help COMMAND` and `COMMAND --help` for every command: that command's part of the usage.
TEST(CliArgsTest, EveryCommandHasItsOwnHelp) {
  for (absl::string_view name : absl::StrSplit(CommandNames(), ", ")) {
    const std::string command(name);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"help", command}, std::vector<std::string>{command, "--help"}}) {
      const CliArgs parsed = ParseOk(args);
      const auto* help = std::get_if<HelpCommand>(&parsed.command);
      ASSERT_NE(help, nullptr) << args[0] << " " << args[1];
      // `help --help` is help itself: the whole text.
      if (args == std::vector<std::string>{"help", "--help"}) continue;
      EXPECT_EQ(help->command, command) << args[0] << " " << args[1];
    }
    const std::optional<std::string> text = CommandUsageText(command);
    ASSERT_TRUE(text.has_value()) << command;
    EXPECT_THAT(*text, ::testing::ContainsRegex("\n  " + command + "( |\n)")) << *text;
  }
}

TEST(CliArgsTest, HistoryListAsksForTheSeriesNames) {
  const AgentRequest list = RequestOk({"history", "--list"});
  EXPECT_EQ(list.method, "GET");
  EXPECT_EQ(list.target, "/api/v1/history/series");
}

TEST(CliArgsTest, VersionNeedsNoCommandAndHelpWins) {
  EXPECT_TRUE(std::holds_alternative<VersionCommand>(ParseOk({"--version"}).command));
  EXPECT_TRUE(std::holds_alternative<VersionCommand>(ParseOk({"status", "--version"}).command));
  EXPECT_TRUE(std::holds_alternative<VersionCommand>(ParseOk({"version"}).command));
  EXPECT_TRUE(std::holds_alternative<HelpCommand>(ParseOk({"--version", "--help"}).command));
  EXPECT_THAT(ParseError({"--version=yes"}), HasSubstr("is not true or false"));
  EXPECT_THAT(UsageText(), HasSubstr("version (or --version)"));
}

TEST(CliArgsTest, HelpTakesACommandAndACommandTakesHelp) {
  EXPECT_EQ(std::get<HelpCommand>(ParseOk({"help"}).command).command, std::nullopt);
  EXPECT_EQ(std::get<HelpCommand>(ParseOk({"help", "whatif"}).command).command, "whatif");
  EXPECT_EQ(std::get<HelpCommand>(ParseOk({"top", "--help"}).command).command, "top");
  EXPECT_THAT(ParseError({"help", "whatever"}),
              HasSubstr("nictune help: unknown command \"whatever\" (status, top,"));
  const std::optional<std::string> whatif = CommandUsageText("whatif");
  ASSERT_TRUE(whatif.has_value());
  EXPECT_THAT(*whatif, HasSubstr("whatif --rate_pps=R"));
  EXPECT_THAT(*whatif, ::testing::Not(HasSubstr("history")));
  EXPECT_EQ(CommandUsageText("whatever"), std::nullopt);
}

TEST(CliArgsTest, AnOptionTakesItsValueAfterEqualsOrAsTheNextWord) {
  const auto spaced = std::get<TopCommand>(
      ParseOk({"--socket", "/tmp/s.sock", "top", "--interval", "250ms", "--count", "2"}).command);
  EXPECT_EQ(spaced.interval, absl::Milliseconds(250));
  EXPECT_EQ(spaced.count, 2);
  EXPECT_EQ(ParseOk({"--socket", "/tmp/s.sock", "status"}).socket_path, "/tmp/s.sock");
  // A switch never takes the next word: here it is the command.
  const CliArgs json = ParseOk({"--json", "status"});
  EXPECT_TRUE(json.json);
  EXPECT_TRUE(std::holds_alternative<StatusCommand>(json.command));
  EXPECT_TRUE(std::get<RecommendCommand>(ParseOk({"recommend", "--why", "--json"}).command).why);
  // A word after an option that starts with -- is the next option, not its value.
  EXPECT_THAT(ParseError({"top", "--interval", "--count=2"}), HasSubstr("--interval: needs a value"));
  const auto history = std::get<HistoryCommand>(
      ParseOk({"history", "--series", "a,b", "--since", "-1h"}).command);
  EXPECT_EQ(history.series, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(history.since, "-1h");
}

// A switch's value may be spaced too: true and false are never a command or an argument.
TEST(CliArgsTest, ASwitchTakesTrueOrFalseAsTheNextWord) {
  const CliArgs off = ParseOk({"--json", "false", "status"});
  EXPECT_FALSE(off.json);
  EXPECT_TRUE(std::holds_alternative<StatusCommand>(off.command));
  EXPECT_TRUE(ParseOk({"--json", "true", "status"}).json);
  EXPECT_FALSE(std::get<RecommendCommand>(ParseOk({"recommend", "--why", "false"}).command).why);
  EXPECT_TRUE(std::get<RecommendCommand>(ParseOk({"recommend", "--why", "true"}).command).why);
}

// The mistake named is the one made: an unknown option before no command is that option, and a
// missing value of a global option reads as one phrase.
TEST(CliArgsTest, UsageErrorsWithoutACommandNameTheOption) {
  EXPECT_EQ(ParseError({"--bogus"}), "nictune: unknown option --bogus");
  EXPECT_EQ(ParseError({"--socket"}), "nictune --socket: needs a value (--socket=VALUE)");
  EXPECT_THAT(ParseError({"recommend", "--as=tuned", "--json"}), HasSubstr("--json or --as"));
}

TEST(CliArgsTest, RecommendAsEthtoolSysctlOrTuned) {
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend"}).command).format,
            RecommendFormat::kTable);
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend", "--as=shell"}).command).format,
            RecommendFormat::kShell);
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend", "--as", "sysctl.d"}).command).format,
            RecommendFormat::kSysctlConf);
  EXPECT_THAT(ParseError({"recommend", "--as=shell", "--why"}), HasSubstr("not both"));
  EXPECT_THAT(ParseError({"history", "--list", "--since=-1h"}), HasSubstr("takes no other option"));
  EXPECT_THAT(ParseError({"--jsn", "status"}), HasSubstr("unknown option --jsn"));
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend", "--as=ethtool"}).command).format,
            RecommendFormat::kShell);
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend", "--as=sysctl"}).command).format,
            RecommendFormat::kSysctlConf);
  EXPECT_EQ(std::get<RecommendCommand>(ParseOk({"recommend", "--as", "tuned"}).command).format,
            RecommendFormat::kTunedProfile);
  EXPECT_THAT(ParseError({"recommend", "--as=ansible"}),
              HasSubstr("--as: \"ansible\" is not ethtool, sysctl or tuned"));
}

TEST(CliArgsTest, TopDefaultsToOneSecondUntilStopped) {
  const auto top = std::get<TopCommand>(ParseOk({"top"}).command);
  EXPECT_EQ(top.interval, absl::Seconds(1));
  EXPECT_FALSE(top.count.has_value());
  const auto two = std::get<TopCommand>(ParseOk({"top", "--interval=250ms", "--count=2"}).command);
  EXPECT_EQ(two.interval, absl::Milliseconds(250));
  EXPECT_EQ(two.count, 2);
  EXPECT_EQ(RequestOk({"top"}).target, "/api/v1/snapshot");
}

TEST(CliArgsTest, WhatifNeedsItsThreeInputsAndSendsTheOptionalOnesOnlyWhenGiven) {
  EXPECT_THAT(ParseError({"whatif", "--rate_pps=1"}),
              HasSubstr("missing --truesize_bytes, --rcvbuf_bytes"));
  EXPECT_THAT(ParseError({"whatif", "--rate_pps=fast", "--truesize_bytes=1", "--rcvbuf_bytes=1"}),
              HasSubstr("--rate_pps: \"fast\" is not a number"));
  EXPECT_THAT(ParseError({"whatif", "--rate_pps=1", "--truesize_bytes=2994.5", "--rcvbuf_bytes=1"}),
              HasSubstr("--truesize_bytes: \"2994.5\" is not an integer"));

  const AgentRequest seed = RequestOk({"whatif", "--rate_pps=812744", "--truesize_bytes=2994",
                                       "--rcvbuf_bytes=212992", "--margin=0"});
  EXPECT_EQ(seed.method, "POST");
  EXPECT_EQ(seed.target, "/api/v1/whatif");
  EXPECT_EQ(Json::parse(seed.body), (Json{{"rate_pps", 812744.0},
                                          {"truesize_bytes", 2994},
                                          {"rcvbuf_bytes", 212992},
                                          {"margin", 0.0}}));
  const AgentRequest all =
      RequestOk({"whatif", "--rate_pps=1e5", "--truesize_bytes=768", "--rcvbuf_bytes=65536",
                 "--drain_gap_us=20", "--rx_usecs=50"});
  const Json body = Json::parse(all.body);
  EXPECT_EQ(body["drain_gap_us"], 20);
  EXPECT_EQ(body["rx_usecs"], 50);
  EXPECT_FALSE(body.contains("margin"));
  EXPECT_FALSE(body.contains("ring_size"));
  const AgentRequest ring = RequestOk({"whatif", "--rate_pps=1e5", "--truesize_bytes=768",
                                       "--rcvbuf_bytes=65536", "--ring_size=1024"});
  EXPECT_EQ(Json::parse(ring.body)["ring_size"], 1024);
  EXPECT_THAT(ParseError({"whatif", "--rate_pps=1", "--truesize_bytes=1", "--rcvbuf_bytes=1",
                          "--ring_size=512", "--device=eth1"}),
              HasSubstr("--ring_size and --device both give the ring; pass one"));
}

TEST(CliArgsTest, ApplyRollbackRestoreBodies) {
  EXPECT_EQ(Json::parse(RequestOk({"apply"}).body), Json::object());
  const AgentRequest one = RequestOk({"apply", "--knob=rx_usecs", "--target=eth0 rx 0"});
  EXPECT_EQ(one.target, "/api/v1/apply");
  EXPECT_EQ(Json::parse(one.body), (Json{{"knob", "rx_usecs"}, {"target", "eth0 rx 0"}}));
  EXPECT_THAT(ParseError({"apply", "--knob=rx_usecs"}), HasSubstr("both --knob and --target"));

  EXPECT_EQ(Json::parse(RequestOk({"rollback", "--change=7"}).body), (Json{{"change_id", 7}}));
  EXPECT_EQ(Json::parse(RequestOk({"rollback", "--knob=netdev_budget", "--target=host"}).body),
            (Json{{"knob", "netdev_budget"}, {"target", "host"}}));
  EXPECT_THAT(ParseError({"rollback"}),
              HasSubstr("either --change=ID or both --knob and --target"));
  EXPECT_THAT(ParseError({"rollback", "--change=7", "--knob=a", "--target=b"}),
              HasSubstr("either --change=ID"));
  EXPECT_THAT(ParseError({"rollback", "--knob=a"}), HasSubstr("either --change=ID"));

  const AgentRequest restore = RequestOk({"restore"});
  EXPECT_EQ(restore.method, "POST");
  EXPECT_EQ(restore.target, "/api/v1/restore");
}

TEST(CliArgsTest, HistoryResolvesRelativeTimesAndEncodesLabels) {
  const AgentRequest request =
      RequestOk({"history", "--series=nictune_softnet_processed_total,b", "--since=-1h",
                 "--until=now", "--step=1m", "--label=device=eth0", "--label=cpu=1"});
  EXPECT_EQ(request.method, "GET");
  EXPECT_EQ(request.target,
            "/api/v1/history?series=nictune_softnet_processed_total%2Cb&since=1799996400.000&"
            "until=1800000000.000&step=1m&label=device%3Deth0&label=cpu%3D1");
  // Absolute times go to the agent as given; it parses RFC 3339 and Unix seconds.
  EXPECT_THAT(RequestOk({"history", "--series=a", "--since=2026-01-02T03:04:05Z"}).target,
              HasSubstr("since=2026-01-02T03%3A04%3A05Z"));
  absl::StatusOr<AgentRequest> bad =
      RequestFor(ParseOk({"history", "--series=a", "--since=-soon"}).command, kNow);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("--since=-soon: expected now, -DURATION"));
  // An absolute time the agent would refuse is a usage error here, before any round trip.
  absl::StatusOr<AgentRequest> unparsable =
      RequestFor(ParseOk({"history", "--series=a", "--until=yesterday"}).command, kNow);
  ASSERT_FALSE(unparsable.ok());
  EXPECT_THAT(unparsable.status().message(),
              HasSubstr("--until=yesterday: expected now, -DURATION"));
  EXPECT_THAT(ParseError({"history"}), HasSubstr("missing --series"));
  EXPECT_THAT(ParseError({"history", "--series=a", "--label=eth0"}), HasSubstr("KEY=VALUE"));
}

TEST(CliArgsTest, Urls) {
  absl::StatusOr<AgentUrl> v4 = ParseAgentUrl("http://127.0.0.1:9877/");
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, "9877");
  absl::StatusOr<AgentUrl> v6 = ParseAgentUrl("http://[::1]:80");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_THAT(ParseAgentUrl("https://h:1").status().message(), HasSubstr("https is not spoken"));
  EXPECT_THAT(ParseAgentUrl("http://h").status().message(), HasSubstr("no :PORT"));
  EXPECT_THAT(ParseAgentUrl("http://h:0").status().message(), HasSubstr("is not 1..65535"));
  EXPECT_THAT(ParseAgentUrl("http://h:1/api").status().message(), HasSubstr("without a path"));
}

}  // namespace
}  // namespace nictune::cli
