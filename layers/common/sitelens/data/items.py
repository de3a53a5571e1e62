"""DynamoDB's attribute values and error codes, translated once."""

from __future__ import annotations

from typing import Any

Item = dict[str, Any]  # a record as plain values
Write = dict[str, Any]  # one TransactWriteItems entry; never leaves the data package


def to_attr(value: Any) -> dict[str, Any]:
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": str(value)}
    return {"S": str(value)}


def from_attr(attr: dict[str, Any]) -> Any:
    if "S" in attr:
        return attr["S"]
    if "N" in attr:
        number = attr["N"]
        return float(number) if "." in number or "e" in number.lower() else int(number)
    if "BOOL" in attr:
        return attr["BOOL"]
    return None


def to_item(values: Item) -> dict[str, Any]:
    return {k: to_attr(v) for k, v in values.items()}


def from_item(item: dict[str, Any]) -> Item:
    return {k: from_attr(v) for k, v in item.items()}


def error_code(err: Exception) -> str:
    """The DynamoDB error code of a botocore ClientError; "" for anything else."""
    return str(getattr(err, "response", {}).get("Error", {}).get("Code", ""))


def is_condition_failure(err: Exception) -> bool:
    """Whether a write failed because a condition did not hold: a single write's, or an item's
    of a cancelled transaction. A `TransactionConflict` (another transaction held an item)
    or throttling is no failed condition: the write may go through when run again."""
    code = error_code(err)
    if code == "ConditionalCheckFailedException":
        return True
    reasons = cancel_reasons(err) if code == "TransactionCanceledException" else []
    return "ConditionalCheckFailed" in reasons


def cancel_reasons(err: Exception) -> list[str]:
    """The code of each item of a cancelled transaction, in the order they were sent."""
    reasons = getattr(err, "response", {}).get("CancellationReasons") or []
    return [r.get("Code", "None") for r in reasons]
