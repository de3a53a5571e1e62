"""Timing the same way everywhere: interleaved runs, medians."""

from __future__ import annotations

import gc
import os
import resource
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# BENCH_QUICK=1: one run of each measure at small sizes (tests/integration/test_bench_quick.py
# runs them so in `make test`, so that the bench cannot rot); its figures mean nothing.
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
# Medians of RUNS runs (at least 5, as the issue asks; 5 keeps `make bench` within its 10
# minutes); BENCH_RUNS raises it.
RUNS = 1 if QUICK else max(5, int(os.environ.get("BENCH_RUNS", "5")))


def median(samples: list[float]) -> float:
    return statistics.median(samples)


@contextmanager
def own_garbage_only() -> Iterator[None]:
    """Each sample pays for the collections its own allocations trigger, not for what the
    session or the sample before it left: the heap so far is frozen (never traversed), and
    every sampler collects before it starts its clock."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def percentile(samples: list[float], share: float) -> float:
    """The `share` (0.95: p95) percentile of samples, interpolated between the nearest two
    (the median for 0.5); the one sample when there is one."""
    if len(samples) == 1:
        return samples[0]
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[round(share * 100) - 1]


def samples_interleaved(
    subjects: dict[str, Callable[[], float]], runs: int = RUNS
) -> dict[str, list[float]]:
    """`runs` samples of each subject, taken round-robin so that the machine's drift (other
    load, frequency, caches) spreads over all subjects alike."""
    samples: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(runs):
        for name, sample in subjects.items():
            samples[name].append(sample())
    return samples


def interleaved(subjects: dict[str, Callable[[], float]], runs: int = RUNS) -> dict[str, float]:
    """Median of `runs` samples of each subject, taken round-robin (`samples_interleaved`)."""
    found = samples_interleaved(subjects, runs)
    return {name: median(values) for name, values in found.items()}


def per_call_us(call: Callable[[], object], budget_s: float = 0.1) -> Callable[[], float]:
    """A sampler: CPU microseconds per call, averaged over enough calls to fill `budget_s`.

    Process CPU time, not wall time: the calls are pure CPU work (DynamoDB is a stub), so
    on an idle machine the two agree, and on a busy one CPU time leaves the other
    processes' share out.
    """
    clock = time.process_time
    budget_s = budget_s / 20 if QUICK else budget_s
    start = clock()
    calls = 0
    while clock() - start < budget_s / 4:  # calibrate (and warm up)
        call()
        calls += 1
    per_call = (clock() - start) / calls
    batch = max(20, int(budget_s / per_call))

    def sample() -> float:
        gc.collect()
        begin = clock()
        for _ in range(batch):
            call()
        return (clock() - begin) / batch * 1e6

    return sample


def cpu_seconds() -> float:
    """CPU time of this process and of its children, running or ended (a large page is
    analysed in a worker process: its work counts)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime + _running_children()


def _running_children() -> float:
    """CPU seconds of this process's running children, to the nanosecond (`schedstat`: a
    waiting worker's figure is up to date; `stat`'s ticks are 10 ms)."""
    total = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as listed:
                pids = listed.read().split()
        except FileNotFoundError:  # a thread that has ended
            continue
        for pid in pids:
            try:
                with open(f"/proc/{pid}/schedstat") as stat:
                    total += int(stat.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):  # it has just ended
                continue
    return total / 1e9


def ms(call: Callable[[], object]) -> Callable[[], float]:
    """A sampler: CPU milliseconds of one call, its child processes' included (pure CPU
    work, as in `per_call_us`)."""

    def sample() -> float:
        gc.collect()
        begin = cpu_seconds()
        call()
        return (cpu_seconds() - begin) * 1000

    return sample
