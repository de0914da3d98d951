// SPDX-License-Identifier: Apache-2.0
// Parse cost of the procfs files the agent reads every interval, on this host's recorded 2-CPU
// files and on synthetic 256-CPU ones shaped like a large NIC host (1024 MSI-X vectors).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/softnet_stat.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

std::string FixtureOrDie(const std::string& relative) {
  const std::filesystem::path fixtures = testing_support::FixturesDir();
  absl::StatusOr<std::string> text = ReadFile((fixtures / relative).native());
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.status().ToString().c_str());
    std::abort();
  }
  return *text;
}

// The kernel's own layout (kernel/irq/proc.c): "%*d:", " %10d" per CPU, chip, hwirq-flow, names.
std::string SyntheticInterrupts(int cpus, int vectors) {
  std::string text(6, ' ');
  for (int cpu = 0; cpu < cpus; ++cpu) absl::StrAppendFormat(&text, "CPU%-8d", cpu);
  text += "\n";
  for (int irq = 0; irq < vectors; ++irq) {
    absl::StrAppendFormat(&text, "%5d:", irq + 32);
    for (int cpu = 0; cpu < cpus; ++cpu) {
      absl::StrAppendFormat(&text, " %10d", cpu == irq % cpus ? 123456789 + irq : 0);
    }
    absl::StrAppendFormat(&text, "  IR-PCI-MSIX-0000:%02x:00.%d %6d-edge      eth%d-TxRx-%d\n",
                          0x3b + irq / 256, (irq / 64) % 4, 524288 + irq, irq / 256, irq % 256);
  }
  for (const char* name : {"NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "RES", "CAL", "TLB", "TRM",
                           "THR", "DFR", "MCE", "MCP"}) {
    absl::StrAppendFormat(&text, "%5s:", name);
    for (int cpu = 0; cpu < cpus; ++cpu) absl::StrAppendFormat(&text, " %10d", 98211043 + cpu);
    text += "   Some interrupts\n";
  }
  text += "  ERR:          0\n  MIS:          0\n";
  return text;
}

std::string SyntheticSoftnet(int cpus) {
  std::string text;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    absl::StrAppendFormat(&text,
                          "%08x %08x %08x 00000000 00000000 00000000 00000000 00000000 00000000 "
                          "%08x 00000000 00000000 %08x 00000000 00000000\n",
                          0x0358fe30 + cpu, cpu % 7, 0x41 + cpu, 0x855fc + cpu, cpu);
  }
  return text;
}

void ParseInterruptsOf(benchmark::State& state, const std::string& text) {
  size_t lines = 0;
  for (auto _ : state) {
    absl::StatusOr<InterruptTable> table = ParseInterrupts(text);
    if (!table.ok()) {
      state.SkipWithError(table.status().ToString().c_str());
      return;
    }
    lines = table->lines.size();
    benchmark::DoNotOptimize(table);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["lines"] = static_cast<double>(lines);
  state.counters["bytes"] = static_cast<double>(text.size());
}

void ParseSoftnetOf(benchmark::State& state, const std::string& text) {
  size_t rows = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<SoftnetRow>> parsed = ParseSoftnetStat(text);
    if (!parsed.ok()) {
      state.SkipWithError(parsed.status().ToString().c_str());
      return;
    }
    rows = parsed->size();
    benchmark::DoNotOptimize(parsed);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_ParseInterrupts_Recorded2Cpu(benchmark::State& state) {
  ParseInterruptsOf(state, FixtureOrDie("interrupts/x86_64_6.18_2cpu.txt"));
}
BENCHMARK(BM_ParseInterrupts_Recorded2Cpu);

void BM_ParseInterrupts_Synthetic256Cpu1024Vectors(benchmark::State& state) {
  ParseInterruptsOf(state, SyntheticInterrupts(256, 1024));
}
BENCHMARK(BM_ParseInterrupts_Synthetic256Cpu1024Vectors)->Unit(benchmark::kMicrosecond);

void BM_ParseSoftnet_Recorded2Cpu(benchmark::State& state) {
  ParseSoftnetOf(state, FixtureOrDie("softnet_stat/x86_64_6.18_2cpu_15col.txt"));
}
BENCHMARK(BM_ParseSoftnet_Recorded2Cpu);

void BM_ParseSoftnet_Synthetic256Cpu(benchmark::State& state) {
  ParseSoftnetOf(state, SyntheticSoftnet(256));
}
BENCHMARK(BM_ParseSoftnet_Synthetic256Cpu);

// What one sample costs end to end on this host: the kernel formatting the file plus the parse.
void BM_ReadAndParseLiveProcInterrupts(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<std::string> text = ReadFile("/proc/interrupts");
    if (!text.ok()) {
      state.SkipWithError(text.status().ToString().c_str());
      return;
    }
    absl::StatusOr<InterruptTable> table = ParseInterrupts(*text);
    benchmark::DoNotOptimize(table);
  }
}
BENCHMARK(BM_ReadAndParseLiveProcInterrupts);

}  // namespace
}  // namespace nictune::procfs

BENCHMARK_MAIN();
