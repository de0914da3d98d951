# SPDX-License-Identifier: Apache-2.0
# nictune_bpf_skeleton(NAME [HEADERS h...]) compiles driver/bpf/NAME.bpf.c with clang for the
# BPF target (CO-RE, BTF) and generates NAME.skel.h with `bpftool gen skeleton`. The object is
# rebuilt when the program, vmlinux.h or any listed BPF header changes.
find_program(BPF_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)

set(NICTUNE_BPF_OUT ${CMAKE_BINARY_DIR}/bpf)
file(MAKE_DIRECTORY ${NICTUNE_BPF_OUT})

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(NICTUNE_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(NICTUNE_BPF_ARCH arm64)
else()
  set(NICTUNE_BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()

# vmlinux.h is generated from the build host's BTF only for type declarations; CO-RE relocations
# make the objects run on other kernels, and nothing needs kernel headers at run time.
set(NICTUNE_VMLINUX_H ${NICTUNE_BPF_OUT}/vmlinux.h)
add_custom_command(
  OUTPUT ${NICTUNE_VMLINUX_H}
  COMMAND ${BPFTOOL} btf dump file /sys/kernel/btf/vmlinux format c > ${NICTUNE_VMLINUX_H}.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${NICTUNE_VMLINUX_H}.tmp ${NICTUNE_VMLINUX_H}
  COMMENT "Generating vmlinux.h from the build host's BTF"
  VERBATIM)

function(nictune_bpf_skeleton name)
  cmake_parse_arguments(ARG "" "" "HEADERS" ${ARGN})
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${name}.bpf.c)
  set(obj ${NICTUNE_BPF_OUT}/${name}.bpf.o)
  set(skel ${NICTUNE_BPF_OUT}/${name}.skel.h)
  file(GLOB shared_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${NICTUNE_BPF_ARCH}
            -Wall -Werror -mcpu=v3
            -I${NICTUNE_BPF_OUT} -I${CMAKE_CURRENT_SOURCE_DIR} -idirafter /usr/include
            -idirafter /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}
            -c ${src} -o ${obj}
    DEPENDS ${src} ${NICTUNE_VMLINUX_H} ${shared_headers} ${ARG_HEADERS}
    COMMENT "BPF ${name}.bpf.c"
    VERBATIM)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "Skeleton ${name}.skel.h"
    VERBATIM)
  add_custom_target(bpf_${name} DEPENDS ${skel})
  set_property(GLOBAL APPEND PROPERTY NICTUNE_BPF_SKELETONS bpf_${name})
endfunction()
