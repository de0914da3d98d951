// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/tracepoint_arguments.h"

#include <bpf/btf.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace nictune::driver::bpf {

std::optional<int> TracepointArguments(absl::string_view event) {
  btf* vmlinux = btf__load_vmlinux_btf();
  if (vmlinux == nullptr) return std::nullopt;
  std::optional<int> arguments;
  const std::string name = absl::StrCat("btf_trace_", event);
  const int id = btf__find_by_name_kind(vmlinux, name.c_str(), BTF_KIND_TYPEDEF);
  if (id > 0) {
    const btf_type* type = btf__type_by_id(vmlinux, static_cast<uint32_t>(id));
    while (type != nullptr && (btf_is_typedef(type) || btf_is_ptr(type)))
      type = btf__type_by_id(vmlinux, type->type);
    if (type != nullptr && btf_is_func_proto(type)) arguments = btf_vlen(type) - 1;
  }
  btf__free(vmlinux);
  return arguments;
}

}  // namespace nictune::driver::bpf
