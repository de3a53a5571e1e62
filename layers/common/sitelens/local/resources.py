"""The template's tables (and queues) created on any DynamoDB/SQS endpoint, with the
environment that points the handlers at them. Names are the template's logical ids."""

from __future__ import annotations

import os
from typing import Any

from sitelens.local import template

# Create-time properties the local services do not take.
_TABLE_PROPERTIES = (
    "AttributeDefinitions",
    "KeySchema",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "BillingMode",
)


def create_tables(spec: dict[str, Any], dynamodb: Any, suffix: str = "") -> dict[str, str]:
    """Create every table of the template that does not exist yet, named by its logical id
    (plus `suffix`); returns the names by logical id. A table that exists is left as it is:
    asked for, not looked up in ListTables, whose first page names only 100 tables and which
    another `make serve` sharing the DynamoDB may change meanwhile."""
    names = {}
    for logical_id, props in template.tables(spec).items():
        name = names[logical_id] = logical_id + suffix
        args = {k: props[k] for k in _TABLE_PROPERTIES if k in props}
        try:
            dynamodb.create_table(TableName=name, **args)
        except dynamodb.exceptions.ResourceInUseException:
            continue  # made by an earlier start, or by another server sharing this DynamoDB
        ttl = props.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            dynamodb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
            )
    return names


def create_queues(spec: dict[str, Any], sqs: Any) -> dict[str, str]:
    """Create every SQS queue of the template; returns queue URLs by logical id."""
    urls = {}
    for name, resource in spec["Resources"].items():
        if resource.get("Type") == "AWS::SQS::Queue":
            urls[name] = sqs.create_queue(QueueName=name)["QueueUrl"]
    return urls


def function_environment(
    spec: dict[str, Any], values: dict[str, str], function: dict[str, Any] | None = None
) -> dict[str, str]:
    """The Globals (and a function's own) environment, with `!Ref X` as `values[X]`
    (default: a parameter's default value, else the logical id, the local name of a table)
    and `!If` decided on the parameters' defaults (HitStream=queue). Other intrinsics, and
    `AWS::NoValue`, are left out."""
    merged = dict(
        ((spec.get("Globals") or {}).get("Function") or {}).get("Environment", {}).get("Variables")
        or {}
    )
    if function:
        merged.update(
            ((function.get("Properties") or {}).get("Environment") or {}).get("Variables") or {}
        )
    env = {}
    for key, value in merged.items():
        while isinstance(value, dict) and "Fn::If" in value:
            condition, when_true, when_false = value["Fn::If"]
            value = when_true if _holds(spec, {"Condition": condition}) else when_false
        if value == {"Ref": "AWS::NoValue"}:
            continue
        if isinstance(value, str):
            env[key] = value
        elif isinstance(value, dict) and "Ref" in value:
            name = value["Ref"]
            default = (spec.get("Parameters") or {}).get(name, {}).get("Default", name)
            env[key] = str(values.get(name, default))
    return env


def _holds(spec: dict[str, Any], condition: Any) -> bool:
    """A template condition (Equals, Not, And, Or, Condition) on the parameters' defaults."""
    (kind, arg), *_ = condition.items()
    if kind == "Condition":
        return _holds(spec, spec["Conditions"][arg])
    if kind == "Fn::Not":
        return not _holds(spec, arg[0])
    if kind in ("Fn::And", "Fn::Or"):
        found = [_holds(spec, part) for part in arg]
        return all(found) if kind == "Fn::And" else any(found)
    if kind == "Fn::Equals":
        parameters = spec.get("Parameters") or {}
        values = [
            str(parameters[v["Ref"]].get("Default", "")) if isinstance(v, dict) else str(v)
            for v in arg
        ]
        return values[0] == values[1]
    raise ValueError(f"a condition this reader cannot decide: {condition}")


def table_environment(spec: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    """The handlers' variables that name a table (`SITELENS_..._TABLE`), for tables named
    by logical id in `names` (default: the logical id, as `make serve` names them)."""
    env = function_environment(spec, names)
    return {key: value for key, value in env.items() if key.endswith("_TABLE")}


def apply_environment(env: dict[str, str]) -> None:
    """Put the handlers' environment in place, keeping what the user set already."""
    for key, value in env.items():
        os.environ.setdefault(key, value)
