#include "agent/metrics/process_usage.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/procfs/read_file.h"
#include "driver/errno_text.h"

namespace nictune::metrics {
namespace {

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

}  // namespace

absl::StatusOr<ProcessUsage> ReadProcessUsage() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) {
    const int error = errno;
    return absl::InternalError(absl::StrCat("getrusage(RUSAGE_SELF): ", driver::ErrnoText(error)));
  }
  constexpr const char* kStatm = "/proc/self/statm";
  absl::StatusOr<std::string> statm = procfs::ReadFile(kStatm);
  if (!statm.ok()) return statm.status();
  // "size resident shared text lib data dt", in pages.
  const std::vector<absl::string_view> fields =
      absl::StrSplit(*statm, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  uint64_t resident_pages = 0;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[1], &resident_pages)) {
    return absl::DataLossError(
        absl::StrCat(kStatm, ": expected at least 2 numeric fields, got \"", *statm, "\""));
  }
  const long page_size = sysconf(_SC_PAGESIZE);
  return ProcessUsage{.cpu_seconds = Seconds(usage.ru_utime) + Seconds(usage.ru_stime),
                      .resident_bytes = resident_pages * static_cast<uint64_t>(page_size)};
}

}  // namespace nictune::metrics
