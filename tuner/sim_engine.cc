// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_engine.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/sim_arrivals.h"
#include "tuner/sim_gaps.h"
#include "tuner/sim_moderation.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// One run. Each event source keeps its own next time (arrivals, the moderation timer, the
// kernel's current step, the reader's current read, the reader's gap boundaries: sim_gaps.h); the
// loop takes the earliest, charges the time since the previous event to whatever each CPU was
// doing, and handles what is due in a fixed order so that ties resolve the same way every run.
class Run {
 public:
  explicit Run(const SimScenario& scenario)
      : s_(scenario),
        arrivals_(scenario.arrivals, scenario.seed),
        gaps_(scenario.app, scenario.seed),
        moderator_(scenario.moderation),
        truesize_(TruesizeBytes(scenario.frame)),
        ring_(static_cast<size_t>(scenario.ring_size)) {
    result_.duration_ns = s_.duration_ns;
    result_.truesize_bytes = truesize_;
    result_.packets_per_poll.assign(static_cast<size_t>(s_.napi.weight) + 1, 0);
  }

  SimResult Go() {
    next_arrival_ = arrivals_.Next();
    UpdateReader();
    while (true) {
      int64_t t = s_.duration_ns;
      t = std::min(t, next_arrival_);
      if (irq_armed_) t = std::min(t, irq_deadline_);
      if (phase_ != Phase::kIdle) t = std::min(t, kernel_done_);
      if (reader_running_) t = std::min(t, reader_done_);
      t = std::min(t, gaps_.NextBoundary(now_));
      Account(t - now_);
      now_ = t;
      gaps_.AdvanceTo(now_);
      if (now_ >= s_.duration_ns) break;
      while (phase_ != Phase::kIdle && kernel_done_ == now_) KernelStepDone();
      if (irq_armed_ && irq_deadline_ == now_) FireInterrupt();
      if (next_arrival_ == now_) {
        Arrive();
        next_arrival_ = arrivals_.Next();
      }
      if (reader_running_ && reader_done_ == now_) FinishRead();
      UpdateReader();
    }
    return Finish();
  }

 private:
  enum class Phase { kIdle, kHardIrq, kSoftirq, kSqueezeYield };
  enum class Step { kPollCall, kPacket };

  // --- NIC rx ring: arrival times of the packets waiting for a poll, oldest first.
  size_t RingCount() const { return ring_count_; }
  int64_t RingOldest() const { return ring_[ring_head_]; }
  int64_t RingNewest() const { return ring_[(ring_head_ + ring_count_ - 1) % ring_.size()]; }
  void RingPush(int64_t t) {
    ring_[(ring_head_ + ring_count_) % ring_.size()] = t;
    ++ring_count_;
  }
  void RingPop() {
    ring_head_ = (ring_head_ + 1) % ring_.size();
    --ring_count_;
  }

  void Arrive() {
    ++result_.packets_arrived;
    if (RingCount() == ring_.size()) {
      ++result_.ring_drops;
      return;
    }
    RingPush(now_);
    if (!irq_armed_) return;
    const int64_t interval = moderator_.IntervalNs();
    const int64_t frames = moderator_.FrameThreshold();
    if (interval == 0 || (frames > 0 && static_cast<int64_t>(RingCount()) >= frames)) {
      FireInterrupt();
      return;
    }
    if (irq_deadline_ == kNever || moderator_.RestartsOnEachPacket()) {
      irq_deadline_ = now_ + interval;
    }
  }

  // The interrupt was re-armed with packets already pending: the timer runs from the first
  // packet that is still waiting (from the newest one where every packet restarts it).
  void ArmWithPending() {
    const int64_t interval = moderator_.IntervalNs();
    const int64_t frames = moderator_.FrameThreshold();
    if (interval == 0 || (frames > 0 && static_cast<int64_t>(RingCount()) >= frames)) {
      FireInterrupt();
      return;
    }
    const int64_t start = moderator_.RestartsOnEachPacket() ? RingNewest() : RingOldest();
    irq_deadline_ = std::max(now_, start + interval);
    if (irq_deadline_ == now_) FireInterrupt();
  }

