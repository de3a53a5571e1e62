"""Brands and their logos, in the accounts table.

Items: `BRAND#<account>`/`ACCOUNT` (the account's brand, every project's fallback) and
`BRAND#<account>`/`PROJECT#<project>` (a project's), with the logo's hash; the logo's
bytes once per content, `LOGO#<sha256>`/`LOGO` (a binary attribute: at most
`brands.logos.MAX_BYTES`, well inside an item's 400 KB, so no bucket is needed). A logo is
addressed by its hash, which share pages and emails link to; it is public as the pages
that show it are.
"""

from __future__ import annotations

from typing import Any

from sitelens.core import scopes
from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_item

ACCOUNT = "ACCOUNT"  # the sort key of the account's own brand


def _table() -> str:
    return settings().accounts_table


def _key(account: str, owner: str) -> dict[str, Any]:
    return {"pk": {"S": f"BRAND#{account}"}, "sk": {"S": owner}}


def project_owner(project: str) -> str:
    """The sort key of a project's brand."""
    return f"PROJECT#{project}"


def get(account: str, owner: str) -> Item | None:
    """A brand (`ACCOUNT` or `project_owner(...)`), or None; within the scope."""
    if owner != ACCOUNT and not scopes.admits("projects", {"project": owner[8:]}):
        return None
    answer = client("dynamodb").get_item(TableName=_table(), Key=_key(account, owner))
    if "Item" not in answer:
        return None
    found = from_item(answer["Item"])
    for name in ("frame_ancestors",):  # a list, stored as text lines
        found[name] = [line for line in str(found.get(name) or "").split("\n") if line]
    return {k: v for k, v in found.items() if k not in ("pk", "sk")}


def many(account: str, owners: list[str]) -> list[Item | None]:
    """The brands of `owners`, in their order (None where there is none)."""
    return [get(account, owner) for owner in owners]


def put(account: str, owner: str, brand: Item) -> None:
    """Write a brand whole (its logo stored first by `put_logo`)."""
    values = {**brand, "frame_ancestors": "\n".join(brand.get("frame_ancestors") or [])}
    item = {**_key(account, owner), **to_item(values)}
    client("dynamodb").put_item(TableName=_table(), Item=item)


def delete(account: str, owner: str) -> bool:
    """Remove a brand; whether there was one."""
    answer = client("dynamodb").delete_item(
        TableName=_table(), Key=_key(account, owner), ReturnValues="ALL_OLD"
    )
    return "Attributes" in answer


def put_logo(sha256: str, content_type: str, body: bytes) -> None:
    """Store a logo's bytes under their hash (the same bytes: the same item)."""
    client("dynamodb").put_item(
        TableName=_table(),
        Item={
            "pk": {"S": f"LOGO#{sha256}"},
            "sk": {"S": "LOGO"},
            "content_type": {"S": content_type},
            "body": {"B": body},
        },
    )


def get_logo(sha256: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of a stored logo, or None."""
    answer = client("dynamodb").get_item(
        TableName=_table(), Key={"pk": {"S": f"LOGO#{sha256}"}, "sk": {"S": "LOGO"}}
    )
    item = answer.get("Item")
    if item is None:
        return None
    return item["content_type"]["S"], bytes(item["body"]["B"])
