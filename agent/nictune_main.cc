// SPDX-License-Identifier: Apache-2.0
// nictune: the command-line client of nictuned (docs/cli.md). It talks to the agent over its
// root-only unix socket, or over HTTP with --url.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/cli/agent_url.h"
#include "agent/cli/cli_args.h"
#include "agent/cli/exit_code.h"
#include "agent/cli/line_wrapping_buffer.h"
#include "agent/cli/run_command.h"
#include "agent/cli/tcp_agent_client.h"
#include "agent/cli/terminal_width.h"
#include "agent/cli/unix_socket_agent_client.h"
#include "agent/http/bearer_token.h"

namespace nictune::cli {
namespace {

// Waits between `top` frames in sigtimedwait, so that Ctrl-C (SIGINT) or SIGTERM ends the view
// with exit 0 instead of killing the process mid-line. Both are blocked for the process's life.
class SignalPacer : public Pacer {
 public:
  SignalPacer() {
    sigemptyset(&stop_signals_);
    sigaddset(&stop_signals_, SIGINT);
    sigaddset(&stop_signals_, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop_signals_, nullptr);
  }

  absl::Time Now() override { return absl::Now(); }

  bool Sleep(absl::Duration duration) override {
    const absl::Time until = absl::Now() + duration;
    for (;;) {
      const absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) return true;
      const timespec wait = absl::ToTimespec(left);
      const int sig = sigtimedwait(&stop_signals_, nullptr, &wait);
      if (sig == SIGINT || sig == SIGTERM) return false;
      // -1: EAGAIN (the time passed) or EINTR (another signal): check the clock again.
    }
  }

 private:
  sigset_t stop_signals_;
};

class PlainPacer : public Pacer {
 public:
  absl::Time Now() override { return absl::Now(); }
  bool Sleep(absl::Duration duration) override {
    absl::SleepFor(duration);
    return true;
  }
};

int Main(const std::vector<std::string>& args) {
  LineWrappingBuffer wrapped_err(std::cerr, TerminalWidth(STDERR_FILENO, std::getenv("COLUMNS")));
  std::ostream err(&wrapped_err);
  absl::StatusOr<CliArgs> parsed = ParseCliArgs(args);
  if (!parsed.ok()) {
    // One line and where to look, not the whole usage: the error stays on screen.
    err << parsed.status().message() << "\n(nictune help lists the commands and options)\n";
    return ToInt(ExitCode::kUsage);
  }
  std::unique_ptr<AgentClient> client;
  if (parsed->url) {
    absl::StatusOr<AgentUrl> url = ParseAgentUrl(*parsed->url);
    if (!url.ok()) {
      err << "nictune: " << url.status().message() << "\n";
      return ToInt(ExitCode::kUsage);
    }
    std::optional<std::string> token;
    if (parsed->token_file) {
      absl::StatusOr<std::string> read = http::ReadTokenFile(*parsed->token_file);
      if (!read.ok()) {
        err << "nictune: --token_file: " << read.status().message() << "\n";
        return ToInt(ExitCode::kUsage);
      }
      token = *std::move(read);
    }
    client = std::make_unique<TcpAgentClient>(*parsed->url, *std::move(url), std::move(token));
  } else {
    client = std::make_unique<UnixSocketAgentClient>(parsed->socket_path);
  }
  const Terminal terminal{.out = std::cout,
                          .err = err,
                          .is_tty = isatty(STDOUT_FILENO) == 1,
                          .width = TerminalWidth(STDOUT_FILENO, std::getenv("COLUMNS"))};
  if (std::holds_alternative<TopCommand>(parsed->command)) {
    SignalPacer pacer;
    return RunCli(*parsed, *client, pacer, terminal);
  }
  PlainPacer pacer;
  return RunCli(*parsed, *client, pacer, terminal);
}

}  // namespace
}  // namespace nictune::cli

int main(int argc, char** argv) {
  return nictune::cli::Main(std::vector<std::string>(argv + 1, argv + argc));
}
