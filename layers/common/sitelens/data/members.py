"""An account's members, their invitations and the count of its owners, in the accounts
table.

Items:
- `MEMBERS#<account>`/`<member id>`: `email`, `role`, `created_at`, `invited_by`, and once
  removed `removed_at` (kept, so a removed member's key never works again; a removed
  invitee's entry expires by the table's TTL, `expires_at`, the founder's never does, as
  keys made before members resolve to it). Member 1 is the account's founder: the owner of
  every key that names no member.
- `OWNERS#<account>`/`OWNERS`: `owners`, how many live owners it has; every change of an
  owner's role or presence moves it in the same transaction, on the condition that it stays
  at least 1, so two owners demoting each other at once cannot leave none.
- `INVITE#<account>`/`<sha256 of the email>`: a pending invitation (`id`, `email`, `role`,
  `nonce`, `invited_by`, `created_at`, `expires_at`, which the TTL also removes it by); one
  an address, so a new one replaces the old, and the partition holds at most the pending
  cap plus the expired ones the TTL has not removed yet.
"""

from __future__ import annotations

import contextlib
from typing import Any

from sitelens.core.config import settings
from sitelens.data import caps, transactions
from sitelens.data.clients import client, every_item
from sitelens.data.items import Item, Write, from_item, to_item

FOUNDER = "1"


def _table() -> str:
    return settings().accounts_table


def _member_key(account_id: str, member_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"MEMBERS#{account_id}"}, "sk": {"S": member_id}}


def _owners_key(account_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"OWNERS#{account_id}"}, "sk": {"S": "OWNERS"}}


def _invite_key(account_id: str, email_hash: str) -> dict[str, Any]:
    return {"pk": {"S": f"INVITE#{account_id}"}, "sk": {"S": email_hash}}


def _entry(raw: dict[str, Any]) -> Item:
    item = from_item(raw)
    item["id"] = item.pop("sk")
    item.pop("pk", None)
    return item


def get(account_id: str, member_id: str) -> Item | None:
    """One member of the account (removed ones too, with `removed_at`), or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_member_key(account_id, member_id), ConsistentRead=True
    )
    return _entry(answer["Item"]) if "Item" in answer else None


def of_account(account_id: str) -> list[Item]:
    """Every member entry of the account, removed ones included (one Query: an account has
    at most `accounts.members.MAX_MEMBERS` live ones)."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"MEMBERS#{account_id}"}},
        "ConsistentRead": True,
    }
    return [_entry(item) for item in every_item(query)]


