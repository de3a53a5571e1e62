"""Lambda's SQS event source mapping, locally: poll each queue, call its function; and
EventBridge Scheduler's schedules, as a timer that calls the function at start and then
every SCHEDULE_SECONDS, or every MINUTE_SECONDS for a schedule of rate(1 minute) (the
scheduled functions are idempotent: the digests claim each period's email before sending
it, goal.converted's pass each minute's event). The minutely ones tick every 10 s here, so a
minute's goal.converted comes seconds after it is due rather than up to a minute later;
SITELENS_LOCAL_MINUTE_SECONDS (1 to 60; docs/keys-and-webhooks.md) sets another period.

Like Lambda, a worker gathers messages into one batch until the function's BatchSize is
reached or its batching window (at most 1 s here, so stats appear within about two
seconds of a hit) has passed, and deletes only the messages the function did not report
as failed; those come back after the queue's visibility timeout.
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from sitelens.core.log import logger
from sitelens.data import clients, queues
from sitelens.local import gateway, template

MAX_WINDOW_SECONDS = 1.0
SCHEDULE_SECONDS = 3600.0  # a daily schedule runs hourly here: it does nothing twice
MINUTE_SECONDS = 10.0  # rate(1 minute) here, unless SITELENS_LOCAL_MINUTE_SECONDS says
MAX_MINUTE_SECONDS = 60.0
_RECEIVE_MAX = 10  # SQS hands out at most 10 messages per receive (and deletes 10 per call)


class _Background:
    """A daemon thread running `run` until `stop`."""

    def __init__(self, name: str) -> None:
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

    def run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)


class QueueWorker(_Background):
    def __init__(
        self,
        function: str,
        props: dict[str, Any],
        queue: str,
        batch: int,
        window: float,
        lock: AbstractContextManager[Any] | None = None,
    ) -> None:
        self.function = function
        self.lock = lock or nullcontext()  # held around each call, as the gateway's
        self.queue = queue
        self.batch = batch
        self.window = min(window, MAX_WINDOW_SECONDS)
        self.handler = gateway.load_module(gateway.ROOT / props["CodeUri"] / "app.py").handler
        super().__init__(f"worker-{function}")

    def run(self) -> None:
        sqs = clients.client("sqs")
        url = sqs.get_queue_url(QueueName=self.queue)["QueueUrl"]
        while not self.stopping.is_set():
            messages = self._gather(sqs, url)
            if messages:
                self._deliver(sqs, url, messages)

    def _receive(self, sqs: Any, url: str, limit: int, wait: int) -> list[dict[str, Any]]:
        answer = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=min(limit, _RECEIVE_MAX),
            WaitTimeSeconds=wait,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        found: list[dict[str, Any]] = answer.get("Messages") or []
        return found

    def _gather(self, sqs: Any, url: str) -> list[dict[str, Any]]:
        """One batch: wait up to 1 s for a first message, then fill the batch for as long
        as the batching window lasts."""
        messages = self._receive(sqs, url, self.batch, wait=1)
        deadline = time.monotonic() + self.window
        while messages and len(messages) < self.batch and time.monotonic() < deadline:
            more = self._receive(sqs, url, self.batch - len(messages), wait=0)
            if more:
                messages.extend(more)
            elif self.stopping.wait(0.05):
                break
        return messages

    def _deliver(self, sqs: Any, url: str, messages: list[dict[str, Any]]) -> None:
        event = {"Records": [queues.lambda_record(m, self.queue) for m in messages]}
        try:
            with self.lock:
                result = self.handler(event, gateway.LambdaContext(self.function)) or {}
        except Exception:
            # As on Lambda, an error fails the whole batch: it comes back after a while.
            logger.exception("queue function failed", extra={"function": self.function})
            return
        failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        for start in range(0, len(done), _RECEIVE_MAX):
            sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                    for n, m in enumerate(done[start : start + _RECEIVE_MAX])
                ],
            )


class ScheduleWorker(_Background):
    """A scheduled function, called now and then every SCHEDULE_SECONDS."""

    def __init__(
        self,
        function: str,
        props: dict[str, Any],
        lock: AbstractContextManager[Any] | None,
        every: float = SCHEDULE_SECONDS,
        event: dict[str, Any] | None = None,
    ) -> None:
        self.function = function
        self.every = every
        self.event = event or {}  # the schedule's Input (CompactionFunction's daily merge)
        self.lock = lock or nullcontext()
        self.handler = gateway.load_module(gateway.ROOT / props["CodeUri"] / "app.py").handler
        super().__init__(f"schedule-{function}")

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                with self.lock:
                    self.handler(dict(self.event), gateway.LambdaContext(self.function))
            except Exception:
                logger.exception("scheduled function failed", extra={"function": self.function})
            self.stopping.wait(self.every)


class TallyFlusher(_Background):
    """The event function's next request, as `make serve` (one process that never stops)
    stands in for it: each second, queue what the excluded-hit tally holds
    (`tracking.ExcludedTally`), so the tail of a burst of bots is counted within about two
    seconds. Deployed, the container's next request sends it."""

    def __init__(self, lock: AbstractContextManager[Any] | None) -> None:
        self.lock = lock or nullcontext()
        super().__init__("excluded-tallies")

    def run(self) -> None:
        from sitelens.analytics import tracking

        while not self.stopping.wait(tracking.ExcludedTally.TALLY_SECONDS):
            try:
                with self.lock:
                    tracking.EXCLUDED.send_due()
            except Exception:
                logger.exception("excluded tallies not queued")


