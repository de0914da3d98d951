// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/text_scan.h"

#include <charconv>
#include <system_error>

namespace nictune::procfs {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

template <typename Number>
std::optional<Number> ParseWhole(std::string_view token, int base) {
  if (token.empty()) return std::nullopt;
  // from_chars accepts a leading '-' for unsigned types only to reject it later; a '+' never.
  if (token.front() == '+') return std::nullopt;
  Number value{};
  const char* end = token.data() + token.size();
  const auto [stop, error] = std::from_chars(token.data(), end, value, base);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

bool LineReader::Next(std::string_view& line) {
  if (rest_.empty()) return false;
  const size_t newline = rest_.find('\n');
  if (newline == std::string_view::npos) {
    line = rest_;
    rest_ = {};
  } else {
    line = rest_.substr(0, newline);
    rest_.remove_prefix(newline + 1);
  }
  ++line_number_;
  return true;
}

std::string_view NextToken(std::string_view& rest) {
  size_t begin = 0;
  while (begin < rest.size() && IsBlank(rest[begin])) ++begin;
  size_t end = begin;
  while (end < rest.size() && !IsBlank(rest[end])) ++end;
  const std::string_view token = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return token;
}

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<uint64_t> ParseUint64(std::string_view token) {
  return ParseWhole<uint64_t>(token, 10);
}

std::optional<int64_t> ParseInt64(std::string_view token) { return ParseWhole<int64_t>(token, 10); }

std::optional<uint32_t> ParseUint32(std::string_view token) {
  return ParseWhole<uint32_t>(token, 10);
}

std::optional<uint32_t> ParseHexUint32(std::string_view token) {
  return ParseWhole<uint32_t>(token, 16);
}

}  // namespace nictune::procfs
