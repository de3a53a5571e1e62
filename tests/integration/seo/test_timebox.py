"""Work in a child process stopped at a deadline: the answer, or None in time."""

from __future__ import annotations

import os
import select
import signal
import time

import pytest

from sitelens.seo import timebox
from tests.fixtures import fresh


def test_the_answer_comes_back_as_json() -> None:
    assert timebox.run(lambda: {"a": [1, "é", None]}, 5) == {"a": [1, "é", None]}


def test_an_answer_larger_than_a_pipe_buffer_comes_back_whole() -> None:
    answer = ["x" * 1000] * 1000  # 1 MB; a pipe holds 64 KiB
    assert timebox.run(lambda: answer, 5) == answer


def test_the_child_sees_the_callers_memory() -> None:
    page = b"<title>shared</title>" * 100_000
    assert timebox.run(lambda: len(page), 5) == len(page)


def test_work_that_does_not_finish_in_time_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[int] = []  # the parent's waits for the answer, in milliseconds
    ends: list[int] = []  # how the child ended, as waitpid reports it
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
    assert timebox.run(lambda: time.sleep(5), 0.2) is None
    assert len(waits) == 1 and 0 < waits[0] <= 200  # one wait, of the 0.2 s given
    [status] = ends  # the child was still at work when it was killed, so it wrote nothing
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def test_work_that_fails_gives_none() -> None:
    def broken() -> None:
        raise RuntimeError("bug")

    assert timebox.run(broken, 5) is None


def test_the_caller_is_unchanged_and_the_child_reaped(monkeypatch: pytest.MonkeyPatch) -> None:
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        forked.append(pid)
        return pid

    monkeypatch.setattr(timebox.os, "fork", fork)
    seen: list[int] = []
    for work, seconds in ((lambda: seen.append(1), 5), (lambda: time.sleep(5), 0.1)):
        timebox.run(work, seconds)
    assert seen == []
    for pid in forked:
        with pytest.raises(ChildProcessError):  # reaped: no zombie is left behind
            os.waitpid(pid, os.WNOHANG)


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
