// SPDX-License-Identifier: Apache-2.0
#include "tests/support/metric_families.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::testing_support {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

}  // namespace

absl::StatusOr<MetricFamilies> ParseFamilyList(absl::string_view text, absl::string_view what) {
  MetricFamilies families;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " line ", line_number, ": expected 'name type', got '", line, "'"));
    }
    families[fields[0]] = fields[1];
  }
  return families;
}

MetricFamilies ExposedFamilies(absl::string_view exposition) {
  MetricFamilies families;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (!absl::ConsumePrefix(&line, "# TYPE ")) continue;
    const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() == 2) families[fields[0]] = fields[1];
  }
  return families;
}

std::set<std::string> MetricNamesIn(absl::string_view promql) {
  std::set<std::string> names;
  char quote = 0;
  for (size_t i = 0; i < promql.size(); ++i) {
    const char c = promql[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      quote = c;
      continue;
    }
    if (!IsNameChar(c) || (i > 0 && IsNameChar(promql[i - 1]))) continue;
    size_t end = i;
    while (end < promql.size() && IsNameChar(promql[end])) ++end;
    const absl::string_view word = promql.substr(i, end - i);
    if (absl::StartsWith(word, "nictune_") && !absl::StrContains(word, ':')) {
      names.insert(std::string(word));
    }
    i = end - 1;
  }
  return names;
}

std::optional<std::string> FamilyOf(const std::string& series, const MetricFamilies& families) {
  if (families.contains(series)) return series;
  for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
    absl::string_view family = series;
    if (!absl::ConsumeSuffix(&family, suffix)) continue;
    const auto it = families.find(std::string(family));
    if (it != families.end() && it->second == "histogram") return it->first;
  }
  return std::nullopt;
}

}  // namespace nictune::testing_support
