// SPDX-License-Identifier: Apache-2.0
// The probe concerns, each in its own file: load (open the skeleton, configure it, attach) and
// read (aggregate its per-CPU maps into BpfCounters).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "driver/bpf/drop_key_aging.h"
#include "driver/bpf/drop_reasons.h"
#include "driver/bpf/duty_hook.h"
#include "driver/bpf/loaded_probe.h"
#include "driver/probe_source.h"

namespace nictune::driver::bpf {

std::unique_ptr<LoadedProbe> LoadIrqProbe();
absl::Status ReadIrqProbe(const LoadedProbe& probe, BpfCounters& counters);

// softirq_raise is loaded only with options.softirq_raise.
std::unique_ptr<LoadedProbe> LoadSoftirqProbe(const ProbeOptions& options);
absl::Status ReadSoftirqProbe(const LoadedProbe& probe, BpfCounters& counters);

// Shares the softirq probe's NET_RX state (txshare_cpu) when that probe is attached.
std::unique_ptr<LoadedProbe> LoadNapiProbe(const LoadedProbe& softirq);
absl::Status ReadNapiProbe(const LoadedProbe& probe, BpfCounters& counters);

// Tx completions per NAPI instance; merged into counters.napis (read NAPI first). Needs the
// softirq and napi probes attached: it runs only consume_skb and shares their maps.
std::unique_ptr<LoadedProbe> LoadTxshareProbe(const LoadedProbe& softirq, const LoadedProbe& napi);
absl::Status ReadTxshareProbe(const LoadedProbe& probe, BpfCounters& counters);

// `reasons` may be null when the kernel's BTF has no drop reasons: names are then numeric. Prunes
// the keys `aging` finds idle at now_ns and reports the map's pressure in counters.maps.
std::unique_ptr<LoadedProbe> LoadDropsProbe();
absl::Status ReadDropsProbe(const LoadedProbe& probe, const DropReasonNames* reasons,
                            DropKeyAging& aging, uint64_t now_ns, BpfCounters& counters);

// Socket fill; resets the peaks (they are "since the previous read"). `measuring`: the hook's
// stretch and a moment it measured in it (DutyHook::MeasuringNow): waits of that stretch still
// open are reported as long as they had lasted then; nullopt: none is.
std::unique_ptr<LoadedProbe> LoadSockfillProbe(const ProbeOptions& options);
absl::Status ReadSockfillProbe(const LoadedProbe& probe, std::optional<StretchAt> measuring,
                               BpfCounters& counters);

// UDP queue failures; merged into counters.sockets (read socket fill first).
std::unique_ptr<LoadedProbe> LoadUdpFailProbe(const ProbeOptions& options);
absl::Status ReadUdpFailProbe(const LoadedProbe& probe, BpfCounters& counters);

std::unique_ptr<LoadedProbe> LoadTruesizeProbe(const ProbeOptions& options);
absl::Status ReadTruesizeProbe(const LoadedProbe& probe, BpfCounters& counters);

}  // namespace nictune::driver::bpf
