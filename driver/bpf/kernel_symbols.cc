// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/kernel_symbols.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace nictune::driver::bpf {
namespace {

constexpr const char* kKallsyms = "/proc/kallsyms";

// "ffffffff81ea9aa0 t skb_defer_free_flush\t[module]" -> address and name.
bool ParseLine(absl::string_view line, uint64_t& address, absl::string_view& name) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() < 3) return false;
  name = fields[2];
  return absl::SimpleHexAtoi(fields[0], &address);
}

}  // namespace

absl::StatusOr<std::string> ReadKallsyms() {
  std::ifstream file(kKallsyms);
  if (!file) {
    const int error_number = errno;
    return absl::UnavailableError(absl::StrFormat("%s: open: %s (errno %d)", kKallsyms,
                                                  std::strerror(error_number), error_number));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

absl::StatusOr<CodeRange> FindFunctionRange(absl::string_view kallsyms, absl::string_view name) {
  uint64_t start = 0;
  for (absl::string_view line : absl::StrSplit(kallsyms, '\n', absl::SkipEmpty())) {
    uint64_t address = 0;
    absl::string_view symbol;
    if (ParseLine(line, address, symbol) && symbol == name) {
      start = address;
      break;
    }
  }
  if (start == 0) {
    return absl::NotFoundError(absl::StrCat(kKallsyms, ": function ", name,
                                            ": not found or address hidden (kptr_restrict)"));
  }
  uint64_t end = std::numeric_limits<uint64_t>::max();
  for (absl::string_view line : absl::StrSplit(kallsyms, '\n', absl::SkipEmpty())) {
    uint64_t address = 0;
    absl::string_view symbol;
    if (ParseLine(line, address, symbol) && address > start && address < end) end = address;
  }
  if (end == std::numeric_limits<uint64_t>::max()) {
    return absl::NotFoundError(
        absl::StrCat(kKallsyms, ": function ", name, ": no following symbol to bound it"));
  }
  return CodeRange{.start = start, .end = end};
}

}  // namespace nictune::driver::bpf
