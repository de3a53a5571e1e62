"""Work in a worker process stopped at a deadline: the answer, or None in time; a worker
kept for the next call, replaced when it is gone or retired, and ended with its parent."""

from __future__ import annotations

import os
import resource
import select
import signal
import threading
import time

import pytest

from sitelens.seo import timebox
from tests.fixtures import fresh


def echo(value: object) -> object:
    return value


def length(value: bytes) -> int:
    return len(value)


def process_id(_: object) -> int:
    return os.getpid()


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def broken(_: object) -> None:
    raise RuntimeError("bug")


SEEN: list[object] = []


def remember(value: object) -> int:
    SEEN.append(value)
    return len(SEEN)


def cpu_limit(_: object) -> list[float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return [usage.ru_utime + usage.ru_stime, resource.getrlimit(resource.RLIMIT_CPU)[0]]


def reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # no such child of ours: reaped, no zombie left behind
        return True
    return False


def test_the_answer_comes_back_as_json() -> None:
    assert timebox.call(echo, {"a": [1, "é", None]}, 5) == {"a": [1, "é", None]}


def test_a_request_and_an_answer_larger_than_a_pipe_buffer_go_whole() -> None:
    answer = ["x" * 1000] * 1000  # 1 MB; a pipe holds 64 KiB
    assert timebox.call(echo, answer, 5) == answer
    page = b"<title>shared</title>" * 100_000
    assert timebox.call(length, page, 5) == len(page)


def test_one_worker_answers_call_after_call() -> None:
    first = timebox.call(process_id, None, 5)
    assert first != os.getpid()
    assert [timebox.call(process_id, None, 5) for _ in range(3)] == [first] * 3
    timebox.stop_workers()
    assert reaped(first)


def test_work_that_does_not_finish_in_time_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    worker = timebox.call(process_id, None, 5)
    waits: list[int] = []  # the parent's waits for the answer, in milliseconds
    ends: list[int] = []  # how the worker ended, as waitpid reports it
    real_poll, real_waitpid = select.poll, os.waitpid

    class Poll:
        def __init__(self) -> None:
            self.real = real_poll()

        def register(self, fd: int, mask: int) -> None:
            self.real.register(fd, mask)

        def poll(self, timeout: int) -> list[tuple[int, int]]:
            waits.append(timeout)
            return self.real.poll(timeout)

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        found = real_waitpid(pid, options)
        ends.append(found[1])
        return found

    monkeypatch.setattr(timebox.select, "poll", Poll)
    monkeypatch.setattr(timebox.os, "waitpid", waitpid)
    assert timebox.call(sleep, 5, 0.2) is None
    assert all(0 < wait <= 200 for wait in waits)  # no wait beyond the 0.2 s given
    # the alive check on taking it, then the kill: still at work, so it wrote nothing
    assert ends[0] == 0 and len(ends) == 2
    assert os.WIFSIGNALED(ends[1]) and os.WTERMSIG(ends[1]) == signal.SIGKILL
    assert reaped(worker)
    assert timebox.call(process_id, None, 5) not in (worker, None)  # a new worker answers


def test_work_that_fails_gives_none_and_its_worker_goes_on() -> None:
    worker = timebox.call(process_id, None, 5)
    assert timebox.call(broken, None, 5) is None
    assert timebox.call(process_id, None, 5) == worker


def test_the_caller_is_unchanged() -> None:
    assert [timebox.call(remember, n, 5) for n in (1, 2)] == [1, 2]  # the worker's list
    assert SEEN == []


def test_a_worker_retires_after_its_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timebox, "MAX_CALLS", 2)  # read by the worker when it is forked
    pids = [timebox.call(process_id, None, 5) for _ in range(3)]
    assert pids[0] == pids[1] != pids[2]
    assert reaped(pids[0])


def test_a_worker_killed_while_idle_is_replaced() -> None:
    worker = timebox.call(process_id, None, 5)
    os.kill(worker, signal.SIGKILL)
    answer = timebox.call(process_id, None, 5)
    assert answer not in (worker, None)
    assert reaped(worker)


def test_calls_at_once_get_a_worker_each_and_two_are_kept() -> None:
    barrier = threading.Barrier(3)
    answers: list[object] = []

    def ask() -> None:
        barrier.wait()
        answers.append(timebox.call(process_id, None, 5))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert None not in answers and os.getpid() not in answers
    kept = {timebox.call(process_id, None, 5) for _ in range(4)}
    assert kept <= set(answers) and len(timebox._idle) <= timebox.MAX_IDLE_WORKERS


def test_a_worker_may_use_the_cpu_it_was_given_and_a_second_more() -> None:
    used, limit = timebox.call(cpu_limit, None, 5)
    assert used + 5 < limit <= used + 7  # the kernel stops it there, should we be gone


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return False


def test_a_worker_ends_with_its_parent() -> None:
    program = """
import os
from sitelens.seo import timebox

def worker_pid(_):
    return os.getpid()

print(timebox.call(worker_pid, None, 5))
"""
    worker = int(fresh.printed(program))
    deadline = time.monotonic() + 10
    while running(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not running(worker)


def test_what_checks_load_on_first_use_is_loaded_before_a_large_page_is_forked() -> None:
    """A child's lazy loads (language registries, stop words) die with it: in a fresh
    process, a large page is analysed with them loaded in the parent first, once."""
    program = """
import sys
from sitelens.seo import analysis
from sitelens.seo.page import Response, Site
body = b"<html lang='en'><title>Large</title><body>" + b"<p>Words here.</p>" * 8_000
site = Site(Response("https://example.com/", 200, {"content-type": "text/html"}, body, 0.0))
assert len(body) > analysis.IN_PROCESS_BYTES
print(sorted({"langcodes", "stopwordsiso"} & set(sys.modules)))
report = analysis.analyse(site)
print(sorted({"langcodes", "stopwordsiso"} & set(sys.modules)), report.results["title"]["passed"])
"""
    printed = fresh.printed(program)
    assert printed.split("\n")[:2] == ["[]", "['langcodes', 'stopwordsiso'] True"]


def test_workers_reaped_by_the_system_are_stopped_without_error() -> None:
    """Where the host ignores SIGCHLD, the kernel reaps ended children itself."""
    worker = timebox.call(process_id, None, 5)
    os.kill(worker, signal.SIGKILL)
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        deadline = time.monotonic() + 10
        while running(worker) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert timebox.call(process_id, None, 5) not in (worker, None)
        timebox.stop_workers()
    finally:
        signal.signal(signal.SIGCHLD, previous)
