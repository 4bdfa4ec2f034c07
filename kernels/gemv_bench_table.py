#!/usr/bin/env python3
"""Runs ck-kernel-bench's GEMV and bandwidth benchmarks and prints the
markdown table of docs/kernels.md (medians of the repetitions, each GEMV as a
fraction of the read bandwidth measured with the same thread count).

usage: kernels/gemv_bench_table.py BUILD_DIR [REPETITIONS]
"""
import json
import platform
import re
import subprocess
import sys
import time


def main():
    build, reps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    out = subprocess.run(
        [f"{build}/bin/ck-kernel-bench", "--benchmark_filter=BM_gemv/Q|read_bandwidth",
         f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true",
         "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    rows = {}
    bandwidth = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"]
        if name.startswith("BM_read_bandwidth"):
            bandwidth[int(re.search(r"threads:(\d+)", name).group(1))] = b["GB/s"]
            continue
        m = re.match(r"BM_gemv/(\w+)/rows:(\d+)/cols:(\d+)/threads:(\d+)", name)
        dt, r, c, t = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        rows[(dt, r, c, t)] = b["GB/s"]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"{cpu}, {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"medians of {reps} runs. Read bandwidth: 1 thread {bandwidth[1]:.1f} GB/s, 2 threads {bandwidth[2]:.1f} GB/s.\n")
    print("| dtype | matrix | 1 thread GB/s | % of bw | 2 threads GB/s | % of bw |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (dt, r, c, t), gbs in sorted(rows.items()):
        if t != 1:
            continue
        two = rows[(dt, r, c, 2)]
        print(f"| {dt} | {r}x{c} | {gbs:.2f} | {100 * gbs / bandwidth[1]:.0f} % | {two:.2f} | {100 * two / bandwidth[2]:.0f} % |")


if __name__ == "__main__":
    main()