  void FireInterrupt() {
    irq_armed_ = false;
    irq_deadline_ = kNever;
    ++result_.interrupts;
    cycle_packets_ = 0;
    phase_ = Phase::kHardIrq;
    kernel_done_ = now_ + s_.cost.hardirq_ns;
  }

  void KernelStepDone() {
    switch (phase_) {
      case Phase::kIdle:
        return;
      case Phase::kHardIrq:
      case Phase::kSqueezeYield:
        StartSoftirqRun();
        return;
      case Phase::kSoftirq:
        if (step_ == Step::kPacket) {
          RingPop();
          DeliverToSocket();
          ++poll_work_;
          ++cycle_packets_;
          ++moderation_packets_;
          moderation_bytes_ += static_cast<uint64_t>(s_.frame.frame_bytes);
        }
        TakeNextPacketOrEndPoll();
        return;
    }
  }

  void StartSoftirqRun() {
    phase_ = Phase::kSoftirq;
    ++result_.softirq_runs;
    budget_left_ = s_.napi.netdev_budget;
    time_limit_ = now_ + s_.napi.budget_usecs * 1000;
    StartPoll();
  }

  void StartPoll() {
    poll_work_ = 0;
    poll_limit_ = s_.napi.weight;
    if (s_.napi.mode == NapiPollMode::kSinglePass) {
      poll_limit_ = std::min(poll_limit_, static_cast<int64_t>(RingCount()));
    }
    step_ = Step::kPollCall;
    kernel_done_ = now_ + s_.cost.poll_ns;
  }

  void TakeNextPacketOrEndPoll() {
    if (poll_work_ < poll_limit_ && RingCount() > 0) {
      step_ = Step::kPacket;
      kernel_done_ = now_ + s_.cost.packet_ns;
      return;
    }
    EndPoll();
  }

  void EndPoll() {
    ++result_.polls;
    ++result_.packets_per_poll[static_cast<size_t>(poll_work_)];
    const bool stays_scheduled =
        s_.napi.mode == NapiPollMode::kRepollWhileWork && poll_work_ == s_.napi.weight;
    if (!stays_scheduled) {
      CompleteNapi();
      return;
    }
    budget_left_ -= poll_work_;
    if (budget_left_ <= 0 || now_ >= time_limit_) {
      ++result_.time_squeeze;
      const bool reader_waits = s_.app.placement == AppPlacement::kSameCpuAsSoftirq &&
                                (socket_packets_ > 0 || reader_has_read_);
      if (reader_waits && s_.napi.squeeze_yield_ns > 0) {
        phase_ = Phase::kSqueezeYield;
        kernel_done_ = now_ + s_.napi.squeeze_yield_ns;
        return;
      }
      StartSoftirqRun();
      return;
    }
    StartPoll();
  }

  void CompleteNapi() {
    result_.peak_packets_per_interrupt =
        std::max(result_.peak_packets_per_interrupt, cycle_packets_);
    moderator_.OnNapiComplete(now_, moderation_packets_, moderation_bytes_);
    moderation_packets_ = 0;
    moderation_bytes_ = 0;
    phase_ = Phase::kIdle;
    kernel_done_ = kNever;
    irq_armed_ = true;
    irq_deadline_ = kNever;
    if (RingCount() > 0) ArmWithPending();
  }

  // __udp_enqueue_schedule_skb (Linux 6.18): refuse when rmem_alloc + truesize > rcvbuf, except
  // that an empty queue takes one packet whatever its size (unless rcvbuf > INT_MAX / 2).
  void DeliverToSocket() {
    if (rmem_ + truesize_ > s_.rcvbuf_bytes &&
        (s_.rcvbuf_bytes > (kKernelIntMax >> 1) || rmem_ != 0)) {
      ++result_.socket_drops;
      return;
    }
    rmem_ += truesize_;
    ++socket_packets_;
    ++result_.packets_enqueued;
    result_.peak_socket_bytes = std::max(result_.peak_socket_bytes, rmem_);
  }

  // --- the reader
  bool ReaderMayRun() const {
    if (gaps_.InGap(now_)) return false;
    if (s_.app.placement == AppPlacement::kOwnCpu) return true;
    return phase_ == Phase::kIdle || phase_ == Phase::kSqueezeYield;
  }

