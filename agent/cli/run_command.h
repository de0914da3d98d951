// SPDX-License-Identifier: Apache-2.0
// Runs one parsed command line against the agent and prints the answer: human text by default,
// the agent's JSON (pretty) with --json. Returns the process exit code (exit_code.h).
#pragma once

#include <ostream>

#include "absl/time/time.h"
#include "agent/cli/agent_client.h"
#include "agent/cli/cli_args.h"

namespace nictune::cli {

// The clock and the waits between `top` frames, so that tests run frames without sleeping.
class Pacer {
 public:
  virtual ~Pacer() = default;
  virtual absl::Time Now() = 0;
  // Waits `duration`; false when the user asked to stop (Ctrl-C) meanwhile.
  virtual bool Sleep(absl::Duration duration) = 0;
};

struct Terminal {
  std::ostream& out;
  std::ostream& err;
  bool is_tty = false;  // top redraws the screen in place (ANSI) only on a terminal
  // Columns the views fit: the terminal's, or 80 when stdout is not one (terminal_width.h).
  size_t width = 80;
};

int RunCli(const CliArgs& args, AgentClient& client, Pacer& pacer, Terminal terminal);

}  // namespace nictune::cli
