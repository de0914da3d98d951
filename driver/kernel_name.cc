// SPDX-License-Identifier: Apache-2.0
#include "driver/kernel_name.h"

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace nictune::driver {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// The length of the UTF-8 sequence starting at text[i] and its code point, or 0 when the bytes
// there are not one well-formed sequence (a stray continuation byte, an overlong form, a
// surrogate, a code point above U+10FFFF, or a sequence cut short).
size_t Utf8SequenceAt(absl::string_view text, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t lead = byte(0);
  size_t length = 0;
  uint32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2, minimum = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, minimum = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(k) & 0x3F);
  }
  const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (code_point < minimum || code_point > 0x10FFFF || surrogate) return 0;
  return length;
}

// C0 and C1 control characters and DEL are escaped, so that a name cannot move a terminal's
// cursor or end a log line.
bool Printable(uint32_t code_point) {
  return code_point >= 0x20 && code_point != 0x7F && !(code_point >= 0x80 && code_point < 0xA0);
}

void AppendHexEscape(std::string& out, uint8_t byte) {
  out += "\\x";
  out += kHexDigits[byte >> 4];
  out += kHexDigits[byte & 0x0F];
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string KernelNameText(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    uint32_t code_point = 0;
    const size_t length = Utf8SequenceAt(bytes, i, code_point);
    if (length == 1 && bytes[i] == '\\') {
      out += "\\\\";
    } else if (length > 0 && Printable(code_point)) {
      out.append(bytes.data() + i, length);
    } else {
      // One byte at a time: the rest of a broken sequence may start a good one.
      AppendHexEscape(out, static_cast<uint8_t>(bytes[i]));
      i += 1;
      continue;
    }
    i += length;
  }
  return out;
}

std::string KernelNameBytes(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
    } else if (text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (text[i + 1] == 'x' && i + 3 < text.size() && HexValue(text[i + 2]) >= 0 &&
               HexValue(text[i + 3]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 2]) * 16 + HexValue(text[i + 3]));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool IsValidUtf8(absl::string_view text) {
  for (size_t i = 0; i < text.size();) {
    uint32_t code_point = 0;
    const size_t length = Utf8SequenceAt(text, i, code_point);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string ReplaceInvalidUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t code_point = 0;
    const size_t length = Utf8SequenceAt(text, i, code_point);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      i += 1;
    } else {
      out.append(text.data() + i, length);
      i += length;
    }
  }
  return out;
}

}  // namespace nictune::driver