  void UpdateReader() {
    const bool may_run = ReaderMayRun();
    if (reader_has_read_) {
      if (reader_running_ && !may_run) {
        reader_remaining_ = reader_done_ - now_;
        reader_running_ = false;
      } else if (!reader_running_ && may_run) {
        reader_done_ = now_ + reader_remaining_;
        reader_running_ = true;
      }
      return;
    }
    if (!may_run) return;
    // Reads that cost nothing complete at once; the first one that costs time becomes an event.
    while (socket_packets_ > 0 && !reader_has_read_) {
      int64_t cost = s_.app.read_ns;
      if (batch_used_ == 0) cost += s_.app.batch_overhead_ns;
      batch_used_ = (batch_used_ + 1) % s_.app.read_batch;
      if (cost == 0) {
        TakeFromSocket();
        continue;
      }
      reader_has_read_ = true;
      reader_running_ = true;
      reader_done_ = now_ + cost;
    }
    if (socket_packets_ == 0 && !reader_has_read_) batch_used_ = 0;  // asleep: a new batch next
  }

  void FinishRead() {
    reader_has_read_ = false;
    reader_running_ = false;
    TakeFromSocket();
  }

  void TakeFromSocket() {
    rmem_ -= truesize_;
    --socket_packets_;
    ++result_.packets_read;
  }

  // --- CPU time: charge dt to what each CPU was doing since the previous event.
  void Account(int64_t dt) {
    SimCpuTime& nic = result_.softirq_cpu;
    const bool reader_shares = s_.app.placement == AppPlacement::kSameCpuAsSoftirq;
    switch (phase_) {
      case Phase::kHardIrq:
        nic.hardirq_ns += dt;
        break;
      case Phase::kSoftirq:
        nic.softirq_ns += dt;
        break;
      case Phase::kIdle:
      case Phase::kSqueezeYield:
        (reader_shares && reader_running_ ? nic.user_ns : nic.idle_ns) += dt;
        break;
    }
    SimCpuTime& own = result_.reader_cpu;
    (!reader_shares && reader_running_ ? own.user_ns : own.idle_ns) += dt;
  }

  SimResult Finish() {
    result_.in_ring_at_end = RingCount();
    result_.in_socket_at_end = socket_packets_;
    result_.peak_socket_fill =
        s_.rcvbuf_bytes > 0
            ? static_cast<double>(result_.peak_socket_bytes) / static_cast<double>(s_.rcvbuf_bytes)
            : 0;
    result_.moderation_changes = moderator_.changes();
    result_.final_interval_ns = moderator_.IntervalNs();
    const double seconds = static_cast<double>(s_.duration_ns) / 1e9;
    result_.interrupts_per_s = static_cast<double>(result_.interrupts) / seconds;
    result_.socket_drops_per_s = static_cast<double>(result_.socket_drops) / seconds;
    result_.ring_drops_per_s = static_cast<double>(result_.ring_drops) / seconds;
    return result_;
  }

  const SimScenario& s_;
  SimArrivals arrivals_;
  SimGaps gaps_;
  SimModerator moderator_;
  const int64_t truesize_;
  SimResult result_;
  int64_t now_ = 0;
  int64_t next_arrival_ = 0;

  std::vector<int64_t> ring_;
  size_t ring_head_ = 0;
  size_t ring_count_ = 0;

  bool irq_armed_ = true;
  int64_t irq_deadline_ = kNever;

  Phase phase_ = Phase::kIdle;
  Step step_ = Step::kPollCall;
  int64_t kernel_done_ = kNever;
  int64_t budget_left_ = 0;
  int64_t time_limit_ = 0;
  int64_t poll_work_ = 0;
  int64_t poll_limit_ = 0;
  uint64_t cycle_packets_ = 0;
  uint64_t moderation_packets_ = 0;
  uint64_t moderation_bytes_ = 0;

  int64_t rmem_ = 0;
  uint64_t socket_packets_ = 0;

  bool reader_has_read_ = false;
  bool reader_running_ = false;
  int64_t reader_done_ = kNever;
  int64_t reader_remaining_ = 0;
  int64_t batch_used_ = 0;
};

}  // namespace

absl::StatusOr<SimResult> Simulate(const SimScenario& scenario) {
  if (absl::Status status = ValidateScenario(scenario); !status.ok()) return status;
  return Run(scenario).Go();
}

}  // namespace nictune::tuner
