// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic/emulated_nic.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/emulated/queue_flows.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

constexpr uint16_t kFirstSourcePort = 40000;

}  // namespace

int64_t EmulatedNic::NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

absl::StatusOr<std::unique_ptr<EmulatedNic>> EmulatedNic::Create(
    int epoll_fd, TapDevice& tap, ControlServer& server, const EmulatedNicTraffic& traffic,
    uint32_t tap_address, const EmulatedNicOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  const int signal_fd = signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) return netlink::ErrnoStatus("signalfd(SIGTERM, SIGINT)", errno);
  auto nic =
      std::unique_ptr<EmulatedNic>(new EmulatedNic(epoll_fd, signal_fd, tap, server, options));
  std::vector<int> fds = {signal_fd};
  for (size_t queue = 0; queue < tap.queues(); ++queue) fds.push_back(tap.fd(queue));
  for (int fd : fds) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
      return netlink::ErrnoStatus(absl::StrCat("epoll_ctl ADD fd ", fd), errno);
    }
  }
  // The peer's MAC is made up: locally administered, never on any real wire.
  const std::array<uint8_t, 6> peer_mac = {0x02, 0x6e, 0x69, 0x63, 0x74, 0x01};
  for (size_t flow = 0; flow < traffic.flows.size(); ++flow) {
    nic->flow_addresses_.push_back(FrameAddresses{
        .destination_mac = tap.mac(),
        .source_mac = peer_mac,
        .source_ip = options.peer_address,
        .destination_ip = tap_address,
        .source_port = static_cast<uint16_t>(kFirstSourcePort + flow % 20000),
        .destination_port = traffic.flows[flow].port,
    });
  }
  if (absl::Status added = nic->AddQueues(traffic, NowNs()); !added.ok()) return added;
  return nic;
}

absl::Status EmulatedNic::AddQueues(const EmulatedNicTraffic& traffic, int64_t start_ns) {
  absl::StatusOr<std::vector<std::vector<size_t>>> assigned =
      AssignFlowsToQueues(traffic.flows, tap_.queues());
  if (!assigned.ok()) return assigned.status();
  flow_places_.resize(traffic.flows.size());
  for (size_t queue = 0; queue < assigned->size(); ++queue) {
    std::vector<FlowSpec> flows;
    for (size_t flow : (*assigned)[queue]) {
      flow_places_[flow] = {queue, flows.size()};
      flows.push_back(traffic.flows[flow]);
    }
    absl::StatusOr<std::unique_ptr<NicEngine>> engine =
        NicEngine::Create(std::move(flows), traffic.ring_size, traffic.moderation, start_ns);
    if (!engine.ok()) return engine.status();
    queues_.push_back(RxQueue{.engine = std::move(*engine), .flows = (*assigned)[queue]});
  }
  return absl::OkStatus();
}

EmulatedNic::~EmulatedNic() { close(signal_fd_); }

void EmulatedNic::Fire(size_t queue, int64_t due_ns) {
  RxQueue& rx = queues_[queue];
  const int64_t started_ns = NowNs();
  const int64_t late_ns = std::max<int64_t>(0, started_ns - due_ns);
  rx.late_ns_total += late_ns;
  rx.late_ns_max = std::max(rx.late_ns_max, late_ns);
  if (late_ns > kStallNs) {
    ++rx.stalls;
    rx.stall_late_ns_total += late_ns;
  }
  const std::vector<PendingFrame> burst = rx.engine->TakeBurst();
  uint64_t bytes = 0;
  for (const PendingFrame& pending : burst) {
    const FlowSpec& flow = rx.engine->flows()[pending.flow];
    frame_.resize(static_cast<size_t>(flow.frame_bytes));
    BuildUdpFrame(flow_addresses_[rx.flows[pending.flow]], static_cast<uint16_t>(pending.sequence),
                  pending.sequence, frame_);
    if (tap_.Deliver(queue, frame_)) {
      ++rx.delivered;
      bytes += frame_.size();
    } else {
      ++rx.tap_errors;
    }
  }
  const int64_t finished_ns = NowNs();
  rx.flush_ns_total += finished_ns - started_ns;
  rx.engine->OnNapiComplete(finished_ns, burst.size(), bytes);
}

