"""`make serve`'s DynamoDB: DynamoDB Local with data kept across restarts, moto with
requests one at a time when Java is missing, or the user's own endpoint."""

from __future__ import annotations

import signal
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import pytest

from sitelens.local import dynamodb_local
from tests.e2e.test_local_server import HOST, Server, call, start_server, unique_domain

KEY = "sl_test_dynamodb_" + uuid.uuid4().hex


def stopped(server: Server, sig: signal.Signals = signal.SIGTERM) -> None:
    assert server.stop(sig=sig) == 0, server.output
    assert server.lines[-1] == "Stopped.", server.output
    assert dynamodb_local.port_is_free(server.aws_port), "DynamoDB Local still running"


@pytest.mark.slow  # about 8 s: make test-slow (CI) runs it; make test stays under 240 s
def test_data_survives_a_restart(tmp_path: Path) -> None:
    env = {"SITELENS_DEV_API_KEY": KEY, "SITELENS_LOCAL_DB": "disk"}
    first = start_server(**env, SITELENS_LOCAL_DB_DIR=str(tmp_path))
    try:
        banner = (
            f"  DynamoDB:      http://{HOST}:{first.aws_port} (DynamoDB Local, data in {tmp_path})"
        )
        assert banner in first.lines, first.output
        created = call(
            "POST", f"{first.analytics}/api/v1/websites", KEY, form={"domain": "kept.example"}
        )
        assert created.status == 201, created.body
    finally:
        stopped(first, signal.SIGINT)  # Ctrl-C
    assert any(tmp_path.iterdir())

    second = start_server(**env, SITELENS_LOCAL_DB_DIR=str(tmp_path))
    try:
        assert second.keys() == [("Developer 1", KEY)]  # the same account, not a new one
        one = f"{second.analytics}/api/v1/websites/{created.body['data']['id']}"
        assert call("GET", one, KEY).body == {"data": created.body["data"], "status": 200}
    finally:
        stopped(second)


@pytest.mark.slow  # about 8 s: make test-slow (CI) runs it; make test stays under 240 s
def test_without_java_moto_serves_one_request_at_a_time(tmp_path: Path) -> None:
    server = start_server(SITELENS_DEV_API_KEY=KEY, PATH=str(tmp_path))  # no java on PATH
    try:
        assert "DynamoDB Local cannot run: Java was not found on PATH" in server.output
        banner = f"  DynamoDB:      http://{HOST}:{server.aws_port} (moto, one request at a time)"
        assert banner in server.lines, server.output
        # Clients race for the same domain each round: moto rolls each losing transaction
        # back by restoring a copy of the table, which must not undo the others' writes.
        clients, rounds, tag = 8, 12, uuid.uuid4().hex[:8]
        start = threading.Barrier(clients)
        websites = f"{server.analytics}/api/v1/websites"

        def client(_: int) -> list[int]:
            made = []
            for round_ in range(rounds):
                start.wait(timeout=30)
                for domain in (f"race-{tag}-{round_}.example", unique_domain()):
                    reply = call("POST", websites, KEY, form={"domain": domain})
                    assert reply.status in (201, 422), reply.body
                    if reply.status == 201:
                        made.append(reply.body["data"]["id"])
            return made

        with ThreadPoolExecutor(clients) as pool:
            made = [i for ids in pool.map(client, range(clients)) for i in ids]
        assert len(made) == rounds + clients * rounds  # one winner per race, every other
        for website_id in made:
            assert call("GET", f"{websites}/{website_id}", KEY).status == 200
    finally:
        stopped(server)


def test_your_dynamodb_endpoint_wins(dynamodb_local_endpoint: str) -> None:
    server = start_server(
        SITELENS_DEV_API_KEY=KEY, AWS_ENDPOINT_URL_DYNAMODB=dynamodb_local_endpoint
    )
    try:
        banner = (
            f"  DynamoDB:      {dynamodb_local_endpoint} (yours, from AWS_ENDPOINT_URL_DYNAMODB)"
        )
        assert banner in server.lines, server.output
        assert f"  SQS:           http://{HOST}:{server.aws_port}" in server.lines
        domain = unique_domain()
        created = call("POST", f"{server.analytics}/api/v1/websites", KEY, form={"domain": domain})
        assert created.status == 201, created.body
        dynamodb = boto3.client("dynamodb", endpoint_url=dynamodb_local_endpoint)
        claim = dynamodb.get_item(
            TableName="WebsitesTable", Key={"account": {"S": f"#claim:{domain}"}, "id": {"N": "0"}}
        )
        assert claim["Item"]["record_id"] == {"N": str(created.body["data"]["id"])}
    finally:
        server.stop()
