// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/kernel_knob_provider.h"

#include <sys/stat.h>

#include <cerrno>
#include <limits>

#include "absl/strings/str_cat.h"
#include "driver/kernel_name.h"
#include "driver/knobs/coalesce_knob.h"
#include "driver/knobs/file_knob.h"
#include "driver/knobs/integer_file.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_status.h"
#include "driver/knobs/knob_target.h"
#include "driver/knobs/napi_knob.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::knobs {
namespace {

// Ok when `path` exists; Unimplemented (the kernel lacks the setting) or another errno otherwise.
absl::Status SettingExists(const std::string& path, const KnobAddress& address) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return absl::OkStatus();
  const int err = errno;
  if (err == ENOENT) {
    return absl::UnimplementedError(absl::StrCat(DescribeKnob(address), ": unsupported: ", path,
                                                 " does not exist on this kernel"));
  }
  return netlink::ErrnoStatus(absl::StrCat(DescribeKnob(address), ": stat ", path), err);
}

}  // namespace

absl::StatusOr<std::unique_ptr<KnobAccess>> KernelKnobProvider::Open(const KnobAddress& address) {
  absl::StatusOr<KnobTarget> target = ParseKnobTarget(address.target);
  if (!target.ok()) return target.status();
  const KnobSpec& spec = SpecOf(address.knob);

  if (spec.home == KnobHome::kAdviceOnly) {
    return absl::UnimplementedError(absl::StrCat(
        DescribeKnob(address), ": unsupported: advice only, applications own their sockets"));
  }
  if (spec.home == KnobHome::kEthtoolRings) {
    return absl::UnimplementedError(absl::StrCat(
        DescribeKnob(address), ": unsupported: the ring is set by hand (rx_ring.h), never here"));
  }
  if (spec.home == KnobHome::kHostSysctl) {
    if (!target->host) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeKnob(address), ": a host sysctl takes the target \"", kHostTarget, "\""));
    }
    std::string path =
        absl::StrCat(paths_.proc_root, "/", absl::string_view(spec.path.data(), spec.path.size()));
    if (absl::Status status = SettingExists(path, address); !status.ok()) return status;
    return std::make_unique<FileKnob>(address, std::move(path));
  }

  if (target->host) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeKnob(address), ": a device knob takes \"DEV\" or \"DEV napi ID\""));
  }
  const std::string device_dir =
      absl::StrCat(paths_.sys_root, "/class/net/", KernelNameBytes(target->device));
  struct stat info {};
  if (::stat(device_dir.c_str(), &info) != 0) {
    return absl::NotFoundError(
        absl::StrCat(DescribeKnob(address), ": no device ", target->device, " (", device_dir, ")"));
  }

  if (spec.home == KnobHome::kEthtoolCoalesce) {
    if (target->napi_id) {
      return absl::InvalidArgumentError(
          absl::StrCat(DescribeKnob(address), ": coalescing is set per device, not per NAPI"));
    }
    return std::make_unique<CoalesceKnob>(address, target->device);
  }

  // KnobHome::kDeviceSysfs: the device-wide file, or napi-set for one instance.
  if (target->napi_id && !tuner::SetPerNapi(address.knob)) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeKnob(address), ": set per device, not per NAPI"));
  }
  if (target->napi_id) {
    absl::StatusOr<int64_t> ifindex =
        ReadIntegerFile(absl::StrCat(device_dir, "/ifindex"), DescribeKnob(address));
    if (!ifindex.ok()) return ifindex.status();
    if (*ifindex <= 0 || *ifindex > std::numeric_limits<int32_t>::max()) {
      return absl::DataLossError(
          absl::StrCat(DescribeKnob(address), ": ", device_dir, "/ifindex holds ", *ifindex));
    }
    return std::make_unique<NapiKnob>(address, *target->napi_id, static_cast<int32_t>(*ifindex));
  }
  std::string path =
      absl::StrCat(device_dir, "/", absl::string_view(spec.path.data(), spec.path.size()));
  if (absl::Status status = SettingExists(path, address); !status.ok()) return status;
  return std::make_unique<FileKnob>(address, std::move(path), device_dir);
}

}  // namespace nictune::driver::knobs
