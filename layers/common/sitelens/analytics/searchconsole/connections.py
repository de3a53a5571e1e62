"""A website's connection to a Search Console property (docs/search-console.md): made with
a refresh token (the caller's own OAuth flow, or ours: `consent` and `callback`) or a
service account's key; the secret sealed where it is stored (`tokens.sealing`: KMS
deployed, a local key under `make serve`), never logged, never shown.

A property belongs to the website's domain: a URL-prefix property (`https://example.com/`,
`http://www.example.com/blog/`) whose host is the website's domain (with or without
`www.`), or a domain property `sc-domain:<the website's domain>`.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, model_validator

from sitelens.analytics.searchconsole import google
from sitelens.core import clock, errors, hosts
from sitelens.core.errors import FieldError
from sitelens.data import queues
from sitelens.data import search_console as stored
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input
from sitelens.tokens import sealing, signing

STATE_SECONDS: Final = 600  # a consent must come back within ten minutes
STATE_PURPOSE: Final = "oauth:searchconsole"
CALLBACK_PATH: Final = "/api/v1/search-console/callback"
MAX_KEY_BYTES: Final = 4096  # what one seal takes; a service account's key is about 2.3 KB


class Refused(errors.ApiError):
    """400: the stack cannot ask for consent (no OAuth client is configured)."""

    status = 400

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.message = sentence


def _property(value: Any) -> str:
    text = str(value).strip() if isinstance(value, str) else ""
    if text.startswith("sc-domain:"):
        try:
            hosts.parse(text.removeprefix("sc-domain:"))
        except ValueError:
            raise FieldError("The property's domain is not a valid domain.") from None
        return f"sc-domain:{hosts.parse(text.removeprefix('sc-domain:')).ascii}"
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise FieldError(
            "The property must be a URL-prefix property (https://example.com/) "
            "or a domain property (sc-domain:example.com)."
        )
    if not parts.path.endswith("/"):
        raise FieldError("A URL-prefix property ends with a slash: https://example.com/.")
    return text


def _key(value: Any) -> dict[str, str]:
    """A service account's key: the JSON file Google gives (an object, or its text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise FieldError("The service account key must be the key file's JSON.") from None
    wanted = ("client_email", "private_key")
    if not isinstance(value, dict) or value.get("type") != "service_account":
        raise FieldError("The service account key must be a key file of type service_account.")
    if not all(isinstance(value.get(name), str) and value[name] for name in wanted):
        raise FieldError("The service account key must have client_email and private_key.")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    try:
        private = serialization.load_pem_private_key(value["private_key"].encode(), password=None)
    except (ValueError, TypeError):
        private = None
    if not isinstance(private, rsa.RSAPrivateKey):
        raise FieldError("The service account key's private_key is not an RSA key in PEM.")
    kept = {name: str(value.get(name) or "") for name in (*wanted, "private_key_id")}
    if len(json.dumps(kept).encode()) > MAX_KEY_BYTES:
        raise FieldError("The service account key is too large.")
    return kept


class Connection(Input):
    """`property` and exactly one of `refresh_token` or `service_account_key`."""

    property: Annotated[str, BeforeValidator(_property)]
    refresh_token: Annotated[str, Field(min_length=1, max_length=2048)] | None = None
    service_account_key: Annotated[dict[str, str], BeforeValidator(_key)] | None = None

    @model_validator(mode="after")
    def _one_secret(self) -> Connection:
        if (self.refresh_token is None) == (self.service_account_key is None):
            raise ValueError("exactly one")
        return self

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Connection:
        try:
            return super().parse(data)
        except errors.Invalid as err:
            messages = dict(err.message) if isinstance(err.message, dict) else {}
            body = messages.pop("body", None)
            if body is None:
                raise
            sentence = "Give exactly one of refresh_token or service_account_key."
            raise errors.Invalid({**messages, "refresh_token": [sentence]}) from None


def belongs(site_property: str, domain: str) -> bool:
    """Whether the property is the website's domain's (www. or not)."""
    site = hosts.site(domain)
    if site_property.startswith("sc-domain:"):
        return hosts.site(site_property.removeprefix("sc-domain:")) == site
    return hosts.site(urlsplit(site_property).hostname or "") == site


def _website(account: str, website_id: int) -> dict[str, Any]:
    website = stored_websites.get(account, website_id)
    if website is None:
        raise errors.NotFound()
    return website


def connect(account: str, website_id: int, fields: Connection) -> dict[str, Any]:
    """Connect (or connect again) the website; its backfill is queued. 404 for another
    account's website; 422 for a property of another domain."""
    website = _website(account, website_id)
    if not belongs(fields.property, website["domain"]):
        raise errors.Invalid.field(
            "property", f"The property must be of the website's domain, {website['domain']}."
        )
    if fields.service_account_key is not None:
        secret, method = json.dumps(fields.service_account_key), "service_account"
        email = fields.service_account_key["client_email"]
    else:
        secret, method, email = fields.refresh_token or "", "oauth", ""
    return _store(account, website_id, fields.property, method, secret, email)


