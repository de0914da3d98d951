// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/integer_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "driver/file_descriptor.h"
#include "driver/kernel_name.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::knobs {
namespace {

// Longer than any int64 in decimal plus sign and newline; more means it is not our kind of file.
constexpr size_t kMaxTextBytes = 64;

absl::Status FileError(const std::string& what, const std::string& path,
                       absl::string_view operation, int err) {
  const std::string context = absl::StrCat(what, ": ", operation, " ", KernelNameText(path));
  if (err == ENOENT) {
    return absl::UnimplementedError(
        absl::StrCat(context, ": unsupported (no such file, errno ", ENOENT, ")"));
  }
  return netlink::ErrnoStatus(context, err);
}

// Opens a knob's file. O_NONBLOCK and the regular-file check: a FIFO or a device where a sysctl
// belongs (a fake --proc_root) is refused at once instead of blocking the caller.
absl::StatusOr<FileDescriptor> OpenKnobFile(const std::string& path, int flags,
                                            const std::string& what, absl::string_view operation) {
  FileDescriptor fd(::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return FileError(what, path, operation, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return FileError(what, path, "fstat", errno);
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": ", operation, " ", KernelNameText(path), ": not a regular file"));
  }
  return fd;
}

}  // namespace

absl::StatusOr<int64_t> ParseIntegerText(const std::string& text, const std::string& what) {
  absl::string_view body(text);
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  int64_t value = 0;
  // SimpleAtoi skips surrounding whitespace; the kernel never writes any but the newline, so
  // anything else is a file we do not understand.
  if (body.empty() || body != absl::StripAsciiWhitespace(body) || !absl::SimpleAtoi(body, &value)) {
    return absl::DataLossError(
        absl::StrCat(what, ": expected one decimal integer, got '", absl::CEscape(text), "'"));
  }
  return value;
}

absl::StatusOr<int64_t> ReadIntegerFile(const std::string& path, const std::string& what) {
  absl::StatusOr<FileDescriptor> fd = OpenKnobFile(path, O_RDONLY, what, "open");
  if (!fd.ok()) return fd.status();
  char buffer[kMaxTextBytes + 1];
  ssize_t got = 0;
  do {
    got = ::read(fd->get(), buffer, sizeof buffer);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return FileError(what, path, "read", errno);
  if (static_cast<size_t>(got) > kMaxTextBytes) {
    return absl::DataLossError(absl::StrCat(what, ": read ", KernelNameText(path), ": more than ",
                                            kMaxTextBytes, " bytes, not one integer"));
  }
  return ParseIntegerText(std::string(buffer, static_cast<size_t>(got)),
                          absl::StrCat(what, ": read ", KernelNameText(path)));
}

absl::Status WriteIntegerFile(const std::string& path, int64_t value, const std::string& what) {
  const std::string text = absl::StrCat(value);
  {
    // O_TRUNC as sysctl(8) opens: procfs and sysfs ignore it, a plain file (a test tree) then
    // holds exactly the written text as the kernel would.
    absl::StatusOr<FileDescriptor> fd = OpenKnobFile(path, O_WRONLY | O_TRUNC, what, "open");
    if (!fd.ok()) return fd.status();
    // One write(2) of the whole text: procfs and sysfs parse each write on its own, so a split
    // write would set the value in two steps.
    ssize_t wrote = 0;
    do {
      wrote = ::write(fd->get(), text.data(), text.size());
    } while (wrote < 0 && errno == EINTR);
    if (wrote < 0) return FileError(what, path, absl::StrCat("write ", text, " to"), errno);
    if (static_cast<size_t>(wrote) != text.size()) {
      return absl::InternalError(absl::StrCat(what, ": write ", text, " to ", KernelNameText(path),
                                              ": only ", wrote, " of ", text.size(),
                                              " bytes taken"));
    }
  }
  absl::StatusOr<int64_t> now = ReadIntegerFile(path, what);
  if (!now.ok()) return now.status();
  if (*now != value) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": wrote ", value, " to ", KernelNameText(path), " but the kernel holds ", *now));
  }
  return absl::OkStatus();
}

}  // namespace nictune::driver::knobs
