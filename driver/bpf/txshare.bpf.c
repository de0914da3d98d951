/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tx share of NAPI poll work. Drivers free transmitted skbs from their NAPI poll (the same
 * poll that receives), with napi_consume_skb() (ixgbe, i40e, mlx5, virtio_net, ...) or
 * dev_consume_skb_any(); both end in the skb:consume_skb tracepoint while the CPU is in the
 * NET_RX softirq. napi_poll fires after the poll returns, so the consumes seen on a CPU since the
 * previous napi_poll belong to this poll.
 *
 * What this really counts (an approximation, documented in the report):
 * - counted: skbs consumed in NET_RX softirq context, i.e. tx completions done in NAPI poll, and
 *   also receive-side consumes inside the poll (e.g. an skb the stack consumes while delivering,
 *   like a pure TCP ACK freed with consume_skb rather than __kfree_skb);
 * - excluded: skbs other CPUs handed back for freeing (skb_attempt_defer_free), which
 *   net_rx_action frees between polls via skb_defer_free_flush(): user space gives the code range
 *   of that function (from /proc/kallsyms) and consumes called from it are skipped;
 * - missed: completions freed with __kfree_skb/napi_skb_cache_put (no tracepoint), frees deferred
 *   to NET_TX via dev_kfree_skb_irq (completion queue), and threaded NAPI (it polls in a kthread
 *   without a softirq_entry event, so the NET_RX flag is never set).
 * consume_skb is per packet: outside NET_RX the handler returns after one per-CPU array lookup.
 *
 * Only consume_skb runs here: the NET_RX flag is set by the softirq object's softirq_entry/exit
 * and the attribution done by the napi object's napi_poll (one program per tracepoint on the
 * per-packet path). This object reuses their maps (txshare_cpu, tx_completions, softirq_timing; see
 * txshare.h and softirq_timing.h). */
#include "txshare.h"

#include "hook_events.h"
#include "napi_key.bpf.h"
#include "softirq_timing.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct nictune_code_range excluded_callers[NICTUNE_TXSHARE_EXCLUDED_RANGES] = {};

NICTUNE_TXSHARE_CPU_MAP
NICTUNE_TX_COMPLETIONS_MAP
NICTUNE_SOFTIRQ_TIMING_MAP
NICTUNE_HOOK_EVENTS_MAP
NICTUNE_HOOK_GATE_MAP

NICTUNE_HANDLER on_consume_skb(unsigned long long* ctx, bool btf) {
  nictune_count_event(&hook_events);
  if (nictune_hook_gate_closed(&hook_gate)) return 0;
  __u32 zero = 0;
  struct nictune_txshare_cpu* state = bpf_map_lookup_elem(&txshare_cpu, &zero);
  if (!state || !state->in_net_rx) return 0;
  /* A flag left by a NET_RX whose exit the softirq program did not see (detached meanwhile, or
   * about to be: timing closes before the softirq pair goes). */
  struct nictune_softirq_timing* timing = nictune_softirq_timing_of(&softirq_timing);
  if (!timing || timing->closed || state->net_rx_epoch != timing->epoch) return 0;
  __u64 caller = ctx[1];
  for (int i = 0; i < NICTUNE_TXSHARE_EXCLUDED_RANGES; i++) {
    if (caller >= excluded_callers[i].start && caller < excluded_callers[i].end) {
      state->excluded++;
      return 0;
    }
  }
  state->pending++;
  return 0;
}

NICTUNE_TRACEPOINT(consume_skb, on_consume_skb)