def adopt_founder(account_id: str, founder: Item) -> None:
    """Make the account's founder (member 1, an owner) and its owners' count, unless they
    exist: an account made before members gets them on its first members request."""
    with contextlib.suppress(transactions.ConditionFailed):  # adopted already
        transactions.write(
            [
                {
                    "Put": {
                        "TableName": _table(),
                        "Item": {**_member_key(account_id, FOUNDER), **to_item(founder)},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                {
                    "Put": {
                        "TableName": _table(),
                        "Item": {**_owners_key(account_id), "owners": {"N": "1"}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )


def _next(collection: str) -> int:
    answer = client("dynamodb").update_item(
        TableName=_table(),
        Key={"pk": {"S": "COUNTER"}, "sk": {"S": collection}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def next_id(account_id: str) -> str:
    """A new member id of the account: 2, 3, ... (1 is the founder's)."""
    return str(_next(f"members#{account_id}") + 1)


def next_invitation_id(account_id: str) -> int:
    """A new invitation id of the account: 1, 2, ... (never reused, also once replaced)."""
    return _next(f"invitations#{account_id}")


def _owners_change(account_id: str, delta: int) -> Write:
    """Add `delta` to the owners' count; a decrease only while another owner stays."""
    update: dict[str, Any] = {
        "TableName": _table(),
        "Key": _owners_key(account_id),
        "UpdateExpression": "ADD owners :delta",
        "ExpressionAttributeValues": {":delta": {"N": str(delta)}},
    }
    if delta < 0:
        update["ConditionExpression"] = "owners > :one"
        update["ExpressionAttributeValues"][":one"] = {"N": "1"}
    return {"Update": update}


def get_invitation(account_id: str, email_hash: str) -> Item | None:
    answer = client("dynamodb").get_item(
        TableName=_table(), Key=_invite_key(account_id, email_hash), ConsistentRead=True
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def invitations_of(account_id: str) -> list[Item]:
    """Every invitation item of the account, expired ones the TTL has not removed yet
    included, each with `email_hash`: one Query of a partition the pending cap bounds."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"INVITE#{account_id}"}},
        "ConsistentRead": True,
    }
    found = []
    for raw in every_item(query):
        item = from_item(raw)
        item["email_hash"] = item.pop("sk")
        item.pop("pk", None)
        found.append(item)
    return found


def _pending_except(account_id: str, email_hash: str, now: int) -> int:
    """How many invitations of the account are pending, the address's own left out."""
    return sum(
        1
        for item in invitations_of(account_id)
        if item["email_hash"] != email_hash and int(item["expires_at"]) > now
    )


def put_invitation(
    account_id: str,
    email_hash: str,
    invitation: Item,
    now: int,
    also: list[Write],
    replaces: str | None,
    limit: int,
) -> bool:
    """Store an invitation, with `also` (its audit log entry): over none or an expired one
    for the address, or over the pending one whose nonce is `replaces`. False, and nothing
    written, when the account has `limit` other pending invitations; ConditionFailed (index
    0) when the address's invitation is not what the caller read (another came at once)."""
    condition = "attribute_not_exists(pk) OR expires_at <= :now"
    values = {":now": {"N": str(now)}}
    if replaces is not None:
        condition += " OR nonce = :replaced"
        values[":replaced"] = {"S": replaces}
    put: Write = {
        "Put": {
            "TableName": _table(),
            "Item": {**_invite_key(account_id, email_hash), **to_item(invitation)},
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
        }
    }

    def count() -> int:
        return _pending_except(account_id, email_hash, now)

    return caps.add_within(_table(), f"INVITE#{account_id}", [put, *also], count, limit)


def delete_invitation(account_id: str, email_hash: str, nonce: str, also: list[Write]) -> None:
    """Withdraw the invitation whose nonce is `nonce`, with `also` (its audit log entry);
    ConditionFailed (index 0) when it was accepted, withdrawn or replaced meanwhile."""
    delete: Write = {
        "Delete": {
            "TableName": _table(),
            "Key": _invite_key(account_id, email_hash),
            "ConditionExpression": "nonce = :nonce",
            "ExpressionAttributeValues": {":nonce": {"S": nonce}},
        }
    }
    transactions.write([delete, *also])


def accept(
    account_id: str, email_hash: str, nonce: str, member_id: str, member: Item, also: list[Write]
) -> None:
    """Turn the invitation into a member, with `also` (the member's first key, the audit
    log's entry) in the same transaction; ConditionFailed when the invitation is gone or
    was made anew (another accept came first, or it was replaced or withdrawn)."""
    writes: list[Write] = [
        {
            "Delete": {
                "TableName": _table(),
                "Key": _invite_key(account_id, email_hash),
                "ConditionExpression": "nonce = :nonce",
                "ExpressionAttributeValues": {":nonce": {"S": nonce}},
            }
        },
        {
            "Put": {
                "TableName": _table(),
                "Item": {**_member_key(account_id, member_id), **to_item(member)},
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
    ]
    if member["role"] == "owner":
        writes.append(_owners_change(account_id, 1))
    transactions.write(writes + also)


def set_role(account_id: str, member_id: str, old: str, new: str, also: list[Write]) -> None:
    """Change a live member's role from `old` to `new`, with `also` in the transaction;
    ConditionFailed when the member changed in between (index 0) or it would leave the
    account without an owner (index 1)."""
    writes: list[Write] = [
        {
            "Update": {
                "TableName": _table(),
                "Key": _member_key(account_id, member_id),
                "UpdateExpression": "SET #role = :new",
                "ConditionExpression": "#role = :old AND attribute_not_exists(removed_at)",
                "ExpressionAttributeNames": {"#role": "role"},
                "ExpressionAttributeValues": {":new": {"S": new}, ":old": {"S": old}},
            }
        }
    ]
    if old == "owner" and new != "owner":
        writes.append(_owners_change(account_id, -1))
    elif new == "owner" and old != "owner":
        writes.append(_owners_change(account_id, 1))
    transactions.write(writes + also)


def remove(
    account_id: str,
    member_id: str,
    role: str,
    removed_at: str,
    expires_at: int | None,
    also: list[Write],
) -> None:
    """Mark a live member removed (`expires_at`: when its entry goes, None: kept), with
    `also`; ConditionFailed when removed already (index 0) or the last owner (index 1)."""
    values = {":now": removed_at, ":role": role}
    update = "SET removed_at = :now"
    if expires_at is not None:
        update += ", expires_at = :ttl"
        values[":ttl"] = expires_at  # type: ignore[assignment]
    writes: list[Write] = [
        {
            "Update": {
                "TableName": _table(),
                "Key": _member_key(account_id, member_id),
                "UpdateExpression": update,
                "ConditionExpression": "#role = :role AND attribute_not_exists(removed_at)",
                "ExpressionAttributeNames": {"#role": "role"},
                "ExpressionAttributeValues": to_item(values),
            }
        }
    ]
    if role == "owner":
        writes.append(_owners_change(account_id, -1))
    transactions.write(writes + also)
