"""`make serve`'s SQS: the part of Amazon SQS's JSON protocol the stack uses, in memory.

moto's SQS recomputes every queued message's state on each send and receive, so its cost
grows with the queue: with a few thousand hits queued, counting fell to about one hit per
second. Here each queue is a deque of visible messages and a map of received ones, so every
call costs the same whatever the queue holds.

What it keeps of SQS: message ids, receipt handles (a new one per receive; a stale one
deletes nothing), the visibility timeout (30 s unless the queue says otherwise; a message
not deleted in time is delivered again, with `ApproximateReceiveCount` counted up), long
polling (`WaitTimeSeconds`; a send wakes only its own queue's receivers), batches of at
most 10, message attributes and the MD5 digests botocore checks, and `DelaySeconds` of a
single send (the webhook retries wait on it).
Not kept: FIFO queues, batch delays, dead-letter queues and retention, which the local
stack does not rely on. Messages last as long as the process.

The server's handlers and workers call it in process (`InProcessClient`, given to
`data.clients.use`); other processes reach it over HTTP at `LocalSqs.endpoint`.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import struct
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sitelens.local import STOP_POLL_SECONDS

DEFAULT_VISIBILITY = 30  # seconds, as SQS's default
MAX_BATCH = 10
MAX_WAIT = 20  # seconds of long polling, as SQS's maximum
_PREFIX = "AmazonSQS."


class SqsError(Exception):
    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


@dataclass
class Message:
    id: str
    body: str
    attributes: dict[str, Any]
    sent: int  # epoch milliseconds
    receives: int = 0
    first_received: int = 0


@dataclass
class Queue:
    name: str
    url: str
    arrived: threading.Condition  # on the broker's lock; its receivers wait on it
    visibility: int = DEFAULT_VISIBILITY
    ready: deque[Message] = field(default_factory=deque)
    # receipt handle -> (message, when it becomes visible again)
    in_flight: dict[str, tuple[Message, float]] = field(default_factory=dict)
    # (when visible again, order of receipt, receipt handle) of in_flight, soonest first;
    # entries of deleted receipts stay until they come up or the heap is rebuilt
    due: list[tuple[float, int, str]] = field(default_factory=list)


def _md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def attributes_md5(attributes: dict[str, Any]) -> str:
    """SQS's digest of message attributes: names in order, each length-prefixed."""
    out = bytearray()
    for name in sorted(attributes):
        value = attributes[name]
        kind = value["DataType"]
        for part in (name.encode(), kind.encode()):
            out += struct.pack("!I", len(part)) + part
        if "StringValue" in value:
            data = str(value["StringValue"]).encode()
            out += b"\x01" + struct.pack("!I", len(data)) + data
        else:
            data = value.get("BinaryValue", b"")
            data = data.encode() if isinstance(data, str) else data
            out += b"\x02" + struct.pack("!I", len(data)) + data
    return _md5(bytes(out))


