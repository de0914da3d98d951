// SPDX-License-Identifier: Apache-2.0
// Names the kernel hands out (network devices, irq actions, anything a driver or a user chose) are
// bytes, not text: Linux allows any byte in a device name except '/', NUL and whitespace. The
// agent carries each such name as kernel-name text from the moment it is read, so that JSON,
// /metrics label values, the store and the log only ever see valid UTF-8, and turns it back into
// bytes only where it talks to the kernel by name (a sysfs path, a netlink attribute).
//
// The text is the name itself when the name is printable UTF-8 without a backslash (every name a
// distribution creates). Otherwise a backslash becomes "\\" and each byte that is not part of a
// printable UTF-8 character becomes "\xHH" (lower-case hex). Because a backslash in the text
// always starts an escape, two different names never share a text, and the bytes come back
// exactly.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace nictune::driver {

std::string KernelNameText(absl::string_view bytes);

// The bytes behind KernelNameText's text. A backslash that starts no escape ("\q", a "\x" without
// two hex digits) stands for itself, so that a name written by hand without escapes still reads
// as it looks.
std::string KernelNameBytes(absl::string_view text);

// True when `text` is valid UTF-8 (any code point, control characters included).
bool IsValidUtf8(absl::string_view text);

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD: the last
// guard of a whole output (a scrape, a log line), where escaping would change its syntax.
std::string ReplaceInvalidUtf8(absl::string_view text);

}  // namespace nictune::driver
