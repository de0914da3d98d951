// SPDX-License-Identifier: Apache-2.0
#include "tests/support/exposition_samples.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::testing_support {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

// Reads `{a="x",b="y"}` from the front of `rest`; label values escape \\, \" and \n.
bool ConsumeLabels(absl::string_view& rest, std::map<std::string, std::string>& labels) {
  if (!absl::ConsumePrefix(&rest, "{")) return true;
  while (true) {
    rest = absl::StripLeadingAsciiWhitespace(rest);
    if (absl::ConsumePrefix(&rest, "}")) return true;
    size_t name_end = 0;
    while (name_end < rest.size() && IsNameChar(rest[name_end])) ++name_end;
    if (name_end == 0) return false;
    const std::string name(rest.substr(0, name_end));
    rest.remove_prefix(name_end);
    if (!absl::ConsumePrefix(&rest, "=\"")) return false;
    std::string value;
    bool closed = false;
    while (!rest.empty()) {
      const char c = rest.front();
      rest.remove_prefix(1);
      if (c == '"') {
        closed = true;
        break;
      }
      if (c != '\\') {
        value.push_back(c);
        continue;
      }
      if (rest.empty()) return false;
      const char escaped = rest.front();
      rest.remove_prefix(1);
      value.push_back(escaped == 'n' ? '\n' : escaped);
    }
    if (!closed) return false;
    labels[name] = std::move(value);
    absl::ConsumePrefix(&rest, ",");
  }
}

bool ParseValue(absl::string_view text, double& value) {
  if (text == "+Inf")
    value = std::numeric_limits<double>::infinity();
  else if (text == "-Inf")
    value = -std::numeric_limits<double>::infinity();
  else if (text == "NaN")
    value = std::nan("");
  else
    return absl::SimpleAtod(text, &value);
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ExposedSample>> ParseExposedSamples(absl::string_view exposition,
                                                               absl::string_view what) {
  std::vector<ExposedSample> samples;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    ExposedSample sample;
    absl::string_view rest = line;
    size_t name_end = 0;
    while (name_end < rest.size() && IsNameChar(rest[name_end])) ++name_end;
    sample.name = std::string(rest.substr(0, name_end));
    rest.remove_prefix(name_end);
    const bool labels_read = ConsumeLabels(rest, sample.labels);
    // The value, then an optional timestamp.
    const std::vector<absl::string_view> fields = absl::StrSplit(rest, ' ', absl::SkipWhitespace());
    if (sample.name.empty() || !labels_read || fields.empty() || fields.size() > 2 ||
        !ParseValue(fields[0], sample.value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " line ", line_number, ": expected 'name{labels} value', got '", line, "'"));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace nictune::testing_support
