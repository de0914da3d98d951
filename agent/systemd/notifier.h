// SPDX-License-Identifier: Apache-2.0
// Talking to systemd (Type=notify): READY=1 once the agent has measured its first window,
// WATCHDOG=1 pings at half the watchdog timeout, a one-line STATUS=, RELOADING=1 around a SIGHUP
// reload and STOPPING=1 on the way out. Uses libsystemd's sd_notify, which does nothing when
// NOTIFY_SOCKET is unset (the agent started by hand).
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace nictune::systemd {

class Notifier {
 public:
  // Reads NOTIFY_SOCKET and WATCHDOG_USEC/WATCHDOG_PID from the environment, as started.
  Notifier();

  // Whether a notification socket was given (else every call is a successful no-op).
  bool enabled() const { return enabled_; }
  // How often to send WATCHDOG=1: half of WATCHDOG_USEC; nullopt when no watchdog is set.
  std::optional<absl::Duration> watchdog_ping_every() const { return watchdog_ping_every_; }

  absl::Status Ready();
  absl::Status Watchdog();
  // Newlines become spaces: STATUS= is one line.
  absl::Status Status(absl::string_view summary);
  // RELOADING=1 with MONOTONIC_USEC (systemd 253's notify-reload wants both); Ready() ends it.
  absl::Status Reloading();
  absl::Status Stopping();

 private:
  // The error names the message and the errno sd_notify returned.
  absl::Status Send(const std::string& message);

  bool enabled_ = false;
  std::optional<absl::Duration> watchdog_ping_every_;
};

}  // namespace nictune::systemd
