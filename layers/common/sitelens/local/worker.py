"""Lambda's SQS event source mapping, locally: poll each queue, call its function."""

from __future__ import annotations

import threading
from typing import Any

from sitelens.local import gateway


class QueueWorker:
    def __init__(self, function: str, props: dict[str, Any], queue: str, batch: int) -> None:
        self.function = function
        self.queue = queue
        self.batch = batch
        self.handler = gateway.load_module(gateway.ROOT / props["CodeUri"] / "app.py").handler
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name=f"worker-{function}", daemon=True)

    def run(self) -> None:
        import boto3

        sqs = boto3.client("sqs")
        url = sqs.get_queue_url(QueueName=self.queue)["QueueUrl"]
        while not self.stopping.is_set():
            answer = sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=min(self.batch, 10),
                WaitTimeSeconds=1,
                AttributeNames=["All"],
            )
            messages = answer.get("Messages") or []
            if not messages:
                continue
            event = {
                "Records": [
                    {
                        "messageId": m["MessageId"],
                        "receiptHandle": m["ReceiptHandle"],
                        "body": m["Body"],
                        "attributes": m.get("Attributes", {}),
                        "messageAttributes": {},
                        "eventSource": "aws:sqs",
                        "eventSourceARN": f"arn:aws:sqs:local:000000000000:{self.queue}",
                    }
                    for m in messages
                ]
            }
            result = self.handler(event, gateway.LambdaContext(self.function)) or {}
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
            done = [m for m in messages if m["MessageId"] not in failed]
            if done:
                sqs.delete_message_batch(
                    QueueUrl=url,
                    Entries=[
                        {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                        for n, m in enumerate(done)
                    ],
                )

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)


def start_all(spec: dict[str, Any]) -> list[QueueWorker]:
    """A worker for every function with an SQS event in the template."""
    workers = []
    for name, resource in spec["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        for event in (props.get("Events") or {}).values():
            if event.get("Type") == "SQS":
                queue = event["Properties"]["Queue"]["Fn::GetAtt"][0]
                batch = int(event["Properties"].get("BatchSize", 10))
                worker = QueueWorker(name, props, queue, batch)
                worker.start()
                workers.append(worker)
    return workers
