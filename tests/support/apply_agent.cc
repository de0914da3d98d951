// SPDX-License-Identifier: Apache-2.0
#include "tests/support/apply_agent.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/cli/exit_code.h"
#include "tests/support/build_paths.h"

namespace nictune::testing_support {
namespace {

constexpr char kResolvedLine[] = "change journal resolved";

const std::string& Nictuned() {
  static const std::string path = BinaryDir() + "/agent/nictuned";
  return path;
}

const std::string& Nictune() {
  static const std::string path = BinaryDir() + "/agent/nictune";
  return path;
}

}  // namespace

std::vector<std::string> ApplyAgentArgv(const EmulatedHost& host,
                                        const ApplyAgentOptions& options) {
  std::vector<std::string> argv = {
      // The agent logs to stderr; through the shell it lands in stdout, which the test watches.
      "/bin/sh",
      "-c",
      "exec \"$0\" \"$@\" 2>&1",
      Nictuned(),
      "--mode=apply",
      absl::StrCat("--emulated_nic=", host.options().device, "=", host.control_socket()),
      "--listen=" + options.listen,
      "--state_dir=" + options.state_dir,
      "--socket=" + options.state_dir + "/nictune.sock",
      absl::StrCat("--interval=", absl::FormatDuration(options.interval)),
      absl::StrCat("--window=", absl::FormatDuration(options.window)),
      absl::StrCat("--guard=", absl::FormatDuration(options.guard)),
      "--on_exit=restore"};
  argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
  return argv;
}

absl::StatusOr<BackgroundProgram> StartApplyAgent(const EmulatedHost& host,
                                                  const ApplyAgentOptions& options) {
  return BackgroundProgram::Start(ApplyAgentArgv(host, options));
}

std::string AgentLog(const BackgroundProgram& agent) {
  absl::StatusOr<std::string> output = agent.OutputSoFar();
  return output.ok() ? *output : output.status().ToString();
}

absl::StatusOr<std::string> WaitForJournalResolution(const BackgroundProgram& agent,
                                                     absl::Duration timeout) {
  if (absl::Status waited = agent.WaitForOutput(kResolvedLine, timeout); !waited.ok()) {
    return waited;
  }
  const std::string log = AgentLog(agent);
  const size_t at = log.find(kResolvedLine);
  if (at == std::string::npos) {
    return absl::DeadlineExceededError(
        absl::StrCat("nictuned never logged \"", kResolvedLine, "\"; its log:\n", log));
  }
  return log.substr(at, log.find('\n', at) - at);
}

absl::StatusOr<ProgramOutput> RunNictuneCli(const std::string& state_dir,
                                            const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Nictune(), "--socket=" + state_dir + "/nictune.sock"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv);
}

absl::StatusOr<ProgramOutput> RestoreThroughCli(const std::string& state_dir,
                                                const std::vector<std::string>& extra_args,
                                                absl::Duration timeout) {
  std::vector<std::string> args = extra_args;
  args.push_back("restore");
  const absl::Time until = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<ProgramOutput> output = RunNictuneCli(state_dir, args);
    if (!output.ok() || output->exit_code != cli::ToInt(cli::ExitCode::kUnreachable) ||
        absl::Now() >= until) {
      return output;
    }
    absl::SleepFor(absl::Milliseconds(200));
  }
}

}  // namespace nictune::testing_support
