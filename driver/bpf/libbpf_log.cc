// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/libbpf_log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

namespace nictune::driver::bpf {
namespace {

thread_local LibbpfLogCapture* active_capture = nullptr;
thread_local std::string* active_text = nullptr;

int CaptureLibbpfMessage(enum libbpf_print_level level, const char* format, va_list args) {
  if (active_text == nullptr || level == LIBBPF_DEBUG) return 0;
  // Verifier logs arrive as one long message: size it first rather than truncate it.
  va_list sizing;
  va_copy(sizing, args);
  const int length = std::vsnprintf(nullptr, 0, format, sizing);
  va_end(sizing);
  if (length <= 0) return length;
  std::string message(static_cast<size_t>(length) + 1, '\0');
  va_list copy;
  va_copy(copy, args);
  const int written = std::vsnprintf(message.data(), message.size(), format, copy);
  va_end(copy);
  message.resize(static_cast<size_t>(length));
  active_text->append(message);
  return written;
}

}  // namespace

LibbpfLogCapture::LibbpfLogCapture() : outer_(active_capture) {
  // libbpf's print hook is process-wide; without a capture the messages are dropped (the agent
  // reports failures through ProbeSource::Status instead of libbpf's stderr chatter).
  static std::once_flag installed;
  std::call_once(installed, [] { libbpf_set_print(CaptureLibbpfMessage); });
  active_capture = this;
  active_text = &text_;
}

LibbpfLogCapture::~LibbpfLogCapture() {
  active_capture = outer_;
  active_text = outer_ != nullptr ? &outer_->text_ : nullptr;
}

}  // namespace nictune::driver::bpf
