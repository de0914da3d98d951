// SPDX-License-Identifier: Apache-2.0
#include "agent/systemd/notifier.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/errno_text.h"

namespace nictune::systemd {

Notifier::Notifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && socket[0] != '\0';
  uint64_t watchdog_usec = 0;
  if (sd_watchdog_enabled(0, &watchdog_usec) > 0 && watchdog_usec > 0) {
    watchdog_ping_every_ = absl::Microseconds(static_cast<int64_t>(watchdog_usec / 2));
  }
}

absl::Status Notifier::Send(const std::string& message) {
  if (!enabled_) return absl::OkStatus();
  const int sent = sd_notify(0, message.c_str());
  if (sent < 0) {
    return absl::UnavailableError(
        absl::StrCat("sd_notify \"", message, "\": ", driver::ErrnoText(-sent)));
  }
  return absl::OkStatus();
}

absl::Status Notifier::Ready() { return Send("READY=1"); }

absl::Status Notifier::Watchdog() { return Send("WATCHDOG=1"); }

absl::Status Notifier::Status(absl::string_view summary) {
  return Send(absl::StrCat("STATUS=", absl::StrReplaceAll(summary, {{"\n", " "}, {"\r", " "}})));
}

absl::Status Notifier::Reloading() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t usec = int64_t{now.tv_sec} * 1'000'000 + now.tv_nsec / 1000;
  return Send(absl::StrCat("RELOADING=1\nMONOTONIC_USEC=", usec));
}

absl::Status Notifier::Stopping() { return Send("STOPPING=1"); }

}  // namespace nictune::systemd
