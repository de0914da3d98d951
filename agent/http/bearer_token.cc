// SPDX-License-Identifier: Apache-2.0
#include "agent/http/bearer_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "driver/errno_text.h"

namespace nictune::http {
namespace {

constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenFileBytes = 4096;

absl::Status ErrnoError(const std::string& path, const char* operation, int error) {
  return absl::Status(
      absl::ErrnoToStatusCode(error),
      absl::StrCat("api token file ", path, ": ", operation, ": ", driver::ErrnoText(error)));
}

}  // namespace

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return ErrnoError(path, "open", errno);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return ErrnoError(path, "fstat", error);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("api token file ", path, ": not a regular file"));
  }
  // Anyone who owns the file can change the token, and so can mutate through the API.
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    close(fd);
    return absl::PermissionDeniedError(
        absl::StrFormat("api token file %s: owned by uid %d, neither root nor this agent's uid "
                        "%d; chown it",
                        path, st.st_uid, ::geteuid()));
  }
  if ((st.st_mode & 077) != 0) {
    close(fd);
    return absl::PermissionDeniedError(
        absl::StrFormat("api token file %s: mode %04o lets group or others read the token; "
                        "chmod 600 it",
                        path, st.st_mode & 07777));
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  size_t filled = 0;
  while (filled < text.size()) {
    const ssize_t n = read(fd, text.data() + filled, text.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return ErrnoError(path, "read", error);
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  close(fd);
  if (filled > kMaxTokenFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("api token file ", path, ": larger than ", kMaxTokenFileBytes, " bytes"));
  }
  text.resize(filled);
  const std::string token(absl::StripTrailingAsciiWhitespace(text));
  if (token.size() < kMinTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat("api token file ", path, ": token has ",
                                                   token.size(), " characters, need at least ",
                                                   kMinTokenLength));
  }
  for (const char c : token) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat("api token file ", path, ": token contains whitespace or control bytes"));
    }
  }
  return token;
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Every byte of a is compared whatever the contents; only the lengths may show in the timing.
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char other = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    difference =
        static_cast<unsigned char>(difference | (static_cast<unsigned char>(a[i]) ^ other));
  }
  return difference == 0;
}

std::optional<Response> RefuseUnauthorized(const Request& request, Effect effect,
                                           const std::optional<std::string>& token) {
  if (effect == Effect::kReadsOnly || request.transport == Transport::kUnixSocket) {
    return std::nullopt;
  }
  if (!token) {
    return ErrorResponse(403, "forbidden",
                         absl::StrCat(request.method, " ", request.path,
                                      " changes state and is refused over TCP without an API "
                                      "token (--api_token_file); use the unix socket"));
  }
  // RFC 9110: the scheme is case-insensitive, and one or more spaces follow it.
  constexpr absl::string_view kBearer = "bearer";
  absl::string_view header = request.authorization;
  const bool bearer = absl::StartsWithIgnoreCase(header, kBearer) &&
                      header.size() > kBearer.size() && header[kBearer.size()] == ' ';
  if (bearer) {
    header.remove_prefix(kBearer.size());
    header = absl::StripLeadingAsciiWhitespace(header);
  }
  if (!bearer || !ConstantTimeEquals(*token, header)) {
    return ErrorResponse(403, "forbidden",
                         absl::StrCat(request.method, " ", request.path,
                                      " needs \"Authorization: Bearer <token>\" with the token of "
                                      "--api_token_file"));
  }
  return std::nullopt;
}

}  // namespace nictune::http
