"""CLI latency: start-up (``--version``, ``--help``) and ``hierdoc search`` per mode.

Start-up: ``hierdoc --version``, ``hierdoc --help`` and ``hierdoc search --help`` each
run as a new process, interleaved with ``python -c pass`` (the interpreter alone, the
baseline), so that the machine's load touches them alike; the table gives each
command's median and 95th percentile, and its median minus the baseline's (what
hierdoc's imports cost). ``--startup-only`` measures this part alone (no index needed).

Search: from process start to output, per mode, before and after.

Each run is a new ``hierdoc search QUERY --mode M --json`` process on a GDPR index;
the time is from starting it to its exit (all output written). "before" sets
``HIERDOC_QUERY_EMBEDDER=torch`` (queries embedded by sentence-transformers on torch, as
hierdoc did before), "after" leaves the default (the numpy query embedder). Runs of
the two variants and of every mode are interleaved, so that a change in the machine's
load touches them alike. The results of both variants are compared: the chunk ids
each returns for the same query and mode.

Run:  python benchmarks/cli_latency.py [--index DIR] [--runs 20] [--startup-only]
(without --index, the GDPR index is built once in a temporary directory).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from hierdoc.eval.datasets import default_datasets

DATASETS = default_datasets()
GDPR_MD = DATASETS / "gdpr" / "gdpr.md"
MODES = ("hybrid", "semantic", "keyword", "exact")
VARIANTS = {"before": "torch", "after": "numpy"}
QUERIES = [
    "right to be forgotten",
    "What is a data protection officer?",
    "fines for infringements of the regulation",
    "DPIA",
    "children's consent to information society services",
    "Article 17(3)(b)",
    "transfers of personal data to third countries",
    "personal data breach notification to the supervisory authority",
    '"legitimate interests"',
    "profiling and automated decision-making",
    "processor contract obligations",
    "one-stop shop lead supervisory authority",
    "right of access by the data subject",
    "certification mechanisms and seals",
    "pseudonymisation",
    "compensation and liability",
    "data portability",
    "records of processing activities",
    "codes of conduct",
    "sensitive data about health and genetics",
]


def hierdoc_command() -> list[str]:
    """The ``hierdoc`` script next to this Python, else the CLI through ``-c``."""
    script = Path(sys.executable).with_name("hierdoc")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from hierdoc.cli import main; main()"]


def build_index(directory: Path) -> None:
    started = time.perf_counter()
    subprocess.run(
        [*hierdoc_command(), "--index", str(directory), "ingest", str(GDPR_MD)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print(f"built {directory} in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def run_once(index: Path, query: str, mode: str, variant: str) -> tuple[float, list[str]]:
    """Seconds from process start to exit, and the chunk ids printed."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HIERDOC_QUERY_EMBEDDER": VARIANTS[variant]}
    command = [*hierdoc_command(), "--index", str(index), "search", query, "--mode", mode]
    started = time.perf_counter()
    done = subprocess.run([*command, "--json"], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")
    results = json.loads(done.stdout)["results"]
    return elapsed, [hit["chunk_id"] for hit in results]


STARTUP_COMMANDS = {
    "python -c pass": [],
    "hierdoc --version": ["--version"],
    "hierdoc --help": ["--help"],
    "hierdoc search --help": ["search", "--help"],
    "hierdoc ingest --help": ["ingest", "--help"],
}
"""What the start-up table times; the first (no hierdoc arguments) is the baseline."""


def startup_command(arguments: list[str]) -> list[str]:
    """``hierdoc ARGUMENTS``, or the bare interpreter (``python -c pass``) for none."""
    return [*hierdoc_command(), *arguments] if arguments else [sys.executable, "-c", "pass"]


def measure_startup(runs: int) -> dict[str, list[float]]:
    """Seconds from start to exit of each start-up command, ``runs`` times, interleaved."""
    times: dict[str, list[float]] = {name: [] for name in STARTUP_COMMANDS}
    for run in range(runs):
        names = list(STARTUP_COMMANDS)
        for name in names if run % 2 else reversed(names):
            command = startup_command(STARTUP_COMMANDS[name])
            started = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - started)
    return times


def startup_report(times: dict[str, list[float]]) -> str:
    baseline = statistics.median(times["python -c pass"])
    lines = [
        "| command | p50 s | p95 s | p50 minus `python -c pass` s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, values in times.items():
        p50 = statistics.median(values)
        lines.append(
            f"| `{name}` | {p50:.3f} | {percentile(values, 0.95):.3f} | {p50 - baseline:.3f} |"
        )
    return "\n".join(lines)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def measure(index: Path, runs: int) -> tuple[dict[tuple[str, str], list[float]], int, int]:
    """Times per (mode, variant), and how many query/mode pairs gave the same ids in both."""
    times: dict[tuple[str, str], list[float]] = {}
    same = compared = 0
    for run in range(runs):
        query = QUERIES[run % len(QUERIES)]
        for mode in MODES:
            ids = {}
            for variant in VARIANTS if run % 2 else reversed(VARIANTS):
                elapsed, ids[variant] = run_once(index, query, mode, variant)
                times.setdefault((mode, variant), []).append(elapsed)
            compared += 1
            same += ids["before"] == ids["after"]
        print(f"run {run + 1}/{runs} done", file=sys.stderr)
    return times, same, compared


def report(times: dict[tuple[str, str], list[float]], same: int, compared: int) -> str:
    lines = [
        "| mode | before p50 s | before p95 s | after p50 s | after p95 s | p50 speed-up |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for mode in MODES:
        before, after = times[(mode, "before")], times[(mode, "after")]
        b50, a50 = statistics.median(before), statistics.median(after)
        lines.append(
            f"| {mode} | {b50:.2f} | {percentile(before, 0.95):.2f} | {a50:.2f} | "
            f"{percentile(after, 0.95):.2f} | {b50 / a50:.1f}x |"
        )
    lines.append("")
    lines.append(f"Same chunk ids before and after: {same} of {compared} query/mode pairs.")
    return "\n".join(lines)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu = names[0] if names else cpu
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="a GDPR index to reuse (built if missing)")
    parser.add_argument("--runs", type=int, default=20, help="runs per mode and variant")
    parser.add_argument(
        "--startup-only", action="store_true", help="only the start-up table (no index)"
    )
    args = parser.parse_args()
    load_before = load_average()
    startup = measure_startup(args.runs)
    if args.startup_only:
        print(f"{date.today()}; {machine()}; {args.runs} runs per command")
        print(f"load average (1, 5, 15 min) at start: {load_before}; at end: {load_average()}\n")
        print(startup_report(startup))
        return
    with tempfile.TemporaryDirectory() as scratch:
        index = args.index or Path(scratch) / "gdpr"
        if not (index.is_dir() and any(index.iterdir())):
            build_index(index)
        load_before = load_average()
        times, same, compared = measure(index, args.runs)
    print(f"{date.today()}; {machine()}; {args.runs} runs per cell")
    print(f"load average (1, 5, 15 min) at start: {load_before}; at end: {load_average()}\n")
    print(startup_report(startup) + "\n")
    print(report(times, same, compared))


if __name__ == "__main__":
    main()
