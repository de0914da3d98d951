// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/usage_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace nictune::cli {
namespace {

// Every line fits 80 columns: what a terminal shows without wrapping, and the width text is read
// at off one (agent/cli/terminal_width.h). deploy/man/help_to_man.py and the bash completion read
// this layout: a usage paragraph, "commands:" with each command's lines, "exit codes:".
constexpr absl::string_view kUsageLine =
    "usage: nictune [--socket=PATH | --url=URL [--token_file=F]] [--json] COMMAND\n";

constexpr absl::string_view kAbout =
    R"(Talks to the nictuned agent over its unix socket (default
/run/nictune/nictune.sock, root only) or over HTTP (--url=http://HOST:PORT;
mutating commands need --token_file with the agent's --api_token_file token).
--json prints the agent's JSON answer, pretty, for scripts. Options are
--name=value or --name value, before or after the command.
)";

constexpr absl::string_view kExitCodes =
    "exit codes: 0 ok, 1 the agent answered with an error, 2 usage (nothing was sent;\n"
    "whatif's numbers out of range too), 3 cannot reach the agent\n";

struct CommandHelp {
  absl::string_view name;
  absl::string_view lines;  // as printed under "commands:"
};

constexpr CommandHelp kCommands[] = {
    {"status", "  status              mode, version, uptime, sources, probes, store, sampling\n"},
    {"top",
     "  top [--interval=1s] [--count=N]\n"
     "                      live per-queue view (ints/s, packets/poll, budget spent,\n"
     "                      rx share, drops, CPU split) and socket fill; Ctrl-C stops\n"
     "                      (off a terminal: one view unless --count)\n"},
    {"recommend",
     "  recommend [--why | --as=ethtool | --as=sysctl | --as=tuned]\n"
     "                      current -> recommended per knob and target; --why: the\n"
     "                      formulas; --as: the changes as commands (ethtool -C,\n"
     "                      sysctl -w, ...), the host sysctls as a sysctl.d file, or a\n"
     "                      tuned profile; commands last until a reboot, the file and\n"
     "                      the profile stay\n"},
    {"whatif",
     "  whatif --rate_pps=R --truesize_bytes=T --rcvbuf_bytes=B [--drain_gap_us=G]\n"
     "         [--margin=M] [--rx_usecs=U] [--ring_size=N | --device=D]\n"
     "                      the tuner's interval and buffer for that socket, simulated\n"
     "                      (ring: N descriptors, or device D's as the agent reads it)\n"},
    {"apply",
     "  apply [--knob=K --target=T]\n"
     "                      apply the recommendations (or one) now (apply mode)\n"},
    {"rollback",
     "  rollback --change=ID | --knob=K --target=T\n"
     "                      put a changed knob back to its original value\n"},
    {"restore", "  restore             put every knob the agent changed back\n"},
    {"history",
     "  history --series=A[,B] [--since=-1h] [--until=now] [--step=10s]\n"
     "          [--label=KEY=VALUE]... [--sparkline]\n"
     "                      stored samples as a table, or a sparkline per series\n"
     "  history --list      the names of the stored series\n"},
    {"version",
     "  version (or --version)\n"
     "                      this CLI's version; `nictune status` gives the agent's\n"},
    {"help", "  help [COMMAND]      this text, or one command's part of it\n"},
};

}  // namespace

std::string UsageText() {
  std::string out = absl::StrCat(kUsageLine, "\n", kAbout, "\ncommands:\n");
  for (const CommandHelp& command : kCommands) absl::StrAppend(&out, command.lines);
  absl::StrAppend(&out, "\n", kExitCodes);
  return out;
}

std::optional<std::string> CommandUsageText(absl::string_view name) {
  for (const CommandHelp& command : kCommands) {
    if (command.name == name) return absl::StrCat(kUsageLine, "\n", command.lines);
  }
  return std::nullopt;
}

std::string CommandNames() {
  std::vector<absl::string_view> names;
  for (const CommandHelp& command : kCommands) names.push_back(command.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace nictune::cli
