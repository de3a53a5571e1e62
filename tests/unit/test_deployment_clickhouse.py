"""WarehouseEngine: Athena by default, with nothing of ClickHouse deployed; ClickHouse when
chosen, with the secret's grant and variables on exactly the functions that run warehouse
queries (tests/unit/test_iam.py holds each grant to the code that uses it), the ingest
function on its schedule, and Firehose's files in a folder of their own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sitelens.analytics.warehouse import ingest
from tests.unit.test_deployment import SOURCE, _environment, _statements_of, chosen, stack

CLICKHOUSE = {"WarehouseEngine": "clickhouse", "ClickHouseSecretArn": "arn:secret"}
SECRET = {"Ref": "ClickHouseSecretArn"}
FUNCTIONS = sorted(
    name for name, r in SOURCE["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
)


def _deployed(parameters: dict[str, str]) -> set[str]:
    from sitelens.local import template

    return {n for n, r in SOURCE["Resources"].items() if template.deployed(SOURCE, r, parameters)}


def _actions(function: str, parameters: dict[str, str]) -> dict[str, list[Any]]:
    """Action -> the resources the function's statements allow it on."""
    found: dict[str, list[Any]] = {}
    for statement in _statements_of(function, parameters):
        actions = statement["Action"]
        for action in [actions] if isinstance(actions, str) else actions:
            found.setdefault(action, []).append(statement["Resource"])
    return found


def _querying(parameters: dict[str, str]) -> set[str]:
    """The functions that run warehouse queries (on Athena, as today's grants say)."""
    return {f for f in FUNCTIONS if "athena:StartQueryExecution" in _actions(f, parameters)}


def _prefix(parameters: dict[str, str]) -> str:
    stream = SOURCE["Resources"]["EventsStream"]["Properties"]
    found = chosen(stream["ExtendedS3DestinationConfiguration"], parameters)
    return str(found["Prefix"])


def test_athena_by_default_and_nothing_of_clickhouse():
    assert SOURCE["Parameters"]["WarehouseEngine"]["Default"] == "athena"
    deployed = _deployed({})
    assert not {"ClickHouseIngestFunction", "ClickHouseLayer"} & deployed
    assert not [name for name in deployed if name.startswith("ClickHouse")]
    for function in sorted(set(FUNCTIONS) & deployed):
        assert "SITELENS_CLICKHOUSE_SECRET" not in _environment(function, {}), function
        assert "secretsmanager:GetSecretValue" not in _actions(function, {}) or (
            SECRET not in _actions(function, {})["secretsmanager:GetSecretValue"]
        )
    assert _prefix({}) == "landing/hour=!{timestamp:yyyy-MM-dd-HH}/"


@pytest.mark.parametrize("engine", ["athena", "clickhouse"])
def test_the_secret_goes_to_exactly_the_functions_that_query(engine):
    parameters = {**CLICKHOUSE, "WarehouseEngine": engine}
    querying = _querying(parameters)
    assert {"QueryFunction", "FunnelQueryFunction", "ShareWebsiteFunction"} <= querying
    granted = {
        f
        for f in FUNCTIONS
        if SECRET in _actions(f, parameters).get("secretsmanager:GetSecretValue", [])
    }
    if engine == "athena":
        assert granted == {"ClickHouseIngestFunction"}  # not deployed (its condition)
        return
    assert granted == querying | {"ClickHouseIngestFunction"}
    for function in querying:
        env = _environment(function, parameters)
        assert env["SITELENS_WAREHOUSE_ENGINE"] == {"Ref": "WarehouseEngine"}
        assert env["SITELENS_CLICKHOUSE_SECRET"] == SECRET
        layers = chosen(SOURCE["Resources"][function]["Properties"]["Layers"], parameters)
        assert {"Ref": "ClickHouseLayer"} in layers, function  # clickhouse-connect
        # the tasks function's exports read the site's files with DuckDB (docs/exports.md)
        others = [layer for layer in layers if layer != {"Ref": "ClickHouseLayer"}]
        assert others == ([{"Ref": "WarehouseLayer"}] if function == "TasksFunction" else [])


