// SPDX-License-Identifier: Apache-2.0
// Logging to stderr with the syslog priority prefixes journald understands ("<3>" error ...).
// The Debian Abseil has no absl/log; this is all the daemon needs.
#pragma once

#include <string_view>

namespace nictune::agent {

enum class LogLevel { kError = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

void Log(LogLevel level, std::string_view message);

inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }
inline void LogWarning(std::string_view m) { Log(LogLevel::kWarning, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }

}  // namespace nictune::agent