std::pair<size_t, int64_t> EmulatedNic::NextInterrupt() const {
  std::pair<size_t, int64_t> next = {0, kNever};
  for (size_t queue = 0; queue < queues_.size(); ++queue) {
    const int64_t due_ns = queues_[queue].engine->NextInterruptNs();
    if (due_ns < next.second) next = {queue, due_ns};
  }
  return next;
}

absl::Status EmulatedNic::WaitAndServe(int64_t timeout_ns) {
  epoll_event events[16];
  const timespec timeout = {.tv_sec = timeout_ns / 1'000'000'000,
                            .tv_nsec = timeout_ns % 1'000'000'000};
  const int ready = epoll_pwait2(epoll_fd_, events, 16, &timeout, nullptr);
  if (ready < 0) {
    if (errno == EINTR) return absl::OkStatus();
    return netlink::ErrnoStatus("epoll_pwait2", errno);
  }
  for (int i = 0; i < ready; ++i) {
    const int fd = events[i].data.fd;
    if (fd == signal_fd_) {
      signalfd_siginfo info{};
      while (read(signal_fd_, &info, sizeof(info)) == sizeof(info)) stop_ = true;
    } else if (fd == server_.listen_fd()) {
      server_.AcceptAll();
    } else if (server_.IsClient(fd)) {
      server_.Serve(fd, [this](const ControlRequest& request) { return Handle(request); });
    } else {
      for (size_t queue = 0; queue < tap_.queues(); ++queue) {
        if (fd == tap_.fd(queue)) tap_.DiscardTransmitted(queue);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status EmulatedNic::Run() {
  start_ns_ = NowNs();
  const int64_t end_ns = options_.duration > absl::ZeroDuration()
                             ? start_ns_ + absl::ToInt64Nanoseconds(options_.duration)
                             : kNever;
  while (!stop_) {
    int64_t now_ns = NowNs();
    if (now_ns >= end_ns) break;
    auto [queue, due_ns] = NextInterrupt();
    if (due_ns <= now_ns) {
      if (queues_[queue].engine->Advance(now_ns)) Fire(queue, due_ns);
      now_ns = NowNs();
      std::tie(queue, due_ns) = NextInterrupt();
    }
    const int64_t wake_ns = std::min(due_ns, end_ns);
    // Sleep until spin_ns before the deadline; from there poll without sleeping.
    const int64_t sleep_ns = std::max<int64_t>(0, wake_ns - now_ns - options_.spin_ns);
    if (absl::Status served = WaitAndServe(sleep_ns); !served.ok()) return served;
  }
  return absl::OkStatus();
}

EmulatedNicCounters EmulatedNic::QueueCounters(size_t queue) const {
  const RxQueue& rx = queues_[queue];
  const NicEngineCounters engine = rx.engine->counters();
  const ModerationSettings& settings = rx.engine->settings();
  return EmulatedNicCounters{
      .generated = engine.generated,
      .delivered = rx.delivered,
      .missed = engine.missed,
      .tap_errors = rx.tap_errors,
      .interrupts = engine.interrupts,
      .pending = rx.engine->pending(),
      .rx_usecs = settings.rx_usecs,
      .rx_frames = settings.rx_frames,
      .adaptive_rx = settings.adaptive_rx ? 1 : 0,
      .ring_size = rx.engine->ring_size(),
      .interval_ns = engine.interval_ns,
      .frame_threshold = engine.frame_threshold,
      .adaptive_changes = engine.adaptive_changes,
      .elapsed_ns = NowNs() - start_ns_,
      .late_ns_total = rx.late_ns_total,
      .late_ns_max = rx.late_ns_max,
      .stalls = rx.stalls,
      .stall_late_ns_total = rx.stall_late_ns_total,
      .flush_ns_total = rx.flush_ns_total,
      .queues = queues_.size(),
      .napi_thread = queue < options_.napi_threads.size() ? options_.napi_threads[queue] : 0,
  };
}

EmulatedNicCounters EmulatedNic::Counters() const {
  std::vector<EmulatedNicCounters> queues;
  for (size_t queue = 0; queue < queues_.size(); ++queue) queues.push_back(QueueCounters(queue));
  return SumQueueCounters(queues);
}

}  // namespace nictune::driver::emulated
