"""The suite's one moto backend (conftest.py): every test that uses `aws_env` starts with
the template's tables and queues empty, as if moto had just been started for it."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from moto import mock_aws

from sitelens import accounts
from sitelens.local import template

TEMPLATE = template.load()
TABLES = template.tables(TEMPLATE)
QUEUES = [name for name, r in TEMPLATE["Resources"].items() if r["Type"] == "AWS::SQS::Queue"]
QUEUE_COUNTS = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
]


def fill(moto_backend: Any, items: int) -> None:
    """`items` items in every table, and a waiting and an in-flight message in every queue."""
    dynamodb = boto3.client("dynamodb")
    for table, props in TABLES.items():
        types = {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]}
        for n in range(items):
            item = {
                key["AttributeName"]: {types[key["AttributeName"]]: str(n)}
                for key in props["KeySchema"]
            }
            dynamodb.put_item(TableName=table, Item=item)
    sqs = boto3.client("sqs")
    for name in QUEUES:
        url = moto_backend.queues[name]
        sqs.send_message(QueueUrl=url, MessageBody="waiting")
        sqs.send_message(QueueUrl=url, MessageBody="in flight")
        assert sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]


def contents(moto_backend: Any) -> dict[str, Any]:
    dynamodb = boto3.client("dynamodb")
    sqs = boto3.client("sqs")
    found: dict[str, Any] = {}
    for table in TABLES:
        found[table] = dynamodb.scan(TableName=table)["Count"]
    for name in QUEUES:
        url = moto_backend.queues[name]
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=QUEUE_COUNTS)
        found[name] = sum(int(value) for value in attributes["Attributes"].values())
    return found


def test_a_test_starts_with_empty_tables_and_queues(aws_env: None, moto_backend: Any) -> None:
    assert contents(moto_backend) == dict.fromkeys([*TABLES, *QUEUES], 0)
    fill(moto_backend, items=30)  # more than one BatchWriteItem call of 25 a table
    full = contents(moto_backend)
    assert full == {**dict.fromkeys(TABLES, 30), **dict.fromkeys(QUEUES, 2)}
    assert accounts.create_account("First").id == "1"  # and a counter item at 1

    moto_backend.empty()  # what aws_env does before the next test

    assert contents(moto_backend) == dict.fromkeys([*TABLES, *QUEUES], 0)
    assert accounts.create_account("Again").id == "1"  # the counters are gone too


def test_a_test_with_a_moto_of_its_own_leaves_the_next_test_whole(
    moto_backend: Any, request: pytest.FixtureRequest
) -> None:
    with mock_aws():  # a pristine moto: it resets the session's backend on the way in and out
        assert boto3.client("dynamodb").list_tables()["TableNames"] == []
    request.getfixturevalue("aws_env")  # as the next test that uses it
    assert sorted(boto3.client("dynamodb").list_tables()["TableNames"]) == sorted(TABLES)
    assert contents(moto_backend) == dict.fromkeys([*TABLES, *QUEUES], 0)
    assert accounts.create_account("First").id == "1"


def test_a_copied_update_expression_is_the_tree_deepcopy_would_make() -> None:
    """tests/fixtures/moto_expressions.py copies moto's parsed expressions node by node: the
    same classes, attributes and values, each node's parent the copy of its parent."""
    import copy

    from moto.dynamodb.parsing import ast_nodes
    from moto.dynamodb.parsing.expressions import UpdateExpressionParser

    parsed = UpdateExpressionParser.make(
        "SET #a = if_not_exists(#a, :zero) + :one, #c.#d[2] = list_append(#c.#d, :l) "
        "ADD #n :one REMOVE #x, #y[1] DELETE #s :s"
    )

    def shape(node: Any, parent: Any) -> Any:
        if not isinstance(node, ast_nodes.Node):
            return repr(node)
        assert node.parent is parent or parent is None
        fields = {k: v for k, v in vars(node).items() if k not in ("children", "parent")}
        children = [shape(child, node) for child in node.children or []]
        return type(node).__name__, repr(fields), children

    ours = copy.deepcopy(parsed)
    assert ours is not parsed
    del ast_nodes.Node.__deepcopy__  # moto's own: the generic deepcopy
    try:
        generic = copy.deepcopy(parsed)
    finally:
        from tests.fixtures import moto_expressions

        ast_nodes.Node.__deepcopy__ = moto_expressions._copy_node  # type: ignore[attr-defined]
    assert shape(ours, None) == shape(generic, None) == shape(parsed, None)

    def nodes(node: Any) -> set[int]:
        found = {id(node)}
        for child in node.children or []:
            if isinstance(child, ast_nodes.Node):
                found |= nodes(child)
        return found

    assert not nodes(ours) & nodes(parsed)  # a copy: the validator changes it


def test_updates_are_validated_and_applied_as_moto_s_own_validator_does() -> None:
    """tests/fixtures/moto_expressions.py walks an update expression's checks its own way and
    skips its text checks once they have passed: the same updates, in the same order, get the
    same items and the same refusals as from moto's own walk (a key attribute set, a path
    twice, SET twice), whichever came first."""
    from tests.fixtures import moto_expressions

    values = {":v": {"N": "1"}, ":w": {"N": "2"}}
    updates = [
        ("SET #k = :v", {"#k": "pk"}, {":v": {"S": "x"}}),
        ("SET #k = :v", {"#k": "n"}, {":v": {"N": "1"}}),
        ("SET #a = :v, #b = :w", {"#a": "x", "#b": "x"}, values),
        ("SET #a = :v, #b = :w", {"#a": "x", "#b": "y"}, values),
        ("SET a = :v SET b = :w", None, values),
        ("SET a.b = :v, a = :w", None, values),
        ("ADD c :v", None, {":v": {"N": "1"}}),
        (
            "SET d = if_not_exists(d, :v) + :w, l = list_append(if_not_exists(l, :e), :l) REMOVE x",
            None,
            {**values, ":e": {"L": []}, ":l": {"L": [{"S": "q"}]}},
        ),
    ]

    def answers() -> list[Any]:
        found = []
        with mock_aws():
            dynamodb = boto3.client("dynamodb")
            dynamodb.create_table(
                TableName="t",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
            for expression, names, given in updates + updates[::-1] + updates:
                call = {"ExpressionAttributeNames": names} if names else {}
                try:
                    found.append(
                        dynamodb.update_item(
                            TableName="t",
                            Key={"pk": {"S": "a"}},
                            UpdateExpression=expression,
                            ExpressionAttributeValues=given,
                            ReturnValues="ALL_NEW",
                            **call,
                        )["Attributes"]
                    )
                except dynamodb.exceptions.ClientError as err:
                    found.append(err.response["Error"]["Message"])
        return found

    ours = answers()
    with moto_expressions.motos_own():
        theirs = answers()
    assert ours == theirs
    assert sum(isinstance(answer, str) for answer in ours) == 12  # four refused, three times
    assert ours[-1] == {
        "pk": {"S": "a"},
        "n": {"N": "1"},
        "y": {"N": "2"},
        "c": {"N": "3"},
        "d": {"N": "7"},
        "l": {"L": [{"S": "q"}] * 3},
    }
