// SPDX-License-Identifier: Apache-2.0
// Running helper programs from tests (`ip`, libbpf-tools): exit codes checked, stderr reported.
// Real code never shells out; tests may, to build their hosts and to compare with other tools.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

struct ProgramOutput {
  int exit_code = -1;  // the exit status, or 128 + signal when the program was killed
  std::string out;
  std::string err;
};

// Runs argv (argv[0] is looked up in PATH) to completion and returns what it printed.
absl::StatusOr<ProgramOutput> RunProgram(const std::vector<std::string>& argv);

// Runs argv and fails, naming the command, its exit code and its stderr, unless it exits 0.
absl::Status RunChecked(const std::vector<std::string>& argv);

// A program running in the background whose output can be watched while it runs. The destructor
// kills (SIGKILL) and reaps it if it is still running, so a failing test leaves nothing behind.
class BackgroundProgram {
 public:
  static absl::StatusOr<BackgroundProgram> Start(const std::vector<std::string>& argv);

  BackgroundProgram(BackgroundProgram&& other) noexcept;
  BackgroundProgram& operator=(BackgroundProgram&&) = delete;
  BackgroundProgram(const BackgroundProgram&) = delete;
  BackgroundProgram& operator=(const BackgroundProgram&) = delete;
  ~BackgroundProgram();

  // What the program has written to stdout so far.
  absl::StatusOr<std::string> OutputSoFar() const;

  // Waits until stdout contains `text`, the program exits, or `timeout` passes.
  absl::Status WaitForOutput(const std::string& text, absl::Duration timeout) const;

  // Sends `signal_number` (e.g. SIGINT to make a tracing tool print and exit).
  absl::Status Signal(int signal_number) const;

  // The program's process id while it runs (for /proc/PID), -1 once reaped.
  pid_t pid() const { return pid_; }

  // Waits for the program to exit (killing it after `timeout`) and returns its output.
  absl::StatusOr<ProgramOutput> Wait(absl::Duration timeout);

 private:
  BackgroundProgram(std::string command, pid_t pid, int out_fd, int err_fd)
      : command_(std::move(command)), pid_(pid), out_fd_(out_fd), err_fd_(err_fd) {}

  std::string command_;  // for error messages
  pid_t pid_ = -1;       // -1 once reaped
  int out_fd_ = -1;      // memfds the child writes to; read with pread, so the child's offset stays
  int err_fd_ = -1;
};

}  // namespace nictune::testing_support
