"""`make serve`'s tables (`local.resources.create_tables`) on a DynamoDB it shares: made
once, left as they are when they exist, however many other tables it holds."""

from __future__ import annotations

import uuid

import boto3

from sitelens.local import resources, template


def test_tables_that_exist_are_kept_past_the_first_page_of_list_tables(
    dynamodb_local_endpoint: str,
) -> None:
    dynamodb = boto3.client("dynamodb", endpoint_url=dynamodb_local_endpoint)
    spec = template.load()
    tag = uuid.uuid4().hex[:8]
    ours = f"-z{tag}"  # after the others below, in ListTables' name order
    names = resources.create_tables(spec, dynamodb, suffix=ours)
    for n in range(21):  # 105 tables named before ours: ListTables names 100 a page
        resources.create_tables(spec, dynamodb, suffix=f"-0{tag}-{n:02d}")
    assert not set(names.values()) <= set(dynamodb.list_tables()["TableNames"])
    key = {"pk": {"S": "kept"}, "sk": {"S": "0"}}
    dynamodb.put_item(TableName=names["AccountsTable"], Item=key)
    # made again: no error, and the tables are left as they were
    assert resources.create_tables(spec, dynamodb, suffix=ours) == names
    assert dynamodb.get_item(TableName=names["AccountsTable"], Key=key)["Item"] == key
