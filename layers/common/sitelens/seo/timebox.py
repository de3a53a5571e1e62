"""Work done in a worker process that is stopped at a deadline.

The one way to bound code that cannot be interrupted, such as a C parser's worst cases: the
work runs in a forked worker process, which is killed when the time is up. A worker is
kept for the next call (a warm Lambda container's next report, an audit's next page): a
fresh fork pays a page fault for every page of memory it writes, which about doubled a 1 MB
page's analysis, and a worker that has analysed pages before no longer pays them.

The request goes to the worker as a pickle (a module-level function by reference and its
argument); the answer comes back as JSON, so this process never unpickles anything the
worker, which reads untrusted pages, could have written.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import math
import os
import pickle
import resource
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, NoReturn, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

_READ_SIZE = 64 * 1024
_LENGTH_BYTES = 8  # each message is its length, then its bytes
# a worker retires after this many calls, or once its peak memory has grown this much since
# it was forked (a 5 MB page's analysis can leave a worker 150 MB larger for good)
MAX_CALLS = 500
MAX_GROWTH_BYTES = 256 * 1024 * 1024
MAX_IDLE_WORKERS = 2  # kept between calls; more only while calls run at once (make serve)
_CONTINUING, _RETIRING = b"c", b"r"  # the first byte of an answer


def call(function: Callable[[T], Any], argument: T, seconds: float) -> Any | None:
    """`function(argument)`'s JSON-serialisable answer, computed in a worker process; None
    when the worker did not answer within `seconds` (it is then killed) or the function
    raised (the worker logs why). `function` must be importable by its module and name."""
    deadline = time.monotonic() + seconds
    request = pickle.dumps((function, argument, seconds), protocol=pickle.HIGHEST_PROTOCOL)
    answer = None
    for worker in _workers():
        try:
            answer = worker.ask(request, deadline)
        except _WorkerGone:
            worker.stop()
            continue  # an idle worker may have died unseen: the next one is a fresh fork
        if answer is None or answer.retiring:
            worker.stop()
        else:
            _give_back(worker)
        break
    if answer is None or not answer.body:  # out of time or gone; or the function raised
        return None
    return json.loads(answer.body)


def stop_workers() -> None:
    """Stop the idle workers (tests use it so that a worker never outlives a monkeypatch)."""
    with _lock:
        stopping = list(_idle)
        _idle.clear()
    for worker in stopping:
        worker.stop()


class _WorkerGone(Exception):
    """The worker ended before it answered: it died, or its CPU limit stopped it."""


class _Answer(NamedTuple):
    retiring: bool
    body: bytes  # JSON; empty when the function raised


class _Worker:
    """A forked process answering requests from its pipe until it retires or is stopped."""

    def __init__(self) -> None:
        requests_in, self.requests = os.pipe()
        self.answers, answers_out = os.pipe()
        sys.stdout.flush()  # else the worker would write the parent's buffered output again
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.requests)
            os.close(self.answers)
            _serve(requests_in, answers_out)
        os.close(requests_in)
        os.close(answers_out)
        self.reaped = False
        _all.add(self)

    def alive(self) -> bool:
        """Whether the worker still runs (an idle one can be killed, by the OOM killer say)."""
        try:
            if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                return True
        except ChildProcessError:  # reaped already (SIGCHLD ignored by the host, say)
            pass
        self.reaped = True
        return False

    def ask(self, request: bytes, deadline: float) -> _Answer | None:
        """The worker's answer to `request`, or None when it does not come by `deadline`;
        `_WorkerGone` when the worker ends first."""
        try:
            if not _write(self.requests, _framed(request), deadline):
                return None
            message = _read_message(self.answers, deadline)
        except BrokenPipeError:
            raise _WorkerGone from None
        if message is None:
            return None
        if not message:
            raise _WorkerGone
        return _Answer(message[:1] == _RETIRING, message[1:])

    def stop(self) -> None:
        """Kill the worker and reap it (it may be working still, or already gone)."""
        _all.discard(self)
        os.close(self.requests)
        os.close(self.answers)
        if not self.reaped:  # else its pid may be another process's by now
            with contextlib.suppress(ProcessLookupError, ChildProcessError):  # reaped already
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.reaped = True


_lock = threading.Lock()
_idle: list[_Worker] = []
_all: set[_Worker] = set()  # every worker of this process, busy or idle


def _workers() -> Iterator[_Worker]:
    """The idle workers that are still alive, then a fresh one."""
    while True:
        with _lock:
            worker = _idle.pop() if _idle else None
        if worker is None:
            break
        if worker.alive():
            yield worker
        else:
            worker.stop()
    yield _Worker()


def _give_back(worker: _Worker) -> None:
    with _lock:
        if len(_idle) < MAX_IDLE_WORKERS:
            _idle.append(worker)
            return
    worker.stop()


def _forget_workers() -> None:
    # in any forked child: its parent's workers are not its own, and a pipe end held here
    # would keep a worker from seeing its parent's end of file
    for worker in list(_all):
        os.close(worker.requests)
        os.close(worker.answers)
    _all.clear()
    _idle.clear()


os.register_at_fork(after_in_child=_forget_workers)


def _framed(body: bytes) -> bytes:
    return len(body).to_bytes(_LENGTH_BYTES, "big") + body


def _ready(fd: int, event: int, deadline: float | None) -> bool:
    """Whether `fd` is ready for `event` before `deadline` (None: however long it takes)."""
    waiting = select.poll()  # not select.select, which fails on descriptors over 1023
    waiting.register(fd, event)
    if deadline is None:
        return bool(waiting.poll(None))
    remaining = deadline - time.monotonic()
    return remaining > 0 and bool(waiting.poll(math.ceil(remaining * 1000)))


def _write(fd: int, data: bytes, deadline: float | None) -> bool:
    """Write all of `data`; False when the deadline comes first."""
    view = memoryview(data)
    while view:
        if not _ready(fd, select.POLLOUT, deadline):
            return False
        view = view[os.write(fd, view[:_READ_SIZE]) :]
    return True


def _read_message(fd: int, deadline: float | None) -> bytes | None:
    """One message from the pipe; None when the deadline comes first, b"" when the pipe
    ends first (a message is never empty: a request is a pickle, an answer starts with its
    retiring byte)."""
    received = bytearray()
    needed = _LENGTH_BYTES
    while len(received) < needed:
        if not _ready(fd, select.POLLIN, deadline):
            return None
        chunk = os.read(fd, min(_READ_SIZE, needed - len(received)))
        if not chunk:
            return b""
        received += chunk
        if needed == _LENGTH_BYTES and len(received) == _LENGTH_BYTES:
            needed += int.from_bytes(received, "big")
    return bytes(received[_LENGTH_BYTES:])


def _serve(requests: int, answers: int) -> NoReturn:
    """In the worker: answer requests until the parent closes its end, or retire; never
    return to the caller's code."""
    status = 1
    try:
        gc.freeze()  # what the parent had stays out of collections: visiting it copies it
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a dump could be hundreds of MB
        start = _peak_bytes()
        for calls in range(1, MAX_CALLS + 1):
            request = _read_message(requests, None)
            if not request:  # the parent is done with this worker, or gone
                break
            # written by the parent alone, on a pipe no other process holds
            function, argument, seconds = pickle.loads(request)  # noqa: S301
            body = _answer(function, argument, seconds)
            retiring = calls == MAX_CALLS or _peak_bytes() - start > MAX_GROWTH_BYTES
            _write(answers, _framed((_RETIRING if retiring else _CONTINUING) + body), None)
            if retiring:
                break
            gc.collect()  # between calls, while the parent is not waiting
        status = 0
    except BaseException:
        logger.exception("A worker process failed")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _answer(function: Callable[[Any], Any], argument: Any, seconds: float) -> bytes:
    """`function(argument)` as JSON, computed with collection off and under a CPU limit;
    empty when it raised."""
    gc.disable()
    _limit_cpu(seconds)
    try:
        return json.dumps(function(argument), separators=(",", ":")).encode()
    except Exception:
        logger.exception("Work in a worker process failed")
        return b""
    finally:
        gc.enable()


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _limit_cpu(seconds: float) -> None:
    """The kernel stops this worker after `seconds` more of CPU, should its parent die
    before it could kill it."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    limit = math.ceil(usage.ru_utime + usage.ru_stime + seconds) + 1
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard == resource.RLIM_INFINITY or limit < hard:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
