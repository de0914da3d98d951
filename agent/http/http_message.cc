// SPDX-License-Identifier: Apache-2.0
#include "agent/http/http_message.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::http {
namespace {

constexpr size_t kMaxQuotedBytes = 60;  // of client text echoed in an error

// Written on every response after Content-Type and Content-Length; a parsed response keeps them
// out of its extra headers, so that writing it again does not repeat them.
constexpr std::array<std::pair<absl::string_view, absl::string_view>, 3> kAlwaysWrittenHeaders = {{
    {"Cache-Control", "no-store"},
    {"X-Content-Type-Options", "nosniff"},
    {"Connection", "close"},
}};
static_assert(kAlwaysWrittenHeaders.size() + 2 == kResponseFramingHeaderLines);

bool IsAlwaysWritten(absl::string_view lower_case_name) {
  return std::any_of(
      kAlwaysWrittenHeaders.begin(), kAlwaysWrittenHeaders.end(),
      [&](const auto& header) { return absl::EqualsIgnoreCase(header.first, lower_case_name); });
}

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text.substr(0, kMaxQuotedBytes)) {
    const auto byte = static_cast<unsigned char>(c);
    if (absl::ascii_isprint(byte)) {
      out.push_back(c);
    } else {
      absl::StrAppend(&out, "\\x", absl::Hex(byte, absl::kZeroPad2));
    }
  }
  if (text.size() > kMaxQuotedBytes) out += "...";
  return out + "\"";
}

// RFC 9110 token characters: method and header names.
bool IsToken(absl::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        absl::string_view("!#$%&'*+-.^_`|~").find(c) == absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

// Splits on LF, dropping one CR before it.
std::vector<absl::string_view> Lines(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (absl::string_view& line : lines) absl::ConsumeSuffix(&line, "\r");
  return lines;
}

absl::StatusOr<size_t> ParseContentLength(absl::string_view value) {
  size_t length = 0;
  const bool digits_only = std::all_of(value.begin(), value.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
  if (value.empty() || value.size() > 18 || !digits_only || !absl::SimpleAtoi(value, &length)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Content-Length ", Quote(value), ": expected one decimal number"));
  }
  return length;
}

// Header lines after the first line: name, colon, value with optional surrounding whitespace.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseHeaderLines(
    const std::vector<absl::string_view>& lines) {
  if (lines.size() > kMaxHeaderLines + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(lines.size() - 1, " header lines, at most ", kMaxHeaderLines));
  }
  std::vector<std::pair<std::string, std::string>> headers;
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      return absl::InvalidArgumentError(
          absl::StrCat("header line ", i, ": folded header lines are not accepted"));
    }
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos || !IsToken(line.substr(0, colon))) {
      return absl::InvalidArgumentError(
          absl::StrCat("header line ", i, " ", Quote(line), ": expected NAME: VALUE"));
    }
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    for (const char c : value) {
      const auto byte = static_cast<unsigned char>(c);
      if (absl::ascii_iscntrl(byte) && c != '\t') {
        return absl::InvalidArgumentError(
            absl::StrCat("header line ", i, " ", Quote(line), ": control byte in the value"));
      }
    }
    headers.emplace_back(absl::AsciiStrToLower(line.substr(0, colon)), std::string(value));
  }
  return headers;
}

}  // namespace

absl::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string SerializeResponse(const Response& response, bool include_body) {
  std::string out = absl::StrCat("HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status),
                                 "\r\nContent-Type: ", response.content_type,
                                 "\r\nContent-Length: ", response.body.size(), "\r\n");
  for (const auto& [name, value] : kAlwaysWrittenHeaders)
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  for (const auto& [name, value] : response.headers)
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  out += "\r\n";
  if (include_body) out += response.body;
  return out;
}

std::string SerializeRequest(
    absl::string_view method, absl::string_view target, absl::string_view body,
    const std::vector<std::pair<std::string, std::string>>& extra_headers) {
  std::string out = absl::StrCat(method, " ", target,
                                 " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                                 "Content-Length: ",
                                 body.size(), "\r\n");
  if (!body.empty()) out += "Content-Type: application/json\r\n";
  for (const auto& [name, value] : extra_headers) absl::StrAppend(&out, name, ": ", value, "\r\n");
  absl::StrAppend(&out, "\r\n", body);
  return out;
}

absl::StatusOr<Response> ParseResponse(absl::string_view text) {
  const size_t head_end = text.find("\r\n\r\n");
  if (head_end == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("response of ", text.size(), " bytes: no blank line ends its head"));
  }
  const std::vector<absl::string_view> lines = Lines(text.substr(0, head_end));
  const std::vector<absl::string_view> status_line =
      absl::StrSplit(lines[0], absl::MaxSplits(' ', 2));
  Response out;
  out.content_type.clear();
  if (status_line.size() < 2 || !absl::StartsWith(status_line[0], "HTTP/1.") ||
      status_line[1].size() != 3 || !absl::SimpleAtoi(status_line[1], &out.status) ||
      out.status < 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("response status line ", Quote(lines[0]), ": expected HTTP/1.1 CODE REASON"));
  }
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> headers =
      ParseHeaderLines(lines);
  if (!headers.ok()) return headers.status();
  std::optional<size_t> length;
  for (auto& [name, value] : *headers) {
    if (name == "content-type") {
      out.content_type = value;
      continue;
    }
    if (name == "content-length") {
      absl::StatusOr<size_t> parsed = ParseContentLength(value);
      if (!parsed.ok()) return parsed.status();
      // Two lengths that disagree leave the body's end unknown (RFC 9112, section 6.3).
      if (length.has_value() && *length != *parsed) {
        return absl::InvalidArgumentError(absl::StrCat("response head: Content-Length says both ",
                                                       *length, " and ", *parsed, " bytes"));
      }
      length = *parsed;
      continue;
    }
    if (IsAlwaysWritten(name)) continue;
    out.headers.emplace_back(std::move(name), std::move(value));
  }
  const absl::string_view body = text.substr(head_end + 4);
  if (length.has_value() && body.size() != *length) {
    return absl::InvalidArgumentError(
        absl::StrCat("response body: Content-Length says ", *length, " bytes, got ", body.size()));
  }
  out.body = std::string(body);
  return out;
}

}  // namespace nictune::http
