"""Work in a child process stopped at a deadline: the answer, or None in time."""

from __future__ import annotations

import os
import time

import pytest

from sitelens.seo import timebox


def test_the_answer_comes_back_as_json() -> None:
    assert timebox.run(lambda: {"a": [1, "é", None]}, 5) == {"a": [1, "é", None]}


def test_an_answer_larger_than_a_pipe_buffer_comes_back_whole() -> None:
    answer = ["x" * 1000] * 1000  # 1 MB; a pipe holds 64 KiB
    assert timebox.run(lambda: answer, 5) == answer


def test_the_child_sees_the_callers_memory() -> None:
    page = b"<title>shared</title>" * 100_000
    assert timebox.run(lambda: len(page), 5) == len(page)


def test_work_that_does_not_finish_in_time_is_stopped() -> None:
    marker = f"/tmp/sitelens-timebox-{os.getpid()}"

    def slow() -> None:
        time.sleep(1)
        open(marker, "w").close()  # never reached: the child is killed first

    started = time.monotonic()
    assert timebox.run(slow, 0.2) is None
    assert time.monotonic() - started < 0.5
    time.sleep(1.2)
    assert not os.path.exists(marker)


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
