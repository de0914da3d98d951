// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/netlink_error.h"

#include <cerrno>
#include <string>

#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"

namespace nictune::driver::netlink {
namespace {

absl::string_view View(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

}  // namespace

std::string DescribeRequest(const RequestContext& context) {
  std::string out = absl::StrCat(View(context.family), " netlink ", View(context.command));
  if (!context.target.empty()) absl::StrAppend(&out, " ", View(context.target));
  return out;
}

absl::Status ErrnoStatus(std::string_view what, int err, std::string_view detail) {
  std::string message = absl::StrCat(View(what), ": ", ErrnoText(err));
  if (!detail.empty()) absl::StrAppend(&message, ": ", View(detail));
  switch (err) {
    case EOPNOTSUPP:
      return absl::UnimplementedError(message);
    case ENOENT:
    case ENODEV:
    case ENXIO:  // if_indextoname of an ifindex with no device
      return absl::NotFoundError(message);
    case EPERM:
    case EACCES:
      return absl::PermissionDeniedError(message);
    case EINVAL:
    case ERANGE:
      return absl::InvalidArgumentError(message);
    case EAGAIN:
    case EINTR:
    case ETIMEDOUT:
    case EBUSY:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace nictune::driver::netlink
