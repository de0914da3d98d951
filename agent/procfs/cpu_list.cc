// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/cpu_list.h"

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {
namespace {

// Above the kernel's largest NR_CPUS (8192 with MAXSMP); a bound so that "0-4000000000" is an
// error rather than a 16 GB vector.
constexpr uint32_t kMaxCpuId = 65535;

std::string_view TrimSpace(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

absl::StatusOr<uint32_t> ParseCpu(std::string_view token, std::string_view element,
                                  std::string_view path) {
  const std::optional<uint32_t> cpu = ParseUint32(TrimSpace(token));
  if (!cpu.has_value() || *cpu > kMaxCpuId) {
    return ParseError(
        path, 1,
        absl::StrCat("\"", ToAbsl(element), "\" is not a CPU number or range (0-", kMaxCpuId, ")"));
  }
  return *cpu;
}

}  // namespace

// The result is sorted and without duplicates, whatever order the text lists them in.
absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view path) {
  std::string_view rest = TrimSpace(text);
  if (rest.empty()) return ParseError(path, 1, "empty CPU list");
  std::vector<bool> listed;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view element = TrimSpace(rest.substr(0, comma));
    const size_t dash = element.find('-');
    absl::StatusOr<uint32_t> first = ParseCpu(element.substr(0, dash), element, path);
    if (!first.ok()) return first.status();
    uint32_t last = *first;
    if (dash != std::string_view::npos) {
      absl::StatusOr<uint32_t> range_end = ParseCpu(element.substr(dash + 1), element, path);
      if (!range_end.ok()) return range_end.status();
      last = *range_end;
      if (last < *first) {
        return ParseError(path, 1, absl::StrCat("range \"", ToAbsl(element), "\" is descending"));
      }
    }
    if (listed.size() <= last) listed.resize(last + 1, false);
    for (uint32_t cpu = *first; cpu <= last; ++cpu) listed[cpu] = true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::vector<int> cpus;
  for (size_t cpu = 0; cpu < listed.size(); ++cpu) {
    if (listed[cpu]) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

}  // namespace nictune::procfs
