// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/drop_reasons.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <bit>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {
namespace {

constexpr absl::string_view kCoreEnum = "skb_drop_reason";
constexpr absl::string_view kSubsystemEnum = "skb_drop_reason_subsys";
constexpr absl::string_view kCorePrefix = "SKB_DROP_REASON_";
constexpr absl::string_view kSubsystemPrefix = "SKB_DROP_REASON_SUBSYS_";
constexpr absl::string_view kMaskName = "SKB_DROP_REASON_SUBSYS_MASK";
// Used when the kernel's enum does not spell the mask out (it has since subsystems exist).
constexpr uint32_t kDefaultSubsystemMask = 0xFFFF0000u;
constexpr const char* kVmlinuxBtf = "/sys/kernel/btf/vmlinux";
constexpr const char* kBtfDirectory = "/sys/kernel/btf";

// Enumerators that mark ranges rather than name a reason.
bool IsMarker(absl::string_view name) {
  return absl::EndsWith(name, "_MAX") || absl::EndsWith(name, "_NUM") ||
         absl::EndsWith(name, "_MASK") || absl::EndsWith(name, "_START") ||
         absl::EndsWith(name, "_END") || absl::EndsWith(name, "_FIRST") ||
         absl::EndsWith(name, "_LAST");
}

bool IsDropReasonEnum(absl::string_view enum_name) {
  return enum_name == kSubsystemEnum || absl::EndsWith(enum_name, "drop_reason");
}

struct BtfDeleter {
  void operator()(btf* owned) const { btf__free(owned); }
};
using BtfPtr = std::unique_ptr<btf, BtfDeleter>;

absl::StatusOr<BtfPtr> ParseBtf(const std::string& path, btf* base) {
  btf* parsed =
      base == nullptr ? btf__parse(path.c_str(), nullptr) : btf__parse_split(path.c_str(), base);
  if (parsed == nullptr) {
    const int error_number = errno;
    return absl::UnavailableError(absl::StrCat("BTF ", path, ": parse: ", ErrnoText(error_number)));
  }
  return BtfPtr(parsed);
}

}  // namespace

absl::StatusOr<DropReasonNames> DropReasonNames::FromEnums(const std::vector<EnumEntry>& entries) {
  DropReasonNames names;
  names.subsystem_mask_ = kDefaultSubsystemMask;
  bool has_core_enum = false;
  for (const EnumEntry& entry : entries) {
    if (entry.enum_name != kCoreEnum) continue;
    has_core_enum = true;
    if (entry.name == kMaskName) names.subsystem_mask_ = static_cast<uint32_t>(entry.value);
  }
  if (!has_core_enum) {
    return absl::NotFoundError(
        "BTF enum skb_drop_reason: not found (kernels before 5.17 report no drop reasons)");
  }
  if (names.subsystem_mask_ == 0) {
    return absl::InvalidArgumentError("BTF enum skb_drop_reason: SKB_DROP_REASON_SUBSYS_MASK is 0");
  }
  names.subsystem_shift_ = std::countr_zero(names.subsystem_mask_);

  auto add = [&names](uint32_t value, absl::string_view name) {
    auto [it, inserted] = names.names_.emplace(value, std::string(name));
    // A range marker sharing its value with a real reason gives way to the reason.
    if (!inserted && IsMarker(it->second) && !IsMarker(name)) it->second = std::string(name);
  };

  for (const EnumEntry& entry : entries) {
    if (entry.enum_name != kSubsystemEnum) continue;
    absl::string_view subsystem = entry.name;
    absl::ConsumePrefix(&subsystem, kSubsystemPrefix);
    if (entry.value == 0 || subsystem == "NUM") continue;  // CORE is skb_drop_reason itself
    names.subsystems_[static_cast<uint32_t>(entry.value)] = std::string(subsystem);
  }

  for (const EnumEntry& entry : entries) {
    const uint32_t value = static_cast<uint32_t>(entry.value);
    if (entry.enum_name == kCoreEnum) {
      if (entry.name == kMaskName || entry.name == "SKB_DROP_REASON_MAX") continue;
      absl::string_view name = entry.name;
      absl::ConsumePrefix(&name, kCorePrefix);
      add(value, name);
    } else if (entry.enum_name != kSubsystemEnum) {
      // Another subsystem's enum: only its values carrying a known subsystem id are reasons
      // (mac80211's enum also holds RX_CONTINUE/RX_QUEUED, which are not drops).
      const uint32_t subsystem = (value & names.subsystem_mask_) >> names.subsystem_shift_;
      if (subsystem == 0 || !names.subsystems_.contains(subsystem)) continue;
      add(value, entry.name);
    }
  }
  for (const auto& [value, name] : names.names_) names.values_.emplace(name, value);
  return names;
}

