"""A stand-in DynamoDB client for timing handlers warm: it answers the websites
operations' calls from prebuilt items in DynamoDB's wire shape, at dict-lookup cost, so
what is timed is the handler's own code (botocore's request building is left out for
Sitelens and the peers alike)."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

from sitelens.data import websites
from sitelens.data.items import to_item

ACCOUNT_ID = "1"
KEY = "sl_benchmark_key_0123456789abcdefghijklmnopqrstuvwxyzABCD"
_WORDS = (  # noqa: SIM905 - a word list reads better as words
    "acme alpine amber atlas beacon birch canyon cedar cobalt delta ember falcon fjord "
    "garnet harbor indigo juniper kestrel lumen maple meadow nimbus orchid pioneer quartz "
    "raven sierra summit tundra umber vertex willow zephyr"
).split()
_TLDS = ("com", "net", "org", "io", "de", "co.uk", "shop")


def website_records(count: int, account: str = ACCOUNT_ID, seed: int = 7) -> list[dict[str, Any]]:
    """Websites as the store keeps them: varied domains, settings, favorites and dates."""
    rng = random.Random(seed)
    records = []
    for number in range(1, count + 1):
        domain = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}{number}.{rng.choice(_TLDS)}"
        created = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T09:30:00.000000Z"
        favorite = rng.random() < 0.2
        records.append(
            {
                "account": account,
                "id": number,
                "domain": domain,
                "search": domain,
                "privacy": rng.choice((0, 0, 0, 1, 2)),
                "email": rng.choice((0, 1)),
                "exclude_bots": 1,
                "exclude_params": rng.choice(("", "utm_source\nfbclid", "gclid")),
                "exclude_ips": rng.choice(("", "203.0.113.7\n198.51.100.0/24")),
                "favorite": favorite,
                "favorited_at": created if favorite else None,
                "created_at": created,
                "updated_at": created,
            }
        )
    return records


class FakeDynamoDB:
    """Answers GetItem, Query, UpdateItem (counter) and TransactWriteItems; counts calls."""

    def __init__(self, websites_count: int = 100) -> None:
        self.calls: Counter[str] = Counter()
        hashed = hashlib.sha256(KEY.encode()).hexdigest()
        self.items: dict[tuple[str, str], dict[str, Any]] = {
            (f"KEY#{hashed}", "KEY"): {
                "pk": {"S": f"KEY#{hashed}"},
                "sk": {"S": "KEY"},
                "account": {"S": ACCOUNT_ID},
                "key_id": {"S": "1"},
            },
            (f"ACCOUNT#{ACCOUNT_ID}", "ACCOUNT"): {
                "pk": {"S": f"ACCOUNT#{ACCOUNT_ID}"},
                "sk": {"S": "ACCOUNT"},
                "name": {"S": "Acme"},
                "created_at": {"S": "2026-01-05T08:00:00.000000Z"},
            },
        }
        self.websites = [
            to_item(websites.COLLECTION.with_index_keys(record))
            for record in website_records(websites_count)
        ]
        for item in self.websites:
            self.items[(item["account"]["S"], item["id"]["N"])] = item
        self.last_id = websites_count

    def get_item(self, *, TableName: str, Key: dict[str, Any], **_: Any) -> dict[str, Any]:
        self.calls["GetItem"] += 1
        if "pk" in Key:
            found = self.items.get((Key["pk"]["S"], Key["sk"]["S"]))
        else:
            found = self.items.get((Key["account"]["S"], Key["id"]["N"]))
        return {"Item": found} if found else {}

    def query(self, *, TableName: str, Limit: int = 100, **params: Any) -> dict[str, Any]:
        # A page of the account's websites; which index or order was asked does not change
        # what the handler has to do with it, so the stub does not sort.
        self.calls["Query"] += 1
        values = params.get("ExpressionAttributeValues") or {}
        if str(values.get(":pk", {}).get("S", "")).startswith("ENDPOINT#"):
            return {"Items": [], "Count": 0, "ScannedCount": 0}  # an account without webhooks
        found = self.websites[:Limit]
        answer: dict[str, Any] = {"Items": found, "Count": len(found), "ScannedCount": len(found)}
        if len(found) < len(self.websites):
            last = found[-1]
            answer["LastEvaluatedKey"] = {"account": last["account"], "id": last["id"]}
        return answer

    def update_item(self, *, TableName: str, Key: dict[str, Any], **_: Any) -> dict[str, Any]:
        self.calls["UpdateItem"] += 1
        self.last_id += 1
        return {"Attributes": {"last_id": {"N": str(self.last_id)}}}

    def put_item(self, **_: Any) -> dict[str, Any]:
        self.calls["PutItem"] += 1
        return {}

    def transact_write_items(
        self, *, TransactItems: list[dict[str, Any]], ClientRequestToken: str = ""
    ) -> dict[str, Any]:
        self.calls["TransactWriteItems"] += 1
        return {}
