// SPDX-License-Identifier: Apache-2.0
#include "agent/service/deadline_wait.h"

#include <cerrno>

namespace nictune::service {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

int64_t NsBetween(const timespec& from, const timespec& to) {
  return (to.tv_sec - from.tv_sec) * kNsPerSecond + (to.tv_nsec - from.tv_nsec);
}

}  // namespace

sigset_t BlockServiceSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

timespec MonotonicNow() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now;
}

std::optional<int> WaitUntil(const sigset_t& signals, const timespec& deadline) {
  while (true) {
    const int64_t left_ns = NsBetween(MonotonicNow(), deadline);
    if (left_ns <= 0) return std::nullopt;
    const timespec timeout{.tv_sec = left_ns / kNsPerSecond, .tv_nsec = left_ns % kNsPerSecond};
    const int sig = sigtimedwait(&signals, nullptr, &timeout);
    if (sig > 0) return sig;
    if (sig < 0 && errno != EAGAIN && errno != EINTR) return std::nullopt;
  }
}

timespec AddDuration(timespec t, absl::Duration d) {
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  t.tv_sec += ns / kNsPerSecond;
  t.tv_nsec += ns % kNsPerSecond;
  if (t.tv_nsec >= kNsPerSecond) {
    t.tv_sec += 1;
    t.tv_nsec -= kNsPerSecond;
  }
  return t;
}

bool Before(const timespec& a, const timespec& b) { return NsBetween(a, b) > 0; }

uint64_t AdvanceDeadline(timespec& deadline, const timespec& now, absl::Duration interval) {
  deadline = AddDuration(deadline, interval);
  const int64_t late_ns = NsBetween(deadline, now);
  if (late_ns <= 0) return 0;
  // The deadline `deadline` itself has passed too: skip to the first one still ahead.
  const int64_t interval_ns = absl::ToInt64Nanoseconds(interval);
  const int64_t skipped = late_ns / interval_ns + 1;
  deadline = AddDuration(deadline, interval * skipped);
  return static_cast<uint64_t>(skipped);
}

}  // namespace nictune::service
