// SPDX-License-Identifier: Apache-2.0
#include "agent/queue_view.h"

#include "gtest/gtest.h"

namespace nictune::agent {
namespace {

model::Window TwoQueueWindow() {
  model::Window w;
  w.seconds = 1;
  w.irqs = {{.irq = 41, .count = 12000, .per_s = 12000, .handler_time_share = 0.01}};
  w.napis = {{.napi_id = 8193, .ifindex = 2, .device = "eth0", .polls = 15000,
              .polls_per_s = 15000, .packets_per_poll = 54.2, .budget_exhausted_fraction = 0.3,
              .rx_share = 0.85}};
  model::CpuWindow cpu0{.cpu = 0};
  cpu0.split = model::CpuSplit{.user = 0.2, .hardirq = 0.02, .softirq = 0.4, .idle = 0.38};
  model::CpuWindow cpu1{.cpu = 1};
  cpu1.split = model::CpuSplit{.user = 0.5, .hardirq = 0.0, .softirq = 0.2, .idle = 0.3};
  w.cpus = {cpu0, cpu1};
  return w;
}

TEST(BuildQueueWindowsTest, JoinsIrqNapiAndCpusOfEachQueue) {
  const std::vector<collect::QueueBinding> bindings = {
      {.device = "eth0", .ifindex = 2, .queue = 0, .kind = collect::QueueKind::kCombined,
       .irq = 41, .cpus = {0, 1}, .napi_id = 8193, .source = collect::kSourceNetdevNetlink},
      {.device = "eth0", .ifindex = 2, .queue = 1, .kind = collect::QueueKind::kCombined,
       .irq = 42, .cpus = {1}, .napi_id = 8194, .source = collect::kSourceNetdevNetlink}};
  const auto queues = BuildQueueWindows(TwoQueueWindow(), bindings);
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_DOUBLE_EQ(*queues[0].interrupts_per_s, 12000);
  EXPECT_DOUBLE_EQ(*queues[0].packets_per_poll, 54.2);
  EXPECT_DOUBLE_EQ(*queues[0].rx_share, 0.85);
  EXPECT_DOUBLE_EQ(*queues[0].cpu_softirq_share, 0.3);  // mean of cpu 0 (0.4) and cpu 1 (0.2)
  // Queue 1's irq did not fire: zero interrupts, and its NAPI instance did not poll: unknown.
  EXPECT_DOUBLE_EQ(*queues[1].interrupts_per_s, 0);
  EXPECT_FALSE(queues[1].polls_per_s.has_value());
  EXPECT_DOUBLE_EQ(*queues[1].cpu_softirq_share, 0.2);
}

TEST(BuildQueueWindowsTest, WithoutNapiIdADevicesOnlyInstanceIsUsed) {
  const std::vector<collect::QueueBinding> bindings = {
      {.device = "eth0", .ifindex = 2, .queue = 0, .irq = 41, .source = collect::kSourceIrqName}};
  auto w = TwoQueueWindow();
  auto queues = BuildQueueWindows(w, bindings);
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_DOUBLE_EQ(*queues[0].polls_per_s, 15000);
  EXPECT_FALSE(queues[0].cpu_softirq_share.has_value());  // no cpus known
  // With two instances on the device the queue's cannot be told apart.
  w.napis.push_back({.napi_id = 8194, .ifindex = 2, .device = "eth0", .polls = 1});
  queues = BuildQueueWindows(w, bindings);
  EXPECT_FALSE(queues[0].polls_per_s.has_value());
}

TEST(BuildQueueWindowsTest, QueuesOnlyTheirDevicesCountersNameGetRowsOfTheirOwn) {
  // A TAP's four queues: no irq, no napi id, a poller thread each; the NIC counts per queue.
  model::Window w;
  w.seconds = 1;
  model::EmulatedNicWindow nic{.device = "emu0"};
  for (uint32_t queue = 0; queue < 2; ++queue) {
    nic.queues.push_back({.queue = queue,
                          .napi_thread = 700 + queue,
                          .interrupts_per_s = 300.0 * (queue + 1)});
    w.napis.push_back({.ifindex = 5,
                       .thread_pid = 700 + queue,
                       .device = "emu0",
                       .polls_per_s = 600.0 * (queue + 1),
                       .packets_per_poll = 1.5 + queue});
  }
  w.emulated_nics = {nic};
  const auto queues = BuildQueueWindows(w, {});
  ASSERT_EQ(queues.size(), 2u);
  for (uint32_t queue = 0; queue < 2; ++queue) {
    const QueueWindow& q = queues[queue];
    EXPECT_EQ(q.binding.device, "emu0");
    EXPECT_EQ(q.binding.queue, static_cast<int>(queue));
    EXPECT_EQ(q.binding.source, collect::kSourceNicCounters);
    EXPECT_EQ(q.binding.napi_thread, 700 + queue);
    EXPECT_DOUBLE_EQ(*q.interrupts_per_s, 300.0 * (queue + 1));
    EXPECT_DOUBLE_EQ(*q.packets_per_poll, 1.5 + queue);  // its own thread's instance
  }
  // A device the map has rows for keeps those rows alone.
  const std::vector<collect::QueueBinding> mapped = {
      {.device = "emu0", .queue = 0, .napi_id = 9000, .source = collect::kSourceNetdevNetlink}};
  EXPECT_EQ(BuildQueueWindows(w, mapped).size(), 1u);
}

// Threaded NAPI: a queue whose binding names its poller thread shows the poller's share of a CPU;
// a pid of another device's is not its poller, and a queue polled in softirq has none. (A TAP's
// queues, named by their counters, carry the thread the same way.)
TEST(BuildQueueWindowsTest, AThreadedQueueShowsItsPollersShareOfACpu) {
  model::Window w = TwoQueueWindow();
  w.napi_pollers = {
      {.poller = {.pid = 812, .device = "eth0", .queue = 0, .napi_id = 8193}, .cpu_share = 0.35},
      {.poller = {.pid = 813, .device = "eth1", .queue = 1}, .cpu_share = 0.5}};
  const auto netlink_queue = [](int queue, std::optional<uint32_t> napi_thread) {
    return collect::QueueBinding{.device = "eth0",
                                 .ifindex = 2,
                                 .queue = queue,
                                 .napi_id = 8193 + static_cast<uint32_t>(queue),
                                 .napi_thread = napi_thread,
                                 .source = collect::kSourceNetdevNetlink};
  };
  const std::vector<collect::QueueBinding> bindings = {netlink_queue(0, 812), netlink_queue(1, 813),
                                                       netlink_queue(2, std::nullopt)};
  const auto queues = BuildQueueWindows(w, bindings);
  ASSERT_EQ(queues.size(), 3u);
  EXPECT_DOUBLE_EQ(queues[0].napi_poller_share.value_or(-1), 0.35);
  EXPECT_DOUBLE_EQ(*queues[0].packets_per_poll, 54.2);  // its instance's, by napi id
  EXPECT_FALSE(queues[1].napi_poller_share.has_value());
  EXPECT_FALSE(queues[2].napi_poller_share.has_value());
}

}  // namespace
}  // namespace nictune::agent