def _store(
    account: str, website_id: int, site_property: str, method: str, secret: str, email: str
) -> dict[str, Any]:
    now = clock.iso(clock.now())
    earlier = stored.get(account, website_id)
    if earlier is not None and earlier["property"] != site_property:
        stored.delete_rows(website_id)  # another property's rows are not this one's
    record: dict[str, Any] = {
        "account": account,
        "website_id": website_id,
        "property": site_property,
        "method": method,
        "client_email": email,
        "secret": sealing.seal(secret),
        "connected_at": now,
        "updated_at": now,
        "import_status": "queued",
        "import_requested_at": now,
    }
    stored.put(record)
    queues.send_search_console_import(account, website_id)
    return show(record)


def get(account: str, website_id: int) -> dict[str, Any]:
    """The website's connection and its last import; 404 when not connected."""
    _website(account, website_id)
    record = stored.get(account, website_id)
    if record is None:
        raise errors.NotFound()
    return show(record)


def show(record: dict[str, Any]) -> dict[str, Any]:
    """What the API answers of a connection: never its secret."""
    return {
        "website_id": int(record["website_id"]),
        "property": record["property"],
        "method": record["method"],
        "client_email": record.get("client_email") or None,
        "connected_at": record["connected_at"],
        "last_import": {
            "status": record.get("import_status") or "queued",
            "error": record.get("import_error"),
            "requested_at": record.get("import_requested_at"),
            "finished_at": record.get("import_finished_at"),
            "resume_after": record.get("resume_after"),
            "imported_through": record.get("imported_through"),
            "rows": int(record.get("import_rows") or 0),
            "days": int(record.get("import_days") or 0),
        },
    }


def disconnect(account: str, website_id: int) -> int:
    """Forget the connection and delete its imported rows; 404 when not connected."""
    _website(account, website_id)
    if stored.get(account, website_id) is None:
        raise errors.NotFound()
    stored.delete(account, website_id)
    stored.delete_rows(website_id)
    return website_id


def import_now(account: str, website_id: int) -> dict[str, Any]:
    """Queue an import at once (a 429's wait is not skipped: the import finds it)."""
    _website(account, website_id)
    record = stored.get(account, website_id)
    if record is None:
        raise errors.NotFound()
    now = clock.iso(clock.now())
    fields = {"import_requested_at": now}
    if record.get("import_status") in ("done", "failed", None):
        fields["import_status"] = "queued"
    stored.set_fields(account, website_id, fields)
    queues.send_search_console_import(account, website_id)
    return show({**record, **fields})


# -- OAuth for people ----------------------------------------------------------------------


def consent(account: str, website_id: int, site_property: str, base_url: str) -> str:
    """Google's consent URL for connecting the website, with a signed, expiring `state`."""
    website = _website(account, website_id)
    try:
        checked = _property(site_property)
    except FieldError as err:
        raise errors.Invalid.field("property", str(err)) from None
    if not belongs(checked, website["domain"]):
        raise errors.Invalid.field(
            "property", f"The property must be of the website's domain, {website['domain']}."
        )
    if not google.endpoints().client_id:
        raise Refused("No Google OAuth client is configured (SITELENS_GOOGLE_CLIENT_ID).")
    state = signing.sign(
        {"a": account, "w": website_id, "p": checked}, STATE_PURPOSE, time.time() + STATE_SECONDS
    )
    return google.consent_url(base_url + CALLBACK_PATH, state)


def callback(query: dict[str, str], base_url: str) -> dict[str, Any]:
    """Google's redirect back: the state verified, the code exchanged, the refresh token
    stored as the website's connection. 422 for a bad or expired state (on `state`), a
    consent declined or a code Google refuses (on `code`)."""
    try:
        state = signing.verify(query.get("state", ""), STATE_PURPOSE)
    except signing.BadToken:
        raise errors.Invalid.field(
            "state", "The state is invalid or expired: start the connection again."
        ) from None
    if query.get("error") or not query.get("code"):
        raise errors.Invalid.field(
            "code", f"Google did not grant access ({query.get('error') or 'no code'})."
        )
    account, website_id = str(state["a"]), int(state["w"])
    _website(account, website_id)
    try:
        refresh = google.exchange_code(query["code"], base_url + CALLBACK_PATH)
    except google.GoogleError as err:
        raise errors.Invalid.field("code", f"Google refused the code ({err.reason}).") from None
    return _store(account, website_id, str(state["p"]), "oauth", refresh, "")
