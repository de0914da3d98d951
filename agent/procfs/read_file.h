// Reading kernel text files whole, with errors that name the file, the operation and the errno.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// Reads a whole procfs/sysfs file (they report size 0, so this reads until EOF).
absl::StatusOr<std::string> ReadFile(const std::string& path);

// An error naming the file and the 1-based line where the text was not understood.
absl::Status ParseError(std::string_view path, int line, std::string_view what);

}  // namespace nictune::procfs