def test_under_clickhouse_rows_land_apart_and_an_hourly_job_inserts_them():
    deployed = _deployed(CLICKHOUSE)
    assert {"ClickHouseIngestFunction", "ClickHouseLayer", "ClickHouseIngestFunctionLogs"} <= (
        deployed
    )
    # compaction takes and deletes every file of landing/: ClickHouse's go elsewhere
    assert _prefix(CLICKHOUSE) == f"{ingest.PREFIX}/hour=!{{timestamp:yyyy-MM-dd-HH}}/"
    rules = SOURCE["Resources"]["EventsBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    [kept] = [rule for rule in rules if rule["Prefix"] == f"{ingest.PREFIX}/"]
    assert kept["ExpirationInDays"] == {"Ref": "EventRetentionDays"}  # raw events, kept as long
    function = SOURCE["Resources"]["ClickHouseIngestFunction"]["Properties"]
    [schedule] = [e["Properties"] for e in function["Events"].values()]
    found = re.fullmatch(r"cron\((\d+) \* \* \* \? \*\)", schedule["ScheduleExpression"])
    assert found and schedule["ScheduleExpressionTimezone"] == "UTC"
    # the hour before is closed when it runs
    assert int(found[1]) * 60 >= ingest.CLOSED_AFTER.total_seconds()
    on_failure = function["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]
    assert on_failure["Destination"] == {"Fn::GetAtt": ["ScheduleDeadLetterQueue", "Arn"]}
    env = _environment("ClickHouseIngestFunction", CLICKHOUSE)
    assert env["SITELENS_EVENTS_BUCKET"] == {"Ref": "EventsBucket"}
    assert "SITELENS_CLICKHOUSE_S3_ROLE" not in env
    with_role = {**CLICKHOUSE, "ClickHouseS3RoleArn": "arn:role"}
    assert _environment("ClickHouseIngestFunction", with_role)["SITELENS_CLICKHOUSE_S3_ROLE"] == {
        "Ref": "ClickHouseS3RoleArn"
    }


def test_the_translated_stack_keeps_the_conditions():
    resources = stack()["Resources"]
    assert resources["ClickHouseIngestFunction"]["Condition"] == "ClickHouseWarehouse"
    layers = [n for n in resources if n.startswith("ClickHouseLayer")]
    assert layers and all(resources[n]["Condition"] == "ClickHouseWarehouse" for n in layers)


# the functions that count hits or read counters and presences for every website, which
# reach ClickHouse only for the websites it counts
COUNTING = {
    "AggregatorFunction",
    "HitsDrainFunction",
    "StreamAggregatorFunction",
    "MonthRollupFunction",
    "RealtimeFunction",
}


@pytest.mark.parametrize("listed", ["", "12,40"])
def test_the_counting_functions_reach_clickhouse_only_when_it_counts_websites(listed):
    parameters = {**CLICKHOUSE, "ClickHouseCountedSites": listed}
    deployed = _deployed(parameters)
    for function in sorted(COUNTING & deployed):
        granted = SECRET in _actions(function, parameters).get("secretsmanager:GetSecretValue", [])
        env = _environment(function, parameters)
        layers = chosen(SOURCE["Resources"][function]["Properties"]["Layers"], parameters)
        assert granted == bool(listed), function
        assert ("SITELENS_CLICKHOUSE_SECRET" in env) == bool(listed), function
        assert (layers == [{"Ref": "ClickHouseLayer"}]) == bool(listed), function
        if listed:
            assert env["SITELENS_CLICKHOUSE_COUNTED_SITES"] == {"Ref": "ClickHouseCountedSites"}
    # under Athena the list is inert: no function is told of it
    athena = {**parameters, "WarehouseEngine": "athena"}
    for function in sorted(COUNTING & _deployed(athena)):
        assert "SITELENS_CLICKHOUSE_COUNTED_SITES" not in _environment(function, athena)
