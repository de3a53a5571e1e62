"""The analytics events in events/ replayed as `sam local invoke <Function> -e <file>`
runs them: API events through their route's function, SQS events through the function
whose SQS event source is the queue named in the records' eventSourceARN."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from sitelens import accounts
from sitelens.core import clock
from sitelens.local import gateway, template
from tests.fixtures.analytics import receive

EVENTS = Path(__file__).resolve().parents[2] / "events"
TEMPLATE = template.load()
ROUTES = template.routes(TEMPLATE)
KEY = "sl_example_events_key_0123456789abcdefghijklmnopqrstuv"
SQS_EVENT_FILES = sorted(
    path for path in EVENTS.glob("*.json") if "Records" in json.loads(path.read_text())
)


def sqs_functions() -> dict[str, tuple[str, dict[str, Any]]]:
    """Queue logical id -> (function logical id, its properties), from the template."""
    found = {}
    for name, resource in TEMPLATE["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        for event in (resource["Properties"].get("Events") or {}).values():
            if event.get("Type") == "SQS":
                queue = event["Properties"]["Queue"]["Fn::GetAtt"][0]
                found[queue] = (name, resource["Properties"])
    return found


def load(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return event


def invoke(name: str) -> dict[str, Any]:
    """The handler's answer to events/<name>.json."""
    event = load(name)
    if "Records" in event:
        # CloudFormation names a queue `<stack>-<logical id>-<suffix>`.
        queue_name = event["Records"][0]["eventSourceARN"].rsplit(":", 1)[1]
        [(function, props)] = [
            found for queue, found in sqs_functions().items() if f"-{queue}-" in queue_name
        ]
        code_uri = props["CodeUri"]
    else:
        [route] = [
            r for r in ROUTES if r.path == event["resource"] and r.method == event["httpMethod"]
        ]
        function, code_uri = route.function, route.code_uri
    module = gateway.load_module(gateway.ROOT / code_uri / "app.py")
    answer: dict[str, Any] = module.handler(event, gateway.LambdaContext(function))
    return answer


@pytest.fixture
def website(aws_env: None) -> dict[str, Any]:
    account = accounts.create_account("Events")
    accounts.add_key(account, "events", key=KEY)
    answer = gateway.load_module(gateway.ROOT / "functions/websites/create/app.py").handler(
        load("websites-create"), gateway.LambdaContext("CreateWebsiteFunction")
    )
    assert answer["statusCode"] == 201
    record: dict[str, Any] = json.loads(answer["body"])["data"]
    assert (account.id, record["id"]) == ("1", 1)  # what the SQS events name
    return record


def test_every_queue_function_has_an_event():
    covered = set()
    for path in SQS_EVENT_FILES:
        arn = json.loads(path.read_text())["Records"][0]["eventSourceARN"]
        covered |= {queue for queue in sqs_functions() if f"-{queue}-" in arn}
    assert covered == set(sqs_functions())


@pytest.mark.parametrize("path", SQS_EVENT_FILES, ids=lambda p: p.stem)
def test_sqs_events_have_the_lambda_shape(path: Path):
    for record in json.loads(path.read_text())["Records"]:
        assert {"messageId", "receiptHandle", "body", "attributes", "messageAttributes"} <= set(
            record
        )
        assert record["eventSource"] == "aws:sqs"
        assert record["eventSourceARN"].startswith("arn:aws:sqs:")
        assert int(record["attributes"]["ApproximateReceiveCount"]) >= 1


def test_analytics_script(aws_env: None):
    answer = invoke("analytics-script")
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Type"] == "application/javascript; charset=utf-8"
    assert "/api/event" in answer["body"]


def test_analytics_event_preflight(aws_env: None):
    answer = invoke("analytics-event-preflight")
    assert answer["statusCode"] == 204
    assert answer["headers"]["Access-Control-Allow-Origin"] == "*"
    assert answer["headers"]["Access-Control-Allow-Methods"] == "POST, OPTIONS"


