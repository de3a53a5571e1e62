"""Google's OAuth 2.0 token endpoint and the Search Console API, as documented: the only
code that speaks to them. Their URLs are settings (`Endpoints`), so tests and `make serve`
point them at the local stand-in (`sitelens.local.google`); nothing in the suite reaches
Google.

A service account's access token is a JWT-bearer grant (RFC 7523): an RS256 assertion
signed here with `cryptography` (already a dependency, for sealing), rather than a JWT
library: the assertion is three fixed claims, and one signing call is all it needs.
"""

from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote, urlencode

from sitelens.core.config import settings
from sitelens.data import secrets as stored_secrets

SCOPE: Final = "https://www.googleapis.com/auth/webmasters.readonly"
TIMEOUT_SECONDS: Final = 20.0
JWT_SECONDS: Final = 3600  # the longest a service account's assertion may live


@dataclass(frozen=True)
class Endpoints:
    """Where Google is, and Sitelens's OAuth client there (docs/search-console.md)."""

    auth_url: str
    token_url: str
    api_url: str
    client_id: str


def endpoints() -> Endpoints:
    """The endpoints from the environment, Google's own by default."""
    env = os.environ.get
    return Endpoints(
        auth_url=env("SITELENS_GOOGLE_AUTH_URL") or "https://accounts.google.com/o/oauth2/v2/auth",
        token_url=env("SITELENS_GOOGLE_TOKEN_URL") or "https://oauth2.googleapis.com/token",
        api_url=(
            env("SITELENS_SEARCH_CONSOLE_API_URL") or "https://www.googleapis.com/webmasters/v3"
        ).rstrip("/"),
        client_id=env("SITELENS_GOOGLE_CLIENT_ID") or "",
    )


_held_secret: dict[str, str] = {}


def client_secret() -> str:
    """The OAuth client's secret: SITELENS_GOOGLE_CLIENT_SECRET (make serve, tests), or,
    deployed, the SecureString parameter the stack is given the name of (read once a
    container), never in the function's configuration."""
    given = os.environ.get("SITELENS_GOOGLE_CLIENT_SECRET")
    if given:
        return given
    name = settings().google_client_secret_parameter
    if name and name not in _held_secret:
        _held_secret[name] = stored_secrets.parameter_string(name) or ""
    return _held_secret.get(name, "")


class GoogleError(Exception):
    """Google refused: `status` (HTTP) and its own words (`reason`: invalid_grant,
    PERMISSION_DENIED, RESOURCE_EXHAUSTED...), with its message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status, self.reason, self.message = status, reason, message

    @property
    def quota(self) -> bool:
        """A quota or rate answer: to try again later, not a failure of the connection."""
        return self.status == 429 or self.reason in ("RESOURCE_EXHAUSTED", "rateLimitExceeded")

    @property
    def revoked(self) -> bool:
        """The grant is gone (revoked, expired, a deleted key): the user must connect again."""
        return self.status == 401 or self.reason in ("invalid_grant", "invalid_client")


def _post(url: str, data: bytes, headers: dict[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310
            return dict(json.loads(answer.read()))
    except urllib.error.HTTPError as err:
        raise _refusal(err.code, err.read()) from None


def _refusal(status: int, body: bytes) -> GoogleError:
    try:
        found = json.loads(body)
    except ValueError:
        found = {}
    error = found.get("error") if isinstance(found, dict) else None
    if isinstance(error, dict):  # the APIs' shape
        return GoogleError(status, str(error.get("status", "")), str(error.get("message", "")))
    if isinstance(error, str):  # the token endpoint's (RFC 6749)
        return GoogleError(status, error, str(found.get("error_description", "")))
    return GoogleError(status, "", body[:200].decode("utf-8", "replace"))


def _token(form: dict[str, str]) -> dict[str, Any]:
    data = urlencode(form).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    return _post(endpoints().token_url, data, headers)


def exchange_code(code: str, redirect_uri: str) -> str:
    """The refresh token an authorization code gives (OAuth's callback)."""
    where = endpoints()
    answer = _token(
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "client_id": where.client_id,
            "client_secret": client_secret(),
        }
    )
    refresh = answer.get("refresh_token")
    if not isinstance(refresh, str) or not refresh:
        raise GoogleError(400, "no_refresh_token", "Google gave no refresh token.")
    return refresh


def access_token(refresh_token: str | None = None, key: dict[str, Any] | None = None) -> str:
    """A short-lived access token, from a refresh token or a service account's key."""
    if key is not None:
        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
            "assertion": assertion(key, endpoints().token_url),
        }
    else:
        where = endpoints()
        form = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token or "",
            "client_id": where.client_id,
            "client_secret": client_secret(),
        }
    return str(_token(form)["access_token"])


def assertion(key: dict[str, Any], audience: str, now: float | None = None) -> str:
    """A service account's signed JWT (RS256) asking for read access to Search Console."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    issued = int(time.time() if now is None else now)
    header = {"alg": "RS256", "typ": "JWT", "kid": key.get("private_key_id", "")}
    claims = {
        "iss": key["client_email"],
        "scope": SCOPE,
        "aud": audience,
        "iat": issued,
        "exp": issued + JWT_SECONDS,
    }
    signing_input = f"{_b64json(header)}.{_b64json(claims)}"
    private = serialization.load_pem_private_key(key["private_key"].encode(), password=None)
    if not isinstance(private, rsa.RSAPrivateKey):
        raise ValueError("not an RSA key")
    signature = private.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


def query(token: str, site: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One `searchAnalytics.query` page of the property's rows (none past the last)."""
    url = f"{endpoints().api_url}/sites/{quote(site, safe='')}/searchAnalytics/query"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    answer = _post(url, json.dumps(body).encode(), headers)
    return list(answer.get("rows") or [])


def consent_url(redirect_uri: str, state: str) -> str:
    """Google's consent screen, asking for an offline (refresh) grant."""
    where = endpoints()
    asked = {
        "client_id": where.client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": SCOPE,
        "access_type": "offline",
        "prompt": "consent",  # a refresh token every time, even for a second connection
        "include_granted_scopes": "true",
        "state": state,
    }
    return f"{where.auth_url}?{urlencode(asked)}"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _b64json(value: dict[str, Any]) -> str:
    return _b64(json.dumps(value, separators=(",", ":")).encode())
