// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_replay.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tuner/burst_model.h"
#include "tuner/recommend.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kReplayWindowSeconds = 10;

double PeakRate(const ArrivalConfig& a) {
  if (a.pattern != ArrivalPattern::kOnOff || a.on_ns <= 0) return a.rate_pps;
  return a.rate_pps * static_cast<double>(a.on_ns + a.off_ns) / static_cast<double>(a.on_ns);
}

// The most packets that arrive within any stretch of gap_s: whole packets of a constant flow, the
// bursts' share of the stretch for on/off traffic (whose ends of two bursts may add a packet
// each); 0 (unknown) for Poisson arrivals, which have no such bound.
double MaxPacketsPerGap(const ArrivalConfig& a, double gap_s) {
  if (gap_s <= 0) return 0;
  if (a.pattern == ArrivalPattern::kConstant) return std::floor(a.rate_pps * gap_s) + 1;
  if (a.pattern != ArrivalPattern::kOnOff || a.on_ns <= 0) return 0;
  const BurstInputs bursts{.burst_s = static_cast<double>(a.on_ns) * 1e-9,
                           .burst_pause_s = static_cast<double>(a.off_ns) * 1e-9};
  return std::floor(PeakRate(a) * BurstingWithin(bursts, gap_s)) + 2;
}

}  // namespace

Observation ObservationOfScenario(const SimScenario& s, uint32_t rx_usecs_max) {
  Observation obs;
  obs.window = absl::Seconds(kReplayWindowSeconds);
  obs.samples = static_cast<uint32_t>(kReplayWindowSeconds);
  obs.host.rmem_default = s.rcvbuf_bytes;
  obs.host.rmem_max = std::max<int64_t>(s.rcvbuf_bytes, 212992);

  const auto packets = static_cast<uint64_t>(s.arrivals.rate_pps * kReplayWindowSeconds);
  QueueObservation q;
  q.device = "sim0";
  q.queue = 0;
  q.rx_packets = packets;
  q.rx_work = packets;
  q.rx_peak_rate_pps = PeakRate(s.arrivals);
  q.interrupt_cost_s = static_cast<double>(s.cost.hardirq_ns + s.cost.poll_ns) * 1e-9;
  q.packet_cost_s = (static_cast<double>(s.cost.packet_ns) +
                     static_cast<double>(s.cost.poll_ns) / static_cast<double>(s.napi.weight)) *
                    1e-9;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.rx_usecs = static_cast<uint32_t>(std::max<int64_t>(0, s.moderation.fixed.rx_usecs));
  q.coalesce.rx_usecs_granularity = 1;
  q.coalesce.rx_usecs_max = rx_usecs_max;
  q.coalesce.rx_ring_size = static_cast<uint32_t>(s.ring_size);

  SocketObservation socket;
  socket.name = "sim socket";
  socket.packets = packets;
  socket.truesize_mean_bytes = static_cast<double>(TruesizeBytes(s.frame));
  socket.truesize_p99_bytes = socket.truesize_mean_bytes;
  socket.rcvbuf_bytes = static_cast<uint64_t>(s.rcvbuf_bytes);
  socket.drain_gap_s = s.app.gap_period_ns > 0 ? static_cast<double>(s.app.gap_ns) * 1e-9 : 0;
  if (s.arrivals.pattern == ArrivalPattern::kOnOff && s.arrivals.on_ns > 0) {
    socket.burst_s = static_cast<double>(s.arrivals.on_ns) * 1e-9;
    socket.burst_pause_s = static_cast<double>(s.arrivals.off_ns) * 1e-9;
  }
  socket.max_packets_per_gap = MaxPacketsPerGap(s.arrivals, socket.drain_gap_s);
  socket.reader_shares_softirq_cpu = s.app.placement == AppPlacement::kSameCpuAsSoftirq;
  socket.peak_rate_pps = q.rx_peak_rate_pps;
  q.sockets.push_back(socket);
  obs.queues.push_back(q);
  return obs;
}

Observation ObservationOfRun(const SimScenario& scenario, const SimResult& run,
                             uint32_t rx_usecs_max) {
  Observation obs = ObservationOfScenario(scenario, rx_usecs_max);
  obs.window = absl::Nanoseconds(run.duration_ns);
  QueueObservation& q = obs.queues.front();
  q.rx_packets = run.packets_arrived;
  q.rx_work = run.packets_enqueued + run.socket_drops;
  q.interrupts = run.interrupts;
  q.polls = run.polls;
  q.time_squeeze = run.time_squeeze;
  q.drops.socket = run.socket_drops;
  q.drops.ring = run.ring_drops;
  const double ns = static_cast<double>(run.duration_ns);
  q.cpu.hardirq = static_cast<double>(run.softirq_cpu.hardirq_ns) / ns;
  q.cpu.softirq = static_cast<double>(run.softirq_cpu.softirq_ns) / ns;
  q.cpu.user = static_cast<double>(run.softirq_cpu.user_ns) / ns;
  q.cpu.idle = static_cast<double>(run.softirq_cpu.idle_ns) / ns;
  SocketObservation& socket = q.sockets.front();
  socket.packets = run.packets_enqueued;
  socket.drops = run.socket_drops;
  socket.peak_fill = std::min(1.0, run.peak_socket_fill);  // one oversized packet may exceed it
  return obs;
}

absl::StatusOr<TunerReplay> ReplayTuner(const SimScenario& scenario, const PolicyConfig& config,
                                        uint32_t rx_usecs_max) {
  if (absl::Status st = ValidateScenario(scenario); !st.ok()) return st;
  absl::StatusOr<std::vector<Recommendation>> recs =
      Recommend(ObservationOfScenario(scenario, rx_usecs_max), config);
  if (!recs.ok()) return recs.status();

  TunerReplay out;
  out.rx_usecs = -1;
  out.rcvbuf_bytes = scenario.rcvbuf_bytes;
  for (const Recommendation& r : *recs) {
    if (r.knob == Knob::kRxUsecs) out.rx_usecs = r.recommended;
    // The socket is on the default buffer: a new rmem_default is its buffer once it reopens.
    if (r.knob == Knob::kRmemDefault && r.recommended > out.rcvbuf_bytes) {
      out.rcvbuf_bytes = r.recommended;
      out.buffer_grown = true;
    }
    if (!r.unresolved.empty()) {
      absl::StrAppend(&out.unresolved, out.unresolved.empty() ? "" : "; ", r.knob_name, ": ",
                      r.unresolved);
    }
  }
  if (out.rx_usecs < 0) {
    return absl::InternalError("tuner replay: Recommend returned no rx-usecs for sim0");
  }
  SimScenario replay = scenario;
  replay.moderation.kind = ModerationKind::kStatic;
  replay.moderation.fixed.rx_usecs = out.rx_usecs;
  replay.moderation.fixed.rx_frames = 0;
  replay.rcvbuf_bytes = out.rcvbuf_bytes;
  absl::StatusOr<SimResult> run = Simulate(replay);
  if (!run.ok()) {
    return absl::Status(run.status().code(),
                        absl::StrCat("tuner replay at rx-usecs ", out.rx_usecs, ", rcvbuf ",
                                     out.rcvbuf_bytes, ": ", run.status().message()));
  }
  out.replay = *run;
  return out;
}

}  // namespace nictune::tuner
