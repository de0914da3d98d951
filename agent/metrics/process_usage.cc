// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/process_usage.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/stat.h"
#include "driver/errno_text.h"

namespace nictune::metrics {
namespace {

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

// "size resident shared text lib data dt", in pages: the first two as bytes.
absl::Status ReadStatm(ProcessUsage& usage) {
  constexpr const char* kStatm = "/proc/self/statm";
  absl::StatusOr<std::string> statm = procfs::ReadFile(kStatm);
  if (!statm.ok()) return statm.status();
  const std::vector<absl::string_view> fields =
      absl::StrSplit(*statm, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[0], &size_pages) ||
      !absl::SimpleAtoi(fields[1], &resident_pages)) {
    return absl::DataLossError(
        absl::StrCat(kStatm, ": expected at least 2 numeric fields, got \"", *statm, "\""));
  }
  const auto page_size = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  usage.virtual_bytes = size_pages * page_size;
  usage.resident_bytes = resident_pages * page_size;
  return absl::OkStatus();
}

absl::Status ReadDescriptors(ProcessUsage& usage) {
  std::error_code error;
  uint64_t open = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++open;
  }
  if (!error) usage.open_fds = open > 0 ? open - 1 : 0;  // less the directory's own descriptor
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    const int errno_value = errno;
    return absl::InternalError(
        absl::StrCat("getrlimit(RLIMIT_NOFILE): ", driver::ErrnoText(errno_value)));
  }
  usage.max_fds = static_cast<uint64_t>(limit.rlim_cur);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ProcessUsage> ReadProcessUsage() {
  rusage rusage_self{};
  if (getrusage(RUSAGE_SELF, &rusage_self) != 0) {
    const int error = errno;
    return absl::InternalError(absl::StrCat("getrusage(RUSAGE_SELF): ", driver::ErrnoText(error)));
  }
  ProcessUsage usage;
  usage.cpu_seconds = Seconds(rusage_self.ru_utime) + Seconds(rusage_self.ru_stime);
  if (absl::Status read = ReadStatm(usage); !read.ok()) return read;
  if (absl::Status read = ReadDescriptors(usage); !read.ok()) return read;
  return usage;
}

absl::StatusOr<double> ReadProcessStartTime() {
  constexpr const char* kSelfStat = "/proc/self/stat";
  constexpr const char* kStat = "/proc/stat";
  absl::StatusOr<std::string> self_stat = procfs::ReadFile(kSelfStat);
  if (!self_stat.ok()) return self_stat.status();
  // The command name may hold spaces and parentheses: fields count from after its last ')'.
  // There, the state is the first field and the start time (field 22 of the whole line) the 20th.
  const size_t name_end = self_stat->rfind(')');
  const std::vector<absl::string_view> fields =
      name_end == std::string::npos
          ? std::vector<absl::string_view>{}
          : absl::StrSplit(absl::string_view(*self_stat).substr(name_end + 1), ' ',
                           absl::SkipEmpty());
  uint64_t start_ticks = 0;
  if (fields.size() < 20 || !absl::SimpleAtoi(fields[19], &start_ticks)) {
    return absl::DataLossError(absl::StrCat(kSelfStat, ": no start time in \"", *self_stat, "\""));
  }
  absl::StatusOr<std::string> stat_text = procfs::ReadFile(kStat);
  if (!stat_text.ok()) return stat_text.status();
  absl::StatusOr<procfs::ProcStat> stat = procfs::ParseProcStat(*stat_text, kStat);
  if (!stat.ok()) return stat.status();
  if (stat->boot_time_seconds == 0) {
    return absl::DataLossError(absl::StrCat(kStat, ": no btime line"));
  }
  const auto ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(stat->boot_time_seconds) +
         static_cast<double>(start_ticks) / ticks_per_second;
}

}  // namespace nictune::metrics
