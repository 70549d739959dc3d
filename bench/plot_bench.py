#!/usr/bin/env python3
"""Plots of quire-bench's int8 JSON runs (quire-bench --json FILE).

    python3 bench/plot_bench.py --out DIR RUN.json [RUN2.json ...]

Writes, as PNG and SVG:
  gops.{png,svg}      per-shape GOPS of quire (u8 and int32) and of each baseline in the
                      first run, with the measured peak, on a log scale;
  roofline.{png,svg}  arithmetic intensity (ops per byte of A, B and C) against GOPS, under
                      the measured peak and the DRAM (memcpy) bandwidth line; warm runs
                      sit above that line where the operands stay in cache;
  scaling.{png,svg}   when runs with different --threads are given: GOPS of each run over
                      the 1-thread run (or the fewest-thread run), shape by shape.
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_bench.py needs matplotlib: apt-get install python3-matplotlib")


def shape_name(s):
    return f"{s['M']}x{s['N']}x{s['K']}"


def gops(shape, key):
    m = shape.get(key)
    return m["gops"] if m else None


def load(path):
    with open(path) as f:
        run = json.load(f)
    if "shapes" not in run or "peak" not in run:
        sys.exit(f"{path}: not an int8 quire-bench --json run")
    return run


def title(run, what):
    return f"{what}: {run['cpu']}, {run['isa']}, {run['threads']} thread(s)"


def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_gops(run, out):
    shapes = run["shapes"]
    names = [shape_name(s) for s in shapes]
    u8 = run["output"] == "u8"
    series = [("quire u8" if u8 else "quire int32", "quire", "#1f5fa8")]
    if u8:
        series.append(("quire int32", "quire_int32", "#7fb0e0"))
    series.append(("oneDNN int32", "onednn", "#d9822b"))
    series.append(("OpenBLAS fp32 (GFLOPS)", "openblas", "#7a7a7a"))
    series = [s for s in series if any(gops(x, s[1]) for x in shapes)]

    fig, ax = plt.subplots(figsize=(min(18, max(8, 0.14 * len(shapes) * len(series))), 5))
    width = 0.8 / len(series)
    for i, (label, key, color) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(shapes))]
        ys = [gops(s, key) or 0 for s in shapes]
        ax.bar(xs, ys, width, label=label, color=color)
    peak = run["peak"]
    if peak:
        ax.axhline(peak["gops"], color="#b22222", linestyle="--", linewidth=1)
        ax.text(-0.5, peak["gops"], f" measured peak {peak['gops']:.0f} GOPS",
                color="#b22222", ha="left", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("GOPS (2*M*N*K / time)")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title(title(run, "int8 GEMM per shape"))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", which="both", alpha=0.3)
    save(fig, out, "gops")


def plot_roofline(run, out):
    c_bytes = 1 if run["output"] == "u8" else 4
    points = []
    for s in run["shapes"]:
        ops = 2.0 * s["M"] * s["N"] * s["K"]
        moved = s["M"] * s["K"] + s["K"] * s["N"] + c_bytes * s["M"] * s["N"]
        points.append((ops / moved, s["quire"]["gops"], shape_name(s)))

    fig, ax = plt.subplots(figsize=(8, 5.5))
    xs = [p[0] for p in points]
    ax.scatter(xs, [p[1] for p in points], color="#1f5fa8", zorder=3, label="quire")
    for x, y, name in points:
        ax.annotate(name, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    lo, hi = min(xs) / 2, max(xs) * 2
    peak = run["peak"]
    bandwidth = run.get("copy_bandwidth_gbs") or 0
    if bandwidth:
        # memcpy moves each byte twice (read + write): a kernel that only reads its operands
        # once can stream at about this rate.
        roof = [(x, bandwidth * x) for x in (lo, hi)]
        if peak:
            ridge = peak["gops"] / bandwidth
            roof = [(lo, bandwidth * lo), (ridge, peak["gops"]), (hi, peak["gops"])]
            roof = [p for p in roof if lo <= p[0] <= hi] or roof
        ax.plot([p[0] for p in roof], [p[1] for p in roof], color="#b22222", linewidth=1.2,
                label=f"roof: DRAM {bandwidth:.1f} GB/s (memcpy), {peak['gops']:.0f} GOPS peak"
                if peak else f"DRAM {bandwidth:.1f} GB/s (memcpy)")
    elif peak:
        ax.axhline(peak["gops"], color="#b22222", linewidth=1.2, label="measured peak")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (ops per byte of A + B + C)")
    ax.set_ylabel("GOPS")
    ax.set_title(title(run, "roofline"))
    ax.legend(fontsize=8)
    ax.grid(which="both", alpha=0.3)
    save(fig, out, "roofline")


def plot_scaling(runs, out):
    by_threads = {}
    for run in runs:
        by_threads.setdefault(run["threads"], run)
    if len(by_threads) < 2:
        return False
    base_threads = min(by_threads)
    base = {shape_name(s): s["quire"]["gops"] for s in by_threads[base_threads]["shapes"]}
    fig, ax = plt.subplots(figsize=(9, 5))
    names = [n for n in base]
    for threads, run in sorted(by_threads.items()):
        if threads == base_threads:
            continue
        ratio = {shape_name(s): s["quire"]["gops"] / base[shape_name(s)]
                 for s in run["shapes"] if shape_name(s) in base}
        ax.plot(range(len(names)), [ratio.get(n, math.nan) for n in names], marker="o",
                label=f"{threads} threads / {base_threads}")
        ax.axhline(threads / base_threads, color="#888888", linestyle=":", linewidth=1)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speed-up over the fewest-thread run")
    ax.set_title(title(by_threads[base_threads], "thread scaling").replace(
        f", {base_threads} thread(s)", ""))
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    save(fig, out, "scaling")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder for the PNG and SVG files")
    parser.add_argument("runs", nargs="+", help="quire-bench --json files (int8 mode)")
    args = parser.parse_args()
    runs = [load(p) for p in args.runs]
    os.makedirs(args.out, exist_ok=True)
    first = min(runs, key=lambda r: r["threads"])
    plot_gops(first, args.out)
    plot_roofline(first, args.out)
    written = ["gops", "roofline"] + (["scaling"] if plot_scaling(runs, args.out) else [])
    print(f"plot_bench.py: wrote {', '.join(n + '.png/.svg' for n in written)} to {args.out}")


if __name__ == "__main__":
    main()
