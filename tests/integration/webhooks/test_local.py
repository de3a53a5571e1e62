"""`make serve`'s parts for webhooks: its SQS holds a delayed message until its delay is
over (the retries wait on it), and its catcher keeps each delivery as a file."""

from __future__ import annotations

import json
import urllib.request

from sitelens.local import webhook_catcher
from tests.integration.test_local_sqs import client, local

__all__ = ["client", "local"]  # the fixtures, used by name


def test_a_delayed_message_shows_when_its_delay_is_over(client, local):
    now = [0.0]  # the broker's clock, moved instead of slept
    local.broker.clock = lambda: now[0]
    url = client.create_queue(QueueName="WebhookQueue")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=5)
    client.send_message(QueueUrl=url, MessageBody="now")
    [first] = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert first["Body"] == "now"
    now[0] += 4.9
    assert client.receive_message(QueueUrl=url).get("Messages", []) == []
    now[0] += 0.2
    [later] = client.receive_message(QueueUrl=url)["Messages"]
    assert later["Body"] == "later"


def test_the_catcher_keeps_each_delivery(tmp_path, monkeypatch):
    monkeypatch.setenv("SITELENS_WEBHOOK_CATCHER_PORT", "0")  # any free port
    server = webhook_catcher.start("127.0.0.1", tmp_path)
    assert server is not None
    try:
        port = server.server_address[1]
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/hook",
            data=b'{"type":"webhook.test"}',
            headers={"webhook-id": "msg_1", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 200
    finally:
        server.shutdown()
        server.server_close()
    [kept] = list(tmp_path.glob("*.json"))
    caught = json.loads(kept.read_text())
    assert caught["path"] == "/hook" and caught["headers"]["webhook-id"] == "msg_1"
    assert caught["body"] == '{"type":"webhook.test"}'
