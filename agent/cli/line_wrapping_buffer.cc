// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/line_wrapping_buffer.h"

#include "agent/cli/text_table.h"

namespace nictune::cli {

LineWrappingBuffer::~LineWrappingBuffer() { WriteLine(); }

LineWrappingBuffer::int_type LineWrappingBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  line_ += traits_type::to_char_type(c);
  if (line_.back() == '\n') WriteLine();
  return c;
}

// A line still being written stays buffered: wrapping needs all of it.
int LineWrappingBuffer::sync() {
  out_.flush();
  return 0;
}

void LineWrappingBuffer::WriteLine() {
  if (line_.empty()) return;
  out_ << WrapLines(line_, width_);
  out_.flush();
  line_.clear();
}

}  // namespace nictune::cli