def test_analytics_event_queues_a_hit(website: dict[str, Any]):
    answer = invoke("analytics-event")
    assert answer["statusCode"] == 202, answer["body"]
    assert json.loads(answer["body"]) == {"message": "Accepted.", "status": 202}
    assert answer["headers"]["Access-Control-Allow-Origin"] == "*"
    [record] = receive("HitsQueue")
    hit = json.loads(record["body"])
    # fbclid and the campaign parameters leave the counted page; the campaign is counted.
    assert hit["page"] == "/pricing?plan=pro"
    assert hit["campaign"] == "launch"
    assert (hit["referrer"], hit["browser"], hit["language"]) == (
        "news.example.org",
        "Chrome",
        "de",
    )


def test_aggregate_then_stats_then_cleanup(website: dict[str, Any]):
    assert invoke("aggregate-hits") == {"batchItemFailures": []}

    answer = invoke("stats-get")
    assert answer["statusCode"] == 200, answer["body"]
    body = json.loads(answer["body"])
    assert body["data"] == [
        {"value": "/pricing?plan=pro", "count": 2},
        {"value": "/signup", "count": 1},
    ]
    assert body["meta"]["path"].endswith("/v1/api/v1/stats/1")

    assert invoke("tasks-cleanup") == {"batchItemFailures": []}
    body = json.loads(invoke("stats-get")["body"])
    assert body["data"] == []


def test_query_answers_from_the_warehouse(website: dict[str, Any], tmp_path):
    pytest.importorskip("duckdb")
    from sitelens.data import warehouse
    from sitelens.local.warehouse import LocalWarehouse
    from tests.integration.analytics.test_warehouse import row

    local = LocalWarehouse(tmp_path)
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write))
    try:
        today = clock.now().strftime("%Y-%m-%d")
        local.write(
            [
                row(website["id"], "a", f"{today}T00:00:01", page="/", source="Google"),
                row(website["id"], "a", f"{today}T00:00:31", "engagement", page="/"),
            ]
        )
        answer = invoke("query")
    finally:
        warehouse.use(None)
    assert answer["statusCode"] == 200, answer["body"]
    body = json.loads(answer["body"])
    assert body["results"] == [{"dimensions": ["Google"], "metrics": [1, 1, 100.0, 30]}]
    assert body["meta"] == {"total_rows": 1}


def test_the_scheduled_compaction_merges_landing(aws_env: None, tmp_path):
    """events/compact.json, the Scheduler's hourly event, and events/compact-merge.json, the
    daily one (its schedule's Input), through CompactionFunction."""
    pytest.importorskip("duckdb")
    from sitelens.data import warehouse
    from sitelens.local.warehouse import LocalWarehouse
    from tests.integration.analytics.test_warehouse import row

    local = LocalWarehouse(tmp_path)
    engine = warehouse.LocalEngine("duckdb", local.run, local.write, local.compact)
    warehouse.use(dataclasses.replace(engine, merge=local.merge))
    try:
        sent = row(1, "a", "2026-11-21T10:00:00", page="/")
        local.write([sent, row(1, "b", "2026-11-21T10:05:00", page="/docs")])
        local.write([sent])  # the same hit's row again
        handler = gateway.load_module(gateway.ROOT / "functions/analytics/compact/app.py").handler
        done = handler(load("compact"), gateway.LambdaContext("CompactionFunction"))
        assert done == {
            **{"removed": 0, "error_files": 0, "reingested": 0, "parked": 0},
            **{"landing_files": 2, "partitions": 1, "rows": 2},
        }
        assert local.run("SELECT page FROM event_parts ORDER BY ts") == [("/",), ("/docs",)]
        assert (
            handler(load("compact"), gateway.LambdaContext("CompactionFunction"))["landing_files"]
            == 0
        )
        merged = handler(load("compact-merge"), gateway.LambdaContext("CompactionFunction"))
        assert merged == {"merged": 1, "parts": 1, "rows": 2, "left": 0}
        assert local.run("SELECT page FROM events ORDER BY ts") == [("/",), ("/docs",)]
        assert local.run("SELECT COUNT(*) FROM event_parts") == [(0,)]
    finally:
        warehouse.use(None)
        local.close()
