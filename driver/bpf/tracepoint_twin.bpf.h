/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the BPF programs only: every tracepoint handler is built twice, as tp_btf (typed,
 * cheapest) and as a raw_tp twin for kernels where tp_btf cannot attach. The loader loads the
 * tp_btf program and switches to the twin only when the kernel refuses it. Handlers read their
 * arguments from the u64 context array and kernel memory with BPF_CORE_READ, which is valid in
 * both program types. */
#pragma once

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "vmlinux.h"

/* The handler gets the argument array and whether it runs as tp_btf (where helpers that take
 * typed kernel pointers, such as bpf_get_socket_cookie, are allowed). */
#define NICTUNE_TRACEPOINT(tracepoint, handler)                             \
  SEC("tp_btf/" #tracepoint)                                                \
  int handler##_btf(unsigned long long* ctx) { return handler(ctx, true); } \
  SEC("raw_tp/" #tracepoint)                                                \
  int handler##_raw(unsigned long long* ctx) { return handler(ctx, false); }

#define NICTUNE_HANDLER static __always_inline int

/* Reads a kernel field: tp_btf loads it directly (the verifier turns typed pointer loads into
 * fault-safe loads, no helper call), the raw_tp twin goes through bpf_probe_read_kernel. `btf` is
 * a compile-time constant in each twin, so only one branch is compiled into each program. */
#define NICTUNE_READ(btf, ptr, ...) ((btf) ? (ptr)->__VA_ARGS__ : BPF_CORE_READ(ptr, __VA_ARGS__))
