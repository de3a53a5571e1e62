"""The websites routes' rules and data access as a typical FastAPI or Powertools project
writes them: pydantic models with field validators, a boto3 client at module scope,
`TypeDeserializer` for items, and bearer keys looked up by hash with a short cache.

Both peer apps share this module, the way such projects keep a `services` module. The
rules are the same as Sitelens's (domain normalisation, IP and parameter lines, choices,
password with privacy 2), and so are the DynamoDB calls, tables and indexes.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import boto3
import idna
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

dynamodb = boto3.client("dynamodb")

ACCOUNTS_TABLE = os.environ.get("SITELENS_ACCOUNTS_TABLE", "sitelens-accounts")
WEBSITES_TABLE = os.environ.get("SITELENS_WEBSITES_TABLE", "sitelens-websites")
KEY_CACHE_SECONDS = float(os.environ.get("SITELENS_KEY_CACHE_SECONDS", "30"))

_deserializer = TypeDeserializer()
_serializer = TypeSerializer()


# -- models -----------------------------------------------------------------------------


def _normalize_domain(raw: str) -> str:
    domain = raw.strip().lower()
    for scheme in ("http://", "https://"):
        domain = domain.removeprefix(scheme)
    domain = domain.removeprefix("www.").removesuffix("/")
    if not domain or len(domain) > 255 or not _is_host(domain):
        raise ValueError("Invalid domain name.")
    return domain


def _is_host(domain: str) -> bool:
    candidate = domain[1:-1] if domain.startswith("[") and domain.endswith("]") else domain
    try:
        ipaddress.ip_address(candidate)
        return True
    except ValueError:
        pass
    try:
        ascii_name = idna.encode(domain, uts46=True).decode()
    except (idna.IDNAError, UnicodeError):
        return False
    labels = ascii_name.split(".")
    if len(labels) < 2 or len(ascii_name) > 253:
        return False
    if not (labels[-1].isalpha() or labels[-1].startswith("xn--")):
        return False
    return all(
        0 < len(label) <= 63
        and not label.startswith("-")
        and not label.endswith("-")
        and all(ch.isalnum() or ch == "-" for ch in label)
        for label in labels
    )


def _lines(value: str | list[str]) -> list[str]:
    text = "\n".join(value) if isinstance(value, list) else value
    entries = [line.strip() for line in text.replace("\r", "\n").split("\n")]
    entries = [line for line in entries if line]
    if len(entries) > 1000:
        raise ValueError("Must not have more than 1000 lines.")
    return entries


class WebsiteCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    domain: str
    privacy: Literal[0, 1, 2] = 0
    password: Annotated[str, Field(min_length=1, max_length=128)] | None = None
    email: Literal[0, 1] = 0
    exclude_bots: Literal[0, 1] = 1
    exclude_params: str | list[str] = ""
    exclude_ips: str | list[str] = ""

    @field_validator("domain")
    @classmethod
    def valid_domain(cls, value: str) -> str:
        return _normalize_domain(value)

    @field_validator("exclude_ips")
    @classmethod
    def valid_ips(cls, value: str | list[str]) -> str:
        entries = _lines(value)
        for line in entries:
            try:
                if "/" in line:
                    ipaddress.ip_network(line, strict=False)
                else:
                    ipaddress.ip_address(line)
            except ValueError:
                raise ValueError(f"{line} is not a valid IP address or CIDR range.") from None
        return "\n".join(entries)

    @field_validator("exclude_params")
    @classmethod
    def valid_params(cls, value: str | list[str]) -> str:
        entries = _lines(value)
        for line in entries:
            if line != "&" and (len(line) > 255 or set("=&#?/ \t") & set(line)):
                raise ValueError(f"{line} is not a valid query parameter name.")
        return "\n".join(entries)

    @model_validator(mode="after")
    def password_when_protected(self) -> WebsiteCreate:
        if self.privacy == 2 and not self.password:
            raise ValueError("The password field is required when privacy is 2.")
        return self


class WebsiteListQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    search: Annotated[str, Field(max_length=255)] | None = None
    search_by: Literal["domain"] = "domain"
    favorite: Annotated[int, Field(ge=0, le=1)] | None = None
    sort_by: Literal["id", "domain"] = "id"
    sort: Literal["desc", "asc"] = "desc"
    per_page: int = 10
    cursor: Annotated[str, Field(max_length=4096)] | None = None

    @field_validator("per_page")
    @classmethod
    def page_size(cls, value: int) -> int:
        if value not in (10, 25, 50, 100):
            raise ValueError("Must be one of: 10, 25, 50, 100.")
        return value


class Website(BaseModel):
    id: int
    domain: str
    privacy: int
    password: bool
    email: int
    exclude_bots: int
    exclude_params: str
    exclude_ips: str
    favorite: bool
    favorited_at: str | None
    created_at: str
    updated_at: str


class WebsiteEnvelope(BaseModel):
    data: Website
    status: int


class Links(BaseModel):
    first: str | None = None
    last: str | None = None
    prev: str | None = None
    next: str | None = None


class Meta(BaseModel):
    path: str
    per_page: int
    next_cursor: str | None
    prev_cursor: str | None


class WebsitePage(BaseModel):
    data: list[Website]
    links: Links
    meta: Meta
    status: int


# -- auth -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    id: str
    name: str


_keys: dict[str, tuple[float, Account]] = {}


def authorize(key: str) -> Account | None:
    """The account of a bearer key: GetItem by hash, then the account, cached briefly."""
    hashed = hashlib.sha256(key.encode()).hexdigest()
    cached = _keys.get(hashed)
    now = time.monotonic()
    if cached and cached[0] > now:
        return cached[1]
    found = dynamodb.get_item(
        TableName=ACCOUNTS_TABLE, Key={"pk": {"S": f"KEY#{hashed}"}, "sk": {"S": "KEY"}}
    ).get("Item")
    if found is None:
        return None
    account_id = found["account"]["S"]
    item = dynamodb.get_item(
        TableName=ACCOUNTS_TABLE,
        Key={"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "ACCOUNT"}},
    )["Item"]
    account = Account(id=account_id, name=item["name"]["S"])
    _keys[hashed] = (now + KEY_CACHE_SECONDS, account)
    return account


# -- websites ---------------------------------------------------------------------------


class DomainTaken(Exception):
    pass


def _record(item: dict[str, Any]) -> dict[str, Any]:
    return {name: _deserializer.deserialize(value) for name, value in item.items()}


def show(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": record["id"],
        "domain": record["domain"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "email": record["email"],
        "exclude_bots": record["exclude_bots"],
        "exclude_params": record["exclude_params"],
        "exclude_ips": record["exclude_ips"],
        "favorite": bool(record["favorite"]),
        "favorited_at": record.get("favorited_at"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def get_website(account_id: str, website_id: int) -> dict[str, Any] | None:
    item = dynamodb.get_item(
        TableName=WEBSITES_TABLE,
        Key={"account": {"S": account_id}, "id": {"N": str(website_id)}},
        ConsistentRead=True,
    ).get("Item")
    return show(_record(item)) if item else None


_INDEXES = {
    ("id", False): (None, "account"),
    ("domain", False): ("by_domain", "account"),
    ("id", True): ("favorite_by_id", "favorite_key"),
    ("domain", True): ("favorite_by_domain", "favorite_key"),
}


def list_websites(
    account_id: str, query: WebsiteListQuery
) -> tuple[list[dict[str, Any]], str | None]:
    """One page in the query's order, and the cursor of the next (DynamoDB's last key)."""
    index, partition = _INDEXES[(query.sort_by, query.favorite is not None)]
    value = account_id if query.favorite is None else f"{account_id}#{query.favorite}"
    request: dict[str, Any] = {
        "TableName": WEBSITES_TABLE,
        "KeyConditionExpression": "#p = :p",
        "ExpressionAttributeNames": {"#p": partition},
        "ExpressionAttributeValues": {":p": {"S": value}},
        "ScanIndexForward": query.sort == "asc",
        "Limit": query.per_page,
    }
    if index:
        request["IndexName"] = index
    if query.search:
        request["FilterExpression"] = "contains(#q, :q)"
        request["ExpressionAttributeNames"]["#q"] = "search"
        request["ExpressionAttributeValues"][":q"] = {"S": query.search.lower()}
    if query.cursor:
        request["ExclusiveStartKey"] = json.loads(base64.urlsafe_b64decode(query.cursor))
    answer = dynamodb.query(**request)
    last = answer.get("LastEvaluatedKey")
    cursor = base64.urlsafe_b64encode(json.dumps(last).encode()).decode() if last else None
    return [show(_record(item)) for item in answer["Items"]], cursor


def _hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return f"scrypt${salt.hex()}${digest.hex()}"


def create_website(account_id: str, fields: WebsiteCreate) -> dict[str, Any]:
    """A new website; DomainTaken when its domain is claimed already."""
    claim_name = idna.encode(fields.domain, uts46=True).decode()
    claim_key = {"account": {"S": f"#claim:{claim_name}"}, "id": {"N": "0"}}
    if "Item" in dynamodb.get_item(TableName=WEBSITES_TABLE, Key=claim_key):
        raise DomainTaken(fields.domain)
    counter = dynamodb.update_item(
        TableName=WEBSITES_TABLE,
        Key={"account": {"S": "#counter"}, "id": {"N": "0"}},
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    website_id = int(counter["Attributes"]["last_id"]["N"])
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record: dict[str, Any] = {
        "account": account_id,
        "id": website_id,
        "domain": fields.domain,
        "search": fields.domain,
        "privacy": fields.privacy,
        "email": fields.email,
        "exclude_bots": fields.exclude_bots,
        "exclude_params": fields.exclude_params,
        "exclude_ips": fields.exclude_ips,
        "favorite": False,
        "favorited_at": None,
        "created_at": now,
        "updated_at": now,
        "domain_sort": fields.domain,
        "favorite_key": f"{account_id}#0",
    }
    if fields.privacy == 2 and fields.password:
        record["password_hash"] = _hash_password(fields.password)
    item = {name: _serializer.serialize(value) for name, value in record.items()}
    try:
        dynamodb.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": WEBSITES_TABLE,
                        "Item": {
                            **claim_key,
                            "owner": {"S": account_id},
                            "record_id": {"N": str(website_id)},
                        },
                        "ConditionExpression": "attribute_not_exists(id)",
                    }
                },
                {
                    "Put": {
                        "TableName": WEBSITES_TABLE,
                        "Item": item,
                        "ConditionExpression": "attribute_not_exists(id)",
                    }
                },
            ]
        )
    except dynamodb.exceptions.TransactionCanceledException:
        raise DomainTaken(fields.domain) from None
    return show(record)
