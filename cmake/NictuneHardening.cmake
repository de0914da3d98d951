# SPDX-License-Identifier: Apache-2.0
# The hardening Debian builds its packages with (dpkg-buildflags, hardening=+all): a stack
# protector and stack clash protection, control-flow protection on x86, fortified libc calls, a
# position-independent executable, and a GOT that is resolved at start and then read-only (relro,
# now). An agent that runs as root with CAP_BPF and CAP_NET_ADMIN and parses requests should have
# them. Sanitizer and fuzz builds instrument the code their own way and go without.
include(CheckPIESupported)
if(NOT NICTUNE_FUZZ AND NOT NICTUNE_SANITIZE)
  check_pie_supported()
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  add_compile_options(-fstack-protector-strong -fstack-clash-protection
    # glibc fortifies only optimised code, and warns (an error under -Werror) otherwise.
    "$<$<NOT:$<CONFIG:Debug>>:-U_FORTIFY_SOURCE;-D_FORTIFY_SOURCE=2>")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    add_compile_options(-fcf-protection)
  endif()
  add_link_options(-Wl,-z,relro -Wl,-z,now)
endif()