std::string DropReasonNames::Name(uint32_t reason) const {
  if (auto it = names_.find(reason); it != names_.end()) return it->second;
  const uint32_t subsystem = (reason & subsystem_mask_) >> subsystem_shift_;
  if (auto it = subsystems_.find(subsystem); it != subsystems_.end()) {
    return absl::StrCat("SUBSYS_", it->second, "_", reason & ~subsystem_mask_);
  }
  return absl::StrCat("UNKNOWN_", reason);
}

std::optional<uint32_t> DropReasonNames::Value(absl::string_view name) const {
  if (auto it = values_.find(std::string(name)); it != values_.end()) return it->second;
  return std::nullopt;
}

std::vector<EnumEntry> DropReasonEnumsOf(const btf* kernel_btf) {
  std::vector<EnumEntry> entries;
  const uint32_t types = btf__type_cnt(kernel_btf);
  // Split (module) BTF starts its own types after the base's; walking the base again is harmless
  // for naming but wasteful, so start at the first type this BTF adds.
  const btf* base = btf__base_btf(kernel_btf);
  const uint32_t first = base == nullptr ? 1 : btf__type_cnt(base);
  for (uint32_t id = first; id < types; ++id) {
    const btf_type* type = btf__type_by_id(kernel_btf, id);
    if (!btf_is_enum(type) && !btf_is_enum64(type)) continue;
    const char* enum_name = btf__name_by_offset(kernel_btf, type->name_off);
    if (enum_name == nullptr || !IsDropReasonEnum(enum_name)) continue;
    const uint16_t count = btf_vlen(type);
    for (uint16_t i = 0; i < count; ++i) {
      EnumEntry entry;
      entry.enum_name = enum_name;
      if (btf_is_enum(type)) {
        const struct btf_enum* member = btf_enum(type) + i;
        entry.name = btf__name_by_offset(kernel_btf, member->name_off);
        // Unsigned enums (kflag clear) store values above INT32_MAX as negative s32.
        entry.value = btf_kflag(type) ? static_cast<int64_t>(member->val)
                                      : static_cast<int64_t>(static_cast<uint32_t>(member->val));
      } else {
        const struct btf_enum64* member = btf_enum64(type) + i;
        entry.name = btf__name_by_offset(kernel_btf, member->name_off);
        entry.value = static_cast<int64_t>(btf_enum64_value(member));
      }
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

absl::StatusOr<std::vector<EnumEntry>> DropReasonEnumsFromFile(const std::string& path) {
  absl::StatusOr<BtfPtr> parsed = ParseBtf(path, nullptr);
  if (!parsed.ok()) return parsed.status();
  return DropReasonEnumsOf(parsed->get());
}

absl::StatusOr<DropReasonNames> RunningKernelDropReasons() {
  absl::StatusOr<BtfPtr> vmlinux = ParseBtf(kVmlinuxBtf, nullptr);
  if (!vmlinux.ok()) return vmlinux.status();
  std::vector<EnumEntry> entries = DropReasonEnumsOf(vmlinux->get());

  std::error_code error;
  for (const auto& file : std::filesystem::directory_iterator(kBtfDirectory, error)) {
    if (file.path().filename() == "vmlinux") continue;
    // A module that cannot be parsed only loses its own subsystem's names.
    absl::StatusOr<BtfPtr> module = ParseBtf(file.path().string(), vmlinux->get());
    if (!module.ok()) continue;
    std::vector<EnumEntry> module_entries = DropReasonEnumsOf(module->get());
    entries.insert(entries.end(), module_entries.begin(), module_entries.end());
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat(kBtfDirectory, ": list module BTF: ", ErrnoText(error.value())));
  }
  return DropReasonNames::FromEnums(entries);
}

}  // namespace nictune::driver::bpf
