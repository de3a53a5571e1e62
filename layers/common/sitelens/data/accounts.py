"""The accounts table: accounts and id counters (their API keys: `data.keys`).

Items: `ACCOUNT#<id>`/`ACCOUNT` (the account), `MAILED`/`<id>` (the accounts with an email
address, which the digests page through without a scan), `DIGEST#<id>`/`<period>` (the
claim and outcome of one account's digest of one period) and `COUNTER`/`<name>` (id
counters).
"""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data import batches
from sitelens.data.clients import client
from sitelens.data.items import Item, error_code, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def next_id(counter: str) -> int:
    """The next number of a counter (`accounts`, `keys`)."""
    answer = client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": "COUNTER"}, "sk": {"S": counter}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def put_account(account_id: str, name: str, created_at: str) -> None:
    client("dynamodb").put_item(
        TableName=_table(),
        Item=to_item(
            {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT", "name": name, "created_at": created_at}
        ),
        ConditionExpression="attribute_not_exists(pk)",
    )


def get_account(account_id: str) -> Item | None:
    """`{"name", "created_at"}` of an account, or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}}
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def set_contact(account_id: str, email: str | None, digest: str) -> bool:
    """Set an account's email address (None: none) and digest cadence, and list or unlist
    it among the mailed accounts, together; False when there is no such account."""
    account_key = {"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}}
    listing_key = {"pk": {"S": "MAILED"}, "sk": {"S": account_id}}
    if email:
        listing: dict[str, Any] = {
            "Put": {
                "TableName": _table(),
                "Item": {**listing_key, "email": {"S": email}, "digest": {"S": digest}},
            }
        }
    else:
        listing = {"Delete": {"TableName": _table(), "Key": listing_key}}
    try:
        client("dynamodb").transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": _table(),
                        "Key": account_key,
                        "UpdateExpression": "SET email = :email, digest = :digest",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeValues": {
                            ":email": {"S": email} if email else {"NULL": True},
                            ":digest": {"S": digest},
                        },
                    }
                },
                listing,
            ]
        )
    except Exception as err:
        if error_code(err) == "TransactionCanceledException":
            return False
        raise
    return True


def mailed_accounts(after: str | None, limit: int) -> tuple[list[Item], str | None]:
    """A page of the accounts with an email address (`account`, `email`, `digest`), in id
    order as text, from after `after`; and where the next page starts (None at the end)."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": "MAILED"}},
        "Limit": limit,
    }
    if after is not None:
        query["ExclusiveStartKey"] = {"pk": {"S": "MAILED"}, "sk": {"S": after}}
    answer = client("dynamodb").query(**query)
    found = [
        {"account": item["sk"]["S"], "email": item["email"]["S"], "digest": item["digest"]["S"]}
        for item in answer["Items"]
    ]
    following = answer.get("LastEvaluatedKey")
    return found, following["sk"]["S"] if following else None


def mailed_now(account_ids: list[str]) -> dict[str, Item]:
    """The entries of these accounts among the mailed accounts (`account`, `email`,
    `digest`), read strongly consistent, by account id; an account without an email
    address (any more) is left out. `batches.Unprocessed` when some could not be read."""
    keys = [{"pk": {"S": "MAILED"}, "sk": {"S": i}} for i in dict.fromkeys(account_ids)]
    found: dict[str, Item] = {}
    for item in batches.get(_table(), keys, consistent=True):
        account = item["sk"]["S"]
        found[account] = {
            "account": account,
            "email": item["email"]["S"],
            "digest": item["digest"]["S"],
        }
    return found


def _claim_key(account_id: str, period: str) -> dict[str, Any]:
    return {"pk": {"S": f"DIGEST#{account_id}"}, "sk": {"S": period}}


def digest_claims(wanted: list[tuple[str, str]]) -> dict[tuple[str, str], Item]:
    """The claims of these (account, period) digests that exist (`state`, `claimed_at`,
    `attempts`), by (account, period); `batches.Unprocessed` when some could not be read."""
    found: dict[tuple[str, str], Item] = {}
    for raw in batches.get(
        _table(),
        [_claim_key(account, period) for account, period in wanted],
        projection="pk, sk, #state, claimed_at, attempts",
        names={"#state": "state"},
    ):
        item = _claim_of(raw)
        found[(item["account"], item["period"])] = item
    return found


def claim_digest(claim: Item) -> Item | None:
    """Write the first claim of an account's digest of a period (`account`, `period`,
    `state`, `token`, `attempts`, `claimed_at`, `expires_at`) unless there is one: None
    when written, else the claim there is."""
    try:
        client("dynamodb").put_item(
            TableName=_table(),
            Item=_claim_item(claim),
            ConditionExpression="attribute_not_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        return _claim_of(getattr(err, "response", {}).get("Item") or {})
    return None


def take_over_digest(claim: Item, stale_before: int, max_attempts: int) -> tuple[bool, Item]:
    """Claim a digest claimed before (`claim` as in `claim_digest`, its `attempts` added
    to the stored count): when its last try `failed`, or when it is still `sending` but
    was claimed before `stale_before` (its sender died), and fewer than `max_attempts`
    tries were made. (True, the claim now) when taken, (False, the claim there is) not."""
    try:
        answer = client("dynamodb").update_item(
            TableName=_table(),
            Key=_claim_key(claim["account"], claim["period"]),
            UpdateExpression=(
                "SET #state = :sending, claimed_at = :now, #token = :token, "
                "expires_at = :expires ADD attempts :one"
            ),
            # claims made before attempts and claimed_at were kept count as stale
            ConditionExpression=(
                "(attribute_not_exists(attempts) OR attempts < :max) AND (#state = :failed OR "
                "(#state = :sending AND "
                "(attribute_not_exists(claimed_at) OR claimed_at < :stale)))"
            ),
            ExpressionAttributeNames={"#state": "state", "#token": "token"},
            ExpressionAttributeValues={
                ":sending": {"S": "sending"},
                ":failed": {"S": "failed"},
                ":now": {"N": str(claim["claimed_at"])},
                ":stale": {"N": str(stale_before)},
                ":token": {"S": claim["token"]},
                ":expires": {"N": str(claim["expires_at"])},
                ":one": {"N": str(claim["attempts"])},
                ":max": {"N": str(max_attempts)},
            },
            ReturnValues="ALL_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except Exception as err:
        if error_code(err) != "ConditionalCheckFailedException":
            raise
        return False, _claim_of(getattr(err, "response", {}).get("Item") or {})
    return True, _claim_of(answer["Attributes"])


def record_digest(claim: Item, token: str) -> bool:
    """Replace the claim held under `token` with `claim` (what became of the digest: its
    `state` and `detail`); False when the claim is no longer that token's."""
    try:
        client("dynamodb").put_item(
            TableName=_table(),
            Item=_claim_item(claim),
            ConditionExpression="#token = :token",
            ExpressionAttributeNames={"#token": "token"},
            ExpressionAttributeValues={":token": {"S": token}},
        )
    except Exception as err:
        if error_code(err) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _claim_item(claim: Item) -> dict[str, Any]:
    fields = {k: v for k, v in claim.items() if k not in ("account", "period") and v is not None}
    return {**_claim_key(claim["account"], claim["period"]), **to_item(fields)}


def _claim_of(item: dict[str, Any]) -> Item:
    found = from_item(item)
    account = str(found.pop("pk", "")).removeprefix("DIGEST#")
    return {"account": account, "period": found.pop("sk", ""), **found}
