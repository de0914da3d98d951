// SPDX-License-Identifier: Apache-2.0
// Names of skb drop reasons, read from the running kernel's BTF: the numbers change between
// kernel versions, so no table is compiled in. Reasons of other subsystems (mac80211,
// openvswitch, ...) carry the subsystem in their high bits and are named from that subsystem's
// own enum, found through enum skb_drop_reason_subsys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct btf;

namespace nictune::driver::bpf {

// One enumerator of a kernel enum, as BTF describes it.
struct EnumEntry {
  std::string enum_name;  // "skb_drop_reason"
  std::string name;       // "SKB_DROP_REASON_SOCKET_RCVBUFF"
  int64_t value = 0;
};

class DropReasonNames {
 public:
  // Builds the names from the drop-reason enums of a kernel (see DropReasonEnumsOf). Fails when
  // enum skb_drop_reason is missing (kernels before 5.17 have no drop reasons).
  static absl::StatusOr<DropReasonNames> FromEnums(const std::vector<EnumEntry>& entries);

  // "SOCKET_RCVBUFF" (prefix SKB_DROP_REASON_ stripped), a subsystem's own enumerator such as
  // "OVS_DROP_LAST_ACTION", "SUBSYS_<NAME>_<code>" for a subsystem whose enum is not loaded, or
  // "UNKNOWN_<value>".
  std::string Name(uint32_t reason) const;

  // The value of a name as Name() spells it.
  std::optional<uint32_t> Value(absl::string_view name) const;

  size_t size() const { return names_.size(); }

 private:
  absl::flat_hash_map<uint32_t, std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> values_;
  absl::flat_hash_map<uint32_t, std::string> subsystems_;  // subsystem id -> "OPENVSWITCH"
  uint32_t subsystem_mask_ = 0;
  int subsystem_shift_ = 0;
};

// The entries of every drop-reason enum in one BTF: skb_drop_reason, skb_drop_reason_subsys and
// any enum whose name ends in "drop_reason".
std::vector<EnumEntry> DropReasonEnumsOf(const btf* kernel_btf);

// Drop-reason enums from a BTF file: vmlinux, or a module's split BTF on top of vmlinux's.
absl::StatusOr<std::vector<EnumEntry>> DropReasonEnumsFromFile(const std::string& path);

// The running kernel's names: /sys/kernel/btf/vmlinux plus every loaded module's BTF.
absl::StatusOr<DropReasonNames> RunningKernelDropReasons();

}  // namespace nictune::driver::bpf
