// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/snmp.h"

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {
namespace {

// "Udp:" -> "Udp"; empty when the token is not a section label.
std::string_view SectionOf(std::string_view token) {
  if (token.size() < 2 || token.back() != ':') return {};
  return token.substr(0, token.size() - 1);
}

}  // namespace

// Each section is two lines, "Udp: InDatagrams NoPorts ..." then "Udp: 26 0 ...". Counters are
// taken by name, so counters and sections that newer kernels add need no code.
absl::StatusOr<SnmpCounters> ParseSnmp(std::string_view text, std::string_view path) {
  SnmpCounters counters;
  LineReader lines(text);
  std::string_view names_line;
  while (lines.Next(names_line)) {
    const int names_line_number = lines.line_number();
    std::string_view names = names_line;
    const std::string_view section = SectionOf(NextToken(names));
    if (section.empty()) {
      return ParseError(path, names_line_number, "expected \"Section:\" followed by counter names");
    }
    std::string_view values_line;
    if (!lines.Next(values_line)) {
      return ParseError(path, names_line_number + 1,
                        absl::StrCat(ToAbsl(section), ": header line has no value line"));
    }
    std::string_view values = values_line;
    const std::string_view values_section = SectionOf(NextToken(values));
    if (values_section != section) {
      return ParseError(path, lines.line_number(),
                        absl::StrCat("expected the values of \"", ToAbsl(section), "\", got \"",
                                     ToAbsl(values_section), "\""));
    }
    auto [entry, inserted] = counters.try_emplace(std::string(section));
    if (!inserted) {
      return ParseError(path, names_line_number,
                        absl::StrCat(ToAbsl(section), ": section appears twice"));
    }
    std::map<std::string, int64_t>& section_counters = entry->second;
    int names_count = 0;
    int values_count = 0;
    for (std::string_view name = NextToken(names); !name.empty(); name = NextToken(names)) {
      ++names_count;
      const std::string_view token = NextToken(values);
      if (token.empty()) continue;  // counted below to report both totals
      ++values_count;
      const std::optional<int64_t> value = ParseInt64(token);
      if (!value.has_value()) {
        return ParseError(path, lines.line_number(),
                          absl::StrCat(ToAbsl(section), " ", ToAbsl(name), ": \"", ToAbsl(token),
                                       "\" is not an integer"));
      }
      if (!section_counters.emplace(std::string(name), *value).second) {
        return ParseError(
            path, names_line_number,
            absl::StrCat(ToAbsl(section), ": counter ", ToAbsl(name), " appears twice"));
      }
    }
    while (!NextToken(values).empty()) ++values_count;
    if (names_count == 0 || names_count != values_count) {
      return ParseError(path, lines.line_number(),
                        absl::StrCat(ToAbsl(section), ": ", names_count, " counter names but ",
                                     values_count, " values"));
    }
  }
  if (counters.empty()) return ParseError(path, 1, "empty, expected \"Section:\" line pairs");
  return counters;
}

}  // namespace nictune::procfs
