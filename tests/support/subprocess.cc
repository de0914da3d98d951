// SPDX-License-Identifier: Apache-2.0
#include "tests/support/subprocess.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {
namespace {

absl::StatusOr<std::string> ReadWhole(int fd, const std::string& what) {
  std::string text;
  char buffer[8192];
  off_t offset = 0;
  while (true) {
    const ssize_t n = pread(fd, buffer, sizeof(buffer), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(absl::StrCat("reading the output of ", what), errno);
    }
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

absl::StatusOr<BackgroundProgram> BackgroundProgram::Start(const std::vector<std::string>& argv) {
  const std::string command = absl::StrJoin(argv, " ");
  if (argv.empty()) return absl::InvalidArgumentError("starting a program: empty command line");
  const int out_fd = memfd_create("stdout", MFD_CLOEXEC);
  const int err_fd = memfd_create("stderr", MFD_CLOEXEC);
  if (out_fd < 0 || err_fd < 0) {
    const int error_number = errno;
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return ErrnoError(absl::StrCat("memfd_create for `", command, "`"), error_number);
  }
  // Everything the child touches is prepared before fork: after fork only exec-safe calls.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  // The child dies with the test, so a test that crashed or ran out of time leaves no agent,
  // emulated NIC or flood running into the next one. PR_SET_PDEATHSIG follows the thread that
  // forks, not the process: only a child of the main thread, which lives as long as the test,
  // gets it (a helper thread's child would die with the helper).
  const pid_t parent = getpid();
  const bool dies_with_test = gettid() == parent;
  const pid_t pid = fork();
  if (pid < 0) {
    const int error_number = errno;
    close(out_fd);
    close(err_fd);
    return ErrnoError(absl::StrCat("fork for `", command, "`"), error_number);
  }
  if (pid == 0) {
    // getppid() after the prctl: the test may have died between the fork and it.
    if (dies_with_test && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)) {
      _exit(125);
    }
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) _exit(126);
    execvp(args[0], args.data());
    static constexpr char kExecFailed[] = "exec failed: program not found or not executable\n";
    [[maybe_unused]] const ssize_t ignored =
        write(STDERR_FILENO, kExecFailed, sizeof(kExecFailed) - 1);
    _exit(127);
  }
  return BackgroundProgram(command, pid, out_fd, err_fd);
}

BackgroundProgram::BackgroundProgram(BackgroundProgram&& other) noexcept
    : command_(std::move(other.command_)),
      pid_(std::exchange(other.pid_, -1)),
      out_fd_(std::exchange(other.out_fd_, -1)),
      err_fd_(std::exchange(other.err_fd_, -1)) {}

BackgroundProgram::~BackgroundProgram() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

absl::StatusOr<std::string> BackgroundProgram::OutputSoFar() const {
  return ReadWhole(out_fd_, absl::StrCat("`", command_, "`"));
}

absl::Status BackgroundProgram::WaitForOutput(const std::string& text,
                                              absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<std::string> out = OutputSoFar();
    if (!out.ok()) return out.status();
    if (out->find(text) != std::string::npos) return absl::OkStatus();
    if (pid_ <= 0 || waitpid(pid_, nullptr, WNOHANG | WNOWAIT) == pid_) {
      return absl::FailedPreconditionError(
          absl::StrCat("`", command_, "` exited before printing \"", text,
                       "\"; stderr: ", ReadWhole(err_fd_, command_).value_or("")));
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("`", command_, "` did not print \"", text,
                                                      "\" within ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
}

absl::Status BackgroundProgram::Signal(int signal_number) const {
  if (pid_ <= 0) return absl::FailedPreconditionError(absl::StrCat("`", command_, "` has exited"));
  if (kill(pid_, signal_number) != 0) {
    return ErrnoError(absl::StrCat("kill(", signal_number, ") `", command_, "`"), errno);
  }
  return absl::OkStatus();
}

absl::StatusOr<ProgramOutput> BackgroundProgram::Wait(absl::Duration timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError(absl::StrCat("`", command_, "` was reaped"));
  const absl::Time deadline = absl::Now() + timeout;
  int status = 0;
  bool killed = false;
  while (true) {
    const pid_t reaped = waitpid(pid_, &status, WNOHANG);
    if (reaped == pid_) break;
    if (reaped < 0 && errno != EINTR)
      return ErrnoError(absl::StrCat("waitpid `", command_, "`"), errno);
    if (!killed && absl::Now() > deadline) {
      kill(pid_, SIGKILL);
      killed = true;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  pid_ = -1;
  ProgramOutput output;
  output.exit_code = DecodeWaitStatus(status);
  absl::StatusOr<std::string> out = ReadWhole(out_fd_, command_);
  if (!out.ok()) return out.status();
  absl::StatusOr<std::string> err = ReadWhole(err_fd_, command_);
  if (!err.ok()) return err.status();
  output.out = *std::move(out);
  output.err = *std::move(err);
  if (killed) {
    return absl::DeadlineExceededError(absl::StrCat("`", command_, "` did not exit within ",
                                                    absl::FormatDuration(timeout),
                                                    " and was killed; stderr: ", output.err));
  }
  return output;
}

absl::StatusOr<ProgramOutput> RunProgram(const std::vector<std::string>& argv) {
  absl::StatusOr<BackgroundProgram> program = BackgroundProgram::Start(argv);
  if (!program.ok()) return program.status();
  return program->Wait(absl::Seconds(30));
}

absl::Status RunChecked(const std::vector<std::string>& argv) {
  absl::StatusOr<ProgramOutput> output = RunProgram(argv);
  if (!output.ok()) return output.status();
  if (output->exit_code != 0) {
    return absl::InternalError(absl::StrCat("`", absl::StrJoin(argv, " "), "` exited with ",
                                            output->exit_code, ": ",
                                            absl::StripTrailingAsciiWhitespace(output->err)));
  }
  return absl::OkStatus();
}

}  // namespace nictune::testing_support
