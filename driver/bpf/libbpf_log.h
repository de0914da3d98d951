// SPDX-License-Identifier: Apache-2.0
// Captures libbpf's messages while one load runs on this thread, so that a program the kernel
// refuses can be reported with the kernel's own words (verifier log, missing BTF type, ...).
#pragma once

#include <string>

namespace nictune::driver::bpf {

// While alive, libbpf messages from this thread are appended to the capture instead of being
// dropped. Nests: the innermost capture receives.
class LibbpfLogCapture {
 public:
  LibbpfLogCapture();
  ~LibbpfLogCapture();
  LibbpfLogCapture(const LibbpfLogCapture&) = delete;
  LibbpfLogCapture& operator=(const LibbpfLogCapture&) = delete;

  const std::string& text() const { return text_; }
  void Clear() { text_.clear(); }

 private:
  std::string text_;
  LibbpfLogCapture* outer_;
};

}  // namespace nictune::driver::bpf
