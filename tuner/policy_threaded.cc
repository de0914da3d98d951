// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_threaded.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"

namespace nictune::tuner {
namespace {

// Whether threads would relieve the CPUs of `pressure`'s busiest queue, and with how much idle
// elsewhere: the host's idle CPUs outside that queue's serving CPUs.
struct ThreadingRelief {
  bool relieves = false;
  double idle_elsewhere_cpus = 0;
};

ThreadingRelief AssessThreading(const Observation& obs, const CpuPressure& pressure,
                                const PolicyConfig& config) {
  ThreadingRelief relief;
  const double serving_idle = pressure.cpu.idle * static_cast<double>(pressure.serving_cpus);
  relief.idle_elsewhere_cpus = std::max(0.0, obs.idle_cpus - serving_idle);
  relief.relieves =
      pressure.starving && relief.idle_elsewhere_cpus >= config.threaded_min_idle_cpus;
  return relief;
}

Recommendation ThreadedBase(const QueueObservation& queue, const CpuPressure& p,
                            const ThreadingRelief& relief, const Confidence& confidence) {
  Recommendation r =
      Unchanged(Knob::kNapiThreaded, Scope::kDevice, queue.device, queue.napi_threaded, confidence);
  r.inputs = {{"softirq_share", p.cpu.softirq, "fraction"},
              {"user_share", p.cpu.user, "fraction"},
              {"idle_share", p.cpu.idle, "fraction"},
              {"idle_elsewhere", relief.idle_elsewhere_cpus, "CPUs"}};
  r.expected_effect = "no change";
  return r;
}

// Why a device keeps its mode; empty when it switches.
std::string ThreadedKeepReason(const QueueObservation& queue, const CpuPressure& p,
                               const ThreadingRelief& relief, const PolicyConfig& config) {
  if (queue.napi_threaded > 0) {
    return absl::StrFormat("%s polls in kernel threads already (threaded %d) -> keep", queue.device,
                           queue.napi_threaded);
  }
  if (!p.starving) {
    return absl::StrFormat(
        "%s; no queue of %s starves user space (softirq >= %.2f, user < %.2f, no idle) -> keep "
        "napi_threaded 0",
        p.summary, queue.device, config.softirq_cap, config.user_fair_share);
  }
  if (!relief.relieves) {
    return absl::StrFormat(
        "%s; softirq starves user space, but the rest of the host idles %.2f CPUs, below %.2f: "
        "no CPU for the threads to go to (the budgets share the CPU instead) -> keep "
        "napi_threaded 0",
        p.summary, relief.idle_elsewhere_cpus, config.threaded_min_idle_cpus);
  }
  return "";
}

Recommendation RecommendForDevice(const Observation& obs, const QueueObservation& queue,
                                  const PolicyConfig& config) {
  const CpuPressure p = AssessCpuPressure(obs, config, queue.device);
  const ThreadingRelief relief = AssessThreading(obs, p, config);
  Recommendation r = ThreadedBase(queue, p, relief, ConfidenceFrom(obs, p.rx_packets, config));
  r.formula = ThreadedKeepReason(queue, p, relief, config);
  if (!r.formula.empty()) return r;
  r.recommended = 1;
  r.formula = absl::StrFormat(
      "%s; softirq >= cap %.2f and user < fair share %.2f with no idle, while the rest of the "
      "host idles %.2f CPUs (host %.2f - serving %d x %.2f) >= %.2f -> napi_threaded 1",
      p.summary, config.softirq_cap, config.user_fair_share, relief.idle_elsewhere_cpus,
      obs.idle_cpus, p.serving_cpus, p.cpu.idle, config.threaded_min_idle_cpus);
  r.expected_effect = absl::StrFormat(
      "%s's NAPI polls run in kernel threads the scheduler moves to idle CPUs and shares with "
      "user space (netdev_budget no longer bounds them)",
      queue.device);
  r.expected_gain =
      std::clamp((config.user_fair_share - p.cpu.user) / config.user_fair_share, 0.0, 1.0);
  return r;
}

}  // namespace

std::vector<Recommendation> RecommendThreaded(const Observation& obs, const PolicyConfig& config) {
  std::vector<Recommendation> out;
  std::set<std::string> seen;
  for (const QueueObservation& queue : obs.queues) {
    if (queue.napi_threaded < 0 || !seen.insert(queue.device).second) continue;
    out.push_back(RecommendForDevice(obs, queue, config));
  }
  return out;
}

std::optional<std::string> DeviceToThread(const Observation& obs, const CpuPressure& host,
                                          const PolicyConfig& config) {
  if (!host.starving) return std::nullopt;
  const auto queue = std::find_if(obs.queues.begin(), obs.queues.end(),
                                  [&](const auto& q) { return q.device == host.busiest_device; });
  if (queue == obs.queues.end() || queue->napi_threaded != 0) return std::nullopt;
  if (!AssessThreading(obs, host, config).relieves) return std::nullopt;
  return host.busiest_device;
}

std::string ThreadsFirstFormula(const CpuPressure& host, const std::string& device) {
  return absl::StrFormat(
      "%s; softirq starves user space, and napi_threaded on %s moves its polls to the host's idle "
      "CPUs, where a shorter quota would only share the one CPU -> keep (threads first)",
      host.summary, device);
}

}  // namespace nictune::tuner
