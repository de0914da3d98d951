// SPDX-License-Identifier: Apache-2.0
// The command line of `nictune`: global options, one command and its options, parsed strictly
// (an unknown, repeated or malformed option is a usage error naming it), so that nothing is sent
// to the agent for a command line that does not say exactly one thing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::cli {

inline constexpr const char* kDefaultSocket = "/run/nictune/nictune.sock";

struct StatusCommand {};
struct TopCommand {
  absl::Duration interval = absl::Seconds(1);
  std::optional<int64_t> count;  // frames to print; none: until Ctrl-C on a terminal, else one
};
// How `recommend` prints: the table, or the changes as shell commands or a sysctl.d file.
enum class RecommendFormat { kTable, kShell, kSysctlConf, kTunedProfile };
struct RecommendCommand {
  bool why = false;  // print each formula and its inputs
  RecommendFormat format = RecommendFormat::kTable;  // --as=ethtool|sysctl|tuned
};
struct WhatifCommand {
  double rate_pps = 0;
  int64_t truesize_bytes = 0;
  int64_t rcvbuf_bytes = 0;
  std::optional<int64_t> drain_gap_us;
  std::optional<double> margin;
  std::optional<int64_t> rx_usecs;
  std::optional<int64_t> ring_size;
  // A device the agent knows: its rx ring size is asked of the agent (GET /api/v1/snapshot) and
  // sent as ring_size. Not with ring_size.
  std::optional<std::string> device;
};
struct ApplyCommand {  // both or neither: one recommendation, or all of them
  std::optional<std::string> knob;
  std::optional<std::string> target;
};
struct RollbackCommand {  // exactly one of change_id and knob + target
  std::optional<int64_t> change_id;
  std::optional<std::string> knob;
  std::optional<std::string> target;
};
struct RestoreCommand {};
struct HistoryCommand {
  std::vector<std::string> series;   // from a comma-separated --series
  std::optional<std::string> since;  // passed to the agent as given ("-1h" is resolved here)
  std::optional<std::string> until;
  std::optional<std::string> step;
  std::vector<std::string> labels;  // "device=eth0", each one --label
  bool sparkline = false;
  bool list = false;  // --list: the names of the stored series instead
};
struct HelpCommand {
  std::optional<std::string> command;  // `help COMMAND` or `COMMAND --help`: that command's part
};
struct VersionCommand {};  // --version or `version`: printed without asking the agent

using Command =
    std::variant<StatusCommand, TopCommand, RecommendCommand, WhatifCommand, ApplyCommand,
                 RollbackCommand, RestoreCommand, HistoryCommand, HelpCommand,
                 VersionCommand>;

struct CliArgs {
  std::string socket_path = kDefaultSocket;
  std::optional<std::string> url;         // TCP instead of the unix socket
  std::optional<std::string> token_file;  // with --url: bearer token for mutating requests
  bool json = false;                      // print the server's JSON, pretty
  Command command;
};

// args excludes argv[0]. Global options may come before or after the command; options take the
// form --name=value or --name value (switches such as --json bare --name). InvalidArgument
// naming the option otherwise.
absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args);

}  // namespace nictune::cli