class Broker:
    """The queues, behind one lock; a queue's receivers wait on its own condition for new
    messages."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.queues: dict[str, Queue] = {}
        self.lock = threading.Lock()
        self._receipts = itertools.count()
        self.clock = time.monotonic  # visibility timeouts and waits (a test may move it)
        self.closing = False  # set as the server stops: long polls end at once

    def close(self) -> None:
        """End every long poll now (with what is ready), and those to come: make serve's
        workers then stop at once rather than after their poll's second."""
        with self.lock:
            self.closing = True
            for queue in self.queues.values():
                queue.arrived.notify_all()

    def call(self, action: str, params: dict[str, Any]) -> dict[str, Any]:
        method = getattr(self, f"_{action}", None)
        if method is None:
            raise SqsError("UnsupportedOperation", f"{action} is not supported locally.")
        result: dict[str, Any] = method(params)
        return result

    def _queue(self, params: dict[str, Any]) -> Queue:
        name = str(params.get("QueueUrl", "")).rstrip("/").rsplit("/", 1)[-1]
        queue = self.queues.get(name)
        if queue is None:
            raise SqsError(
                "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist."
            )
        return queue

    def _CreateQueue(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params["QueueName"]
        with self.lock:
            queue = self.queues.get(name)
            if queue is None:
                queue = Queue(
                    name, f"{self.endpoint}/000000000000/{name}", threading.Condition(self.lock)
                )
                self.queues[name] = queue
            visibility = (params.get("Attributes") or {}).get("VisibilityTimeout")
            if visibility is not None:
                queue.visibility = int(visibility)
        return {"QueueUrl": queue.url}

    def _GetQueueUrl(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self.queues.get(params["QueueName"])
        if queue is None:
            raise SqsError(
                "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist."
            )
        return {"QueueUrl": queue.url}

    def _new(self, entry: dict[str, Any]) -> tuple[Message, dict[str, Any]]:
        attributes = entry.get("MessageAttributes") or {}
        message = Message(
            uuid.uuid4().hex, entry["MessageBody"], attributes, int(time.time() * 1000)
        )
        answer = {"MessageId": message.id, "MD5OfMessageBody": _md5(message.body.encode())}
        if attributes:
            answer["MD5OfMessageAttributes"] = attributes_md5(attributes)
        return message, answer

    def _SendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        message, answer = self._new(params)
        delay = int(params.get("DelaySeconds") or 0)
        with self.lock:
            if delay > 0:  # held as if received, to become visible when the delay is over
                self._hold(queue, f"delayed-{message.id}", message, self.clock() + delay)
            else:
                queue.ready.append(message)
            queue.arrived.notify_all()
        return answer

    def _SendMessageBatch(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        sent = []
        with self.lock:
            for entry in params["Entries"][:MAX_BATCH]:
                message, answer = self._new(entry)
                queue.ready.append(message)
                sent.append({"Id": entry["Id"], **answer})
            queue.arrived.notify_all()
        return {"Successful": sent, "Failed": []}

    def _hold(self, queue: Queue, receipt: str, message: Message, until: float) -> None:
        """Keep `message` out of sight until `until`, under `receipt` (lock held)."""
        queue.in_flight[receipt] = (message, until)
        heapq.heappush(queue.due, (until, next(self._receipts), receipt))

    @staticmethod
    def _expire(queue: Queue, now: float) -> None:
        """Messages whose visibility timeout passed become visible again, the soonest due
        first in line: a heap, so a receive costs the same however many are in flight."""
        expired = []
        while queue.due and queue.due[0][0] <= now:
            receipt = heapq.heappop(queue.due)[2]
            held = queue.in_flight.pop(receipt, None)  # None: deleted meanwhile
            if held is not None:
                expired.append(held[0])
        queue.ready.extendleft(reversed(expired))
        if len(queue.due) > 2 * len(queue.in_flight) + 1024:  # mostly deleted receipts
            queue.due = [entry for entry in queue.due if entry[2] in queue.in_flight]
            heapq.heapify(queue.due)

    def _ReceiveMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        limit = max(1, min(int(params.get("MaxNumberOfMessages", 1)), MAX_BATCH))
        wait = max(0, min(int(params.get("WaitTimeSeconds", 0)), MAX_WAIT))
        visibility = int(params.get("VisibilityTimeout", queue.visibility))
        deadline = self.clock() + wait
        with self.lock:
            while True:
                now = self.clock()
                self._expire(queue, now)
                if queue.ready or now >= deadline or self.closing:
                    break
                queue.arrived.wait(min(deadline - now, 1.0))
            taken: list[tuple[str, Message]] = []
            while queue.ready and len(taken) < limit:
                message = queue.ready.popleft()
                message.receives += 1
                message.first_received = message.first_received or int(time.time() * 1000)
                receipt = uuid.uuid4().hex
                self._hold(queue, receipt, message, now + visibility)
                taken.append((receipt, message))
        return {"Messages": [self._shown(receipt, message) for receipt, message in taken]}

    @staticmethod
    def _shown(receipt: str, message: Message) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "MessageId": message.id,
            "ReceiptHandle": receipt,
            "MD5OfBody": _md5(message.body.encode()),
            "Body": message.body,
            "Attributes": {
                "SenderId": "000000000000",
                "SentTimestamp": str(message.sent),
                "ApproximateReceiveCount": str(message.receives),
                "ApproximateFirstReceiveTimestamp": str(message.first_received),
            },
        }
        if message.attributes:
            shown["MessageAttributes"] = message.attributes
            shown["MD5OfMessageAttributes"] = attributes_md5(message.attributes)
        return shown

    def _DeleteMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        with self.lock:
            queue.in_flight.pop(params["ReceiptHandle"], None)
        return {}

    def _DeleteMessageBatch(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        with self.lock:
            for entry in params["Entries"]:
                queue.in_flight.pop(entry["ReceiptHandle"], None)
        return {"Successful": [{"Id": entry["Id"]} for entry in params["Entries"]], "Failed": []}

    def _GetQueueAttributes(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        with self.lock:
            self._expire(queue, self.clock())
            counts = {
                "ApproximateNumberOfMessages": str(len(queue.ready)),
                "ApproximateNumberOfMessagesNotVisible": str(len(queue.in_flight)),
                "ApproximateNumberOfMessagesDelayed": "0",
                "VisibilityTimeout": str(queue.visibility),
            }
        names = params.get("AttributeNames") or []
        return {"Attributes": {k: v for k, v in counts.items() if k in names or "All" in names}}

    def _PurgeQueue(self, params: dict[str, Any]) -> dict[str, Any]:
        queue = self._queue(params)
        with self.lock:
            queue.ready.clear()
            queue.in_flight.clear()
            queue.due.clear()
        return {}


class InProcessClient:
    """The broker with boto3's SQS client methods (`send_message(QueueUrl=..., ...)`), for
    the handlers and workers in this process: no HTTP, no signing. boto3's parameter names
    are the JSON protocol's, so they go through as they are; errors are `ClientError`s."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker

    def __getattr__(self, method: str) -> Any:
        action = "".join(word.capitalize() for word in method.split("_"))

        def call(**params: Any) -> dict[str, Any]:
            from botocore.exceptions import ClientError

            try:
                return self.broker.call(action, params)
            except SqsError as err:
                error = {"Error": {"Code": err.code, "Message": err.message}}
                raise ClientError(error, action) from None  # type: ignore[arg-type]

        return call


def _handler(broker: Broker) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            target = self.headers.get("X-Amz-Target", "")
            length = int(self.headers.get("Content-Length") or 0)
            try:
                params = json.loads(self.rfile.read(length) or b"{}")
                if not target.startswith(_PREFIX):
                    raise SqsError("InvalidAction", "Only SQS's JSON protocol is served.")
                status, answer = 200, broker.call(target.removeprefix(_PREFIX), params)
            except SqsError as err:
                status, answer = err.status, {"__type": err.code, "message": err.message}
            except (KeyError, TypeError, ValueError) as err:
                status, answer = 400, {"__type": "InvalidParameterValue", "message": str(err)}
            payload = json.dumps(answer).encode()
            head = (
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Bad Request'}\r\n"
                "Content-Type: application/x-amz-json-1.0\r\n"
                f"x-amzn-RequestId: {uuid.uuid4()}\r\n"
                f"Content-Length: {len(payload)}\r\n\r\n"
            ).encode()
            self.wfile.write(head + payload)  # one write: no wait on a delayed ACK

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the API servers log requests; this is internal plumbing

    return Handler


class LocalSqs:
    """The broker served on `host:port` (0: any free port) in daemon threads."""

    def __init__(self, host: str, port: int = 0) -> None:
        self.server = ThreadingHTTPServer((host, port), BaseHTTPRequestHandler)
        self.server.daemon_threads = True
        bound_host, bound_port = self.server.server_address[:2]
        self.endpoint = f"http://{bound_host!s}:{bound_port}"
        self.broker = Broker(self.endpoint)
        self.server.RequestHandlerClass = _handler(self.broker)
        self.client = InProcessClient(self.broker)
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(STOP_POLL_SECONDS,), name="sqs", daemon=True
        )

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
