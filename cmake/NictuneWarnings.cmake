# SPDX-License-Identifier: Apache-2.0
# Warnings are errors for our own code only; third-party headers come in as SYSTEM.
function(nictune_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Werror
    -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
    # Not -Wnull-dereference: at -O2 g++ 12 reports libstdc++'s own streambuf internals.
    # g++ 12 warns on designated initializers that leave members to their default initializers,
    # which is exactly how our plain structs are meant to be built.
    -Wno-missing-field-initializers)
endfunction()
