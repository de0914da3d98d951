/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Calibration, not a probe: empty programs on the three tracepoints the default probe set runs on
 * every packet of a veth flood (irq:softirq_entry, irq:softirq_exit, napi:napi_poll). What they
 * cost is what any BPF program on those hooks costs before its body does anything: the dispatch
 * floor that tests/bench/bpf_overhead_bench.cc measures beside the real probes, for the three
 * together and for napi_poll alone. nictuned never loads it. Built as tp_btf with raw_tp twins, like the probes, so that it falls back as they do. */
#include "vmlinux.h"  /* before the libbpf headers, which use its types */

#include "tracepoint_twin.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

NICTUNE_HANDLER floor_softirq_entry(unsigned long long* ctx, bool btf) { return 0; }
NICTUNE_HANDLER floor_softirq_exit(unsigned long long* ctx, bool btf) { return 0; }
NICTUNE_HANDLER floor_napi_poll(unsigned long long* ctx, bool btf) { return 0; }

NICTUNE_TRACEPOINT(softirq_entry, floor_softirq_entry)
NICTUNE_TRACEPOINT(softirq_exit, floor_softirq_exit)
NICTUNE_TRACEPOINT(napi_poll, floor_napi_poll)
