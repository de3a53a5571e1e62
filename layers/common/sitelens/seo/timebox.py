"""Work done in a child process that is stopped at a deadline.

The one way to bound code that cannot be interrupted, such as a C parser's worst cases: the
child is forked (it shares the caller's memory, so nothing is copied in), sends its answer
back as JSON through a pipe, and is killed when the time is up.
"""

from __future__ import annotations

import gc
import json
import logging
import math
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

logger = logging.getLogger(__name__)

_READ_SIZE = 64 * 1024


def run(work: Callable[[], Any], seconds: float) -> Any | None:
    """`work()`'s JSON-serialisable answer, computed in a child process; None when the child
    did not answer within `seconds` (it is then killed) or failed (it logs why)."""
    sys.stdout.flush()  # else the child would write the parent's buffered output again
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _answer(work, seconds, write_end)
    os.close(write_end)
    try:
        answer = _read(read_end, time.monotonic() + seconds)
    finally:
        os.close(read_end)
        os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still the child's
        os.waitpid(pid, 0)
    if not answer:  # None: out of time; empty: the child failed, and logged why
        return None
    return json.loads(answer)


def _read(fd: int, deadline: float) -> bytes | None:
    """Everything written to the pipe until it closes, or None when the deadline comes first."""
    chunks: list[bytes] = []
    readable = select.poll()  # not select.select, which fails on descriptors over 1023
    readable.register(fd, select.POLLIN)
    while (remaining := deadline - time.monotonic()) > 0:
        if not readable.poll(math.ceil(remaining * 1000)):
            return None
        chunk = os.read(fd, _READ_SIZE)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
    return None


def _answer(work: Callable[[], Any], seconds: float, fd: int) -> NoReturn:
    """In the child: write `work()` as JSON to `fd` and exit, never returning to the caller."""
    status = 1
    try:
        gc.disable()  # a collection would visit, and so copy, every page inherited
        _limit_cpu(math.ceil(seconds) + 1)
        answer = json.dumps(work(), separators=(",", ":")).encode()
        with open(fd, "wb") as pipe:
            pipe.write(answer)
        status = 0
    except BaseException:
        logger.exception("Work in a child process failed")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _limit_cpu(seconds: int) -> None:
    """The kernel stops this process after `seconds` of CPU, should its parent die before it
    could: without a core dump, which could be hundreds of megabytes."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard == resource.RLIM_INFINITY or seconds < hard:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
