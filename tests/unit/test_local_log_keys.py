"""`make serve` runs every function in threads of one process: each line names the function
that wrote it (Powertools keeps a Lambda's keys in one dict a process)."""

from __future__ import annotations

import io
import json
import logging
import threading
import uuid

import pytest
from aws_lambda_powertools import Logger

from sitelens.local import gateway

pytestmark = pytest.mark.unit


def two_functions_at_once(per_thread: bool) -> dict[str, str]:
    """Two handlers in two threads, each logging after the other has started: the function
    name each line carries, by the function that wrote it."""
    stream = io.StringIO()
    logger = Logger(
        service=f"t{uuid.uuid4().hex}", level="INFO", logger_handler=logging.StreamHandler(stream)
    )
    if per_thread:
        gateway.log_keys_per_thread(logger)
    started = threading.Barrier(2)

    def invoke(name: str) -> None:
        @logger.inject_lambda_context(clear_state=True)
        def handler(event: dict, context: object) -> None:
            started.wait(timeout=5)  # both contexts appended before either logs
            logger.info("done", extra={"writer": name})

        handler({}, gateway.LambdaContext(name))

    threads = [threading.Thread(target=invoke, args=(n,)) for n in ("FirstFunction", "Second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    return {line["writer"]: line["function_name"] for line in lines}


def test_each_line_names_the_function_that_wrote_it() -> None:
    named = two_functions_at_once(per_thread=True)
    assert named == {"FirstFunction": "FirstFunction", "Second": "Second"}


def test_without_it_one_function_s_name_is_on_the_other_s_line() -> None:
    """What the fix is for: Powertools alone prints the last appended name on both lines."""
    named = two_functions_at_once(per_thread=False)
    assert len(set(named.values())) == 1
