// SPDX-License-Identifier: Apache-2.0
// The CLI's stderr, each line wrapped at the terminal's width as it ends: an error names a socket,
// an errno and what to try, and a person reads it whole, without the terminal breaking words.
#pragma once

#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>

namespace nictune::cli {

class LineWrappingBuffer : public std::streambuf {
 public:
  LineWrappingBuffer(std::ostream& out, size_t width) : out_(out), width_(width) {}
  LineWrappingBuffer(const LineWrappingBuffer&) = delete;
  LineWrappingBuffer& operator=(const LineWrappingBuffer&) = delete;
  ~LineWrappingBuffer() override;  // writes a last line that did not end

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  void WriteLine();

  std::ostream& out_;
  size_t width_;
  std::string line_;
};

}  // namespace nictune::cli