def _every(spec: dict[str, Any], schedule: dict[str, Any]) -> float:
    """How often a schedule runs here: rate(1 minute) (goal.converted's pass, as make serve
    deploys it) every MINUTE_SECONDS or SITELENS_LOCAL_MINUTE_SECONDS; any other every
    SCHEDULE_SECONDS."""
    expression = template.resolved(spec, schedule.get("ScheduleExpression", ""))
    if str(expression).replace(" ", "") == "rate(1minute)":
        return minute_seconds()
    return SCHEDULE_SECONDS


def minute_seconds() -> float:
    """SITELENS_LOCAL_MINUTE_SECONDS, a test and development knob: 1 to 60, default 10."""
    raw = os.environ.get("SITELENS_LOCAL_MINUTE_SECONDS", "").strip()
    if not raw:
        return MINUTE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 1 <= value <= MAX_MINUTE_SECONDS:
        raise SystemExit(f"SITELENS_LOCAL_MINUTE_SECONDS is {raw!r}: use 1 to 60 seconds.")
    return value


def start_all(
    spec: dict[str, Any], lock: AbstractContextManager[Any] | None = None
) -> list[QueueWorker | ScheduleWorker | TallyFlusher]:
    """A worker for every function with an SQS event or a schedule in the template, and
    the excluded-hit tally's flusher."""
    flusher = TallyFlusher(lock)
    flusher.start()
    workers: list[QueueWorker | ScheduleWorker | TallyFlusher] = [flusher]
    for name, resource in spec["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        if not template.deployed(spec, resource):  # another profile's (HitsDrainFunction)
            continue
        props = resource["Properties"]
        for event in (props.get("Events") or {}).values():
            if event.get("Type") in ("ScheduleV2", "Schedule"):
                schedule = event.get("Properties") or {}
                given = json.loads(schedule.get("Input") or "{}")
                scheduled = ScheduleWorker(name, props, lock, _every(spec, schedule), given)
                scheduled.start()
                workers.append(scheduled)
            if event.get("Type") == "SQS":
                source = event["Properties"]
                if template.resolved(spec, source.get("Enabled", True)) is False:
                    continue
                worker = QueueWorker(
                    name,
                    props,
                    queue=source["Queue"]["Fn::GetAtt"][0],
                    batch=int(template.resolved(spec, source.get("BatchSize", 10))),
                    window=float(
                        template.resolved(spec, source.get("MaximumBatchingWindowInSeconds", 0))
                    ),
                    lock=lock,
                )
                worker.start()
                workers.append(worker)
    return workers
