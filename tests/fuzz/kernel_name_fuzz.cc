// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for kernel names (any bytes a device or irq name may hold): the text is valid
// UTF-8, goes through JSON, and gives the bytes back exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "driver/kernel_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace driver = nictune::driver;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string text = driver::KernelNameText(bytes);
  if (!driver::IsValidUtf8(text)) std::abort();
  if (driver::KernelNameBytes(text) != bytes) std::abort();
  if (!driver::IsValidUtf8(driver::ReplaceInvalidUtf8(bytes))) std::abort();
  return 0;
}
