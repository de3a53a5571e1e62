"""A local stand-in for Google's OAuth 2.0 and Search Console APIs (`make serve` on
`SITELENS_GOOGLE_PORT`, 3011; tests start one in process on a free port): the documented
request and response shapes, paging, errors and quota answers, over known rows.

- `GET /o/oauth2/v2/auth`: the consent screen, granted at once: a redirect to
  `redirect_uri` with a one-time `code` and the caller's `state`.
- `POST /token`: grant types `authorization_code`, `refresh_token` and
  `urn:ietf:params:oauth:grant-type:jwt-bearer` (a service account's RS256 assertion,
  verified with the public half of the key it was seeded with); RFC 6749 errors
  (`{"error": "invalid_grant", ...}`).
- `POST /webmasters/v3/sites/{siteUrl}/searchAnalytics/query`: dimensions date, page,
  query, country and device, `rowLimit` 1 to 25,000, `startRow`, `dataState`; rows by
  clicks descending; Google's error JSON (`{"error": {"code", "message", "status"}}`)
  for 400, 401 and 403, and 429 RESOURCE_EXHAUSTED while `quota_failures` last.

The rows are `known_rows`: the same property and day always give the same rows, so a
test knows every figure the import must store.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from sitelens.local import STOP_POLL_SECONDS
from sitelens.local.search_analytics import DIMENSIONS, Asked

COUNTRIES = ("usa", "gbr", "deu", "fra", "ind", "bra", "jpn")
DEVICES = ("DESKTOP", "MOBILE", "TABLET")
FINAL_DELAY_DAYS = 3  # `final` data ends three days ago; `all` (fresh) the day before
WINDOW_DAYS = 16 * 31  # Search Console keeps about 16 months
ANY_PROPERTY = "*"  # a grant for every property (make serve's developer token)
SCOPE = "https://www.googleapis.com/auth/webmasters.readonly"


@lru_cache(maxsize=64)
def known_rows(site: str, day: str, per_day: int) -> tuple[tuple[Any, ...], ...]:
    """The property's rows of a day: (date, page, query, country, device, clicks,
    impressions, ctr, position), by clicks descending (then as made), as GSC orders them."""
    seed = zlib.crc32(f"{site}|{day}".encode())
    host = site.removeprefix("sc-domain:").removeprefix("https://").removeprefix("http://")
    origin = f"https://{host.strip('/')}"
    rows = []
    for n in range(per_day):
        impressions = 1 + (n * 7919 + seed) % 200
        clicks = (n * 31 + seed) % (impressions // 4 + 1)
        position = 1 + ((n * 13 + seed) % 400) / 10
        page = f"{origin}/p{n % 97}" if n % 97 else f"{origin}/"
        query = f"query {n}"
        row = (day, page, query, COUNTRIES[n % 7], DEVICES[n % 3], clicks, impressions)
        rows.append((*row, clicks / impressions, position))
    rows.sort(key=lambda row: -row[5])
    return tuple(rows)


@dataclass
class Grant:
    properties: frozenset[str]

    def allows(self, site: str) -> bool:
        return ANY_PROPERTY in self.properties or site in self.properties


@dataclass
class GoogleStub:
    """The accounts, grants and quota of the local Google; thread-safe enough for tests."""

    rows_per_day: int = 40
    history_days: int = WINDOW_DAYS  # days of rows before today (a young property has few)
    client_id: str = "sitelens-local.apps.googleusercontent.com"
    client_secret: str = "sitelens-local-secret"  # noqa: S105 - the stand-in's, not a secret
    quota_failures: int = 0  # the next queries answered 429 RESOURCE_EXHAUSTED
    consent: frozenset[str] = frozenset({ANY_PROPERTY})  # what the consent screen grants
    token_url: str = ""  # set once serving: a service account's `aud`
    codes: dict[str, Grant] = field(default_factory=dict)
    refresh_tokens: dict[str, Grant] = field(default_factory=dict)
    access_tokens: dict[str, tuple[Grant, float]] = field(default_factory=dict)
    service_accounts: dict[str, tuple[Any, Grant]] = field(default_factory=dict)
    queries: list[dict[str, Any]] = field(default_factory=list)  # each query's body, in order
    _last: tuple[Any, list[dict[str, Any]]] | None = None  # the last question's rows

    def refresh_token(self, *properties: str) -> str:
        token = "1//local-" + secrets.token_urlsafe(24)
        self.refresh_tokens[token] = Grant(frozenset(properties))
        return token

    def revoke(self, token: str) -> None:
        """As a user removing the app's access: the refresh token and its access tokens go."""
        grant = self.refresh_tokens.pop(token, None)
        self.access_tokens = {k: v for k, v in self.access_tokens.items() if v[0] is not grant}

    def service_account(self, *properties: str) -> dict[str, str]:
        """A new service account's key file (JSON, as the Cloud console downloads it)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        email = f"sa-{secrets.token_hex(4)}@sitelens-local.iam.gserviceaccount.com"
        self.service_accounts[email] = (key.public_key(), Grant(frozenset(properties)))
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        return {
            "type": "service_account",
            "project_id": "sitelens-local",
            "private_key_id": secrets.token_hex(20),
            "private_key": pem,
            "client_email": email,
            "client_id": str(zlib.crc32(email.encode())),
            "token_uri": self.token_url,
        }

    # -- the token endpoint -------------------------------------------------------------

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        grant_type = form.get("grant_type", "")
        if grant_type == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            grant = self._assertion_grant(form.get("assertion", ""))
            if grant is None:
                return 400, _oauth_error("invalid_grant", "Invalid JWT Signature.")
            return 200, self._access(grant)
        if grant_type not in ("authorization_code", "refresh_token"):
            return 400, _oauth_error("unsupported_grant_type", "Invalid grant_type: " + grant_type)
        if (form.get("client_id"), form.get("client_secret")) != (
            self.client_id,
            self.client_secret,
        ):
            return 401, _oauth_error("invalid_client", "The OAuth client was not found.")
        if grant_type == "authorization_code":
            found = self.codes.pop(form.get("code", ""), None)
            if found is None:
                return 400, _oauth_error("invalid_grant", "Malformed auth code.")
            refresh = self.refresh_token(*found.properties)
            return 200, {**self._access(found), "refresh_token": refresh}
        held = self.refresh_tokens.get(form.get("refresh_token", ""))
        if held is None:
            return 400, _oauth_error("invalid_grant", "Token has been expired or revoked.")
        return 200, self._access(held)

    def _access(self, grant: Grant) -> dict[str, Any]:
        token = "ya29.local-" + secrets.token_urlsafe(24)
        self.access_tokens[token] = (grant, time.time() + 3599)
        return {"access_token": token, "expires_in": 3599, "scope": SCOPE, "token_type": "Bearer"}

    def _assertion_grant(self, assertion: str) -> Grant | None:
        """The service account's grant when the assertion is a valid RS256 JWT for us."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        try:
            head, body, signature = assertion.split(".")
            header, claims = json.loads(_unb64(head)), json.loads(_unb64(body))
            public, grant = self.service_accounts[claims["iss"]]
            public.verify(
                _unb64(signature), f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256()
            )
        except (ValueError, KeyError, TypeError, InvalidSignature):
            return None
        now = time.time()
        fresh = claims.get("iat", 0) - 300 <= now < claims.get("exp", 0) <= now + 3900
        if header.get("alg") != "RS256" or claims.get("aud") != self.token_url or not fresh:
            return None
        return grant if SCOPE in str(claims.get("scope", "")).split() else None

    # -- Search Console -----------------------------------------------------------------

    def query(self, site: str, authorization: str, body: Any) -> tuple[int, dict[str, Any]]:
        held = self.access_tokens.get(authorization.removeprefix("Bearer ").strip())
        if held is None or held[1] < time.time():
            return 401, _google_error(
                401,
                "Request had invalid authentication credentials. Expected OAuth 2 access "
                "token, login cookie or other valid authentication credential.",
                "UNAUTHENTICATED",
            )
        if not held[0].allows(site):
            return 403, _google_error(
                403,
                f"User does not have sufficient permission for site '{site}'. See also: "
                "https://support.google.com/webmasters/answer/2451999.",
                "PERMISSION_DENIED",
            )
        if self.quota_failures > 0:
            self.quota_failures -= 1
            return 429, _google_error(
                429, "Search Analytics load quota exceeded.", "RESOURCE_EXHAUSTED"
            )
        try:
            asked = Asked.of(body)
        except ValueError as err:
            return 400, _google_error(400, str(err), "INVALID_ARGUMENT")
        self.queries.append(body)
        rows = self._rows(site, asked)
        page = rows[asked.start_row : asked.start_row + asked.row_limit]
        answer: dict[str, Any] = {"responseAggregationType": "byPage"}
        if page:
            answer["rows"] = page
        return 200, answer

    def _rows(self, site: str, asked: Asked) -> list[dict[str, Any]]:
        """The rows of the asked range and dimensions, by clicks descending; the last
        answer is kept, so the pages of one question are cut from one list."""
        key = (site, asked.start, asked.end, asked.dimensions, asked.data_state)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        today = date.today()
        newest = today - timedelta(days=1 if asked.data_state != "final" else FINAL_DELAY_DAYS)
        first = max(asked.start, today - timedelta(days=min(WINDOW_DAYS, self.history_days)))
        days = []
        day = first
        while day <= min(asked.end, newest):
            days.append(known_rows(site, day.isoformat(), self.rows_per_day))
            day += timedelta(days=1)
        at = [DIMENSIONS.index(name) for name in asked.dimensions]
        rows: list[dict[str, Any]]
        if len(days) <= 1 and {"page", "query", "country", "device"} <= set(asked.dimensions):
            rows = [  # a row a key already: nothing to group
                {
                    "keys": [row[n] for n in at],
                    "clicks": row[5],
                    "impressions": row[6],
                    "ctr": row[7],
                    "position": row[8],
                }
                for found in days
                for row in found
            ]
        else:
            grouped: dict[tuple[str, ...], list[float]] = {}
            for found in days:
                for row in found:
                    sums = grouped.setdefault(tuple(row[n] for n in at), [0, 0, 0.0])
                    sums[0] += row[5]
                    sums[1] += row[6]
                    sums[2] += row[8] * row[6]  # position, weighted by impressions
            rows = [
                {
                    "keys": list(keys),
                    "clicks": clicks,
                    "impressions": shown,
                    "ctr": clicks / shown,
                    "position": weighted / shown,
                }
                for keys, (clicks, shown, weighted) in grouped.items()
            ]
            rows.sort(key=lambda row: -row["clicks"])  # stable: ties keep the rows' order
        self._last = (key, rows)
        return rows


def _google_error(code: int, message: str, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "errors": [], "status": status}}


def _oauth_error(error: str, description: str) -> dict[str, Any]:
    return {"error": error, "error_description": description}


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class GoogleServer(ThreadingHTTPServer):
    daemon_threads = True
    stub: GoogleStub

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def environment(self) -> dict[str, str]:
        """The settings that point Sitelens at this server (docs/search-console.md)."""
        return {
            "SITELENS_GOOGLE_AUTH_URL": f"{self.url}/o/oauth2/v2/auth",
            "SITELENS_GOOGLE_TOKEN_URL": f"{self.url}/token",
            "SITELENS_SEARCH_CONSOLE_API_URL": f"{self.url}/webmasters/v3",
            "SITELENS_GOOGLE_CLIENT_ID": self.stub.client_id,
            "SITELENS_GOOGLE_CLIENT_SECRET": self.stub.client_secret,
        }


class _Handler(BaseHTTPRequestHandler):
    server: GoogleServer

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != "/o/oauth2/v2/auth":
            return self._json(404, _google_error(404, "Not Found", "NOT_FOUND"))
        asked = {name: values[0] for name, values in parse_qs(parts.query).items()}
        stub = self.server.stub
        if asked.get("client_id") != stub.client_id or not asked.get("redirect_uri"):
            return self._json(400, _oauth_error("invalid_request", "Unknown client or redirect."))
        code = "4/local-" + secrets.token_urlsafe(16)
        stub.codes[code] = Grant(stub.consent)
        back = {"code": code, "scope": SCOPE, "state": asked.get("state", "")}
        self.send_response(302)
        self.send_header("Location", f"{asked['redirect_uri']}?{urlencode(back)}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        path = urlsplit(self.path).path
        stub = self.server.stub
        if path == "/token":
            form = {name: values[0] for name, values in parse_qs(raw.decode()).items()}
            return self._json(*stub.token(form))
        prefix, suffix = "/webmasters/v3/sites/", "/searchAnalytics/query"
        if path.startswith(prefix) and path.endswith(suffix):
            site = unquote(path[len(prefix) : -len(suffix)])
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
            return self._json(*stub.query(site, self.headers.get("authorization", ""), body))
        return self._json(404, _google_error(404, "Not Found", "NOT_FOUND"))

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


DEVELOPER_TOKEN = "1//local-developer"  # noqa: S105 - make serve's refresh token, any property


def port() -> int:
    return int(os.environ.get("SITELENS_GOOGLE_PORT", "3011"))


def start_for_stack(host: str) -> GoogleServer | None:
    """`make serve`'s local Google on `SITELENS_GOOGLE_PORT` (a free port when that one is
    taken: another `make serve`), with `DEVELOPER_TOKEN` granting every property and
    `SITELENS_GOOGLE_HISTORY_DAYS` (30) days of rows; the environment is pointed at it.
    None when the environment already names another Google."""
    if os.environ.get("SITELENS_GOOGLE_TOKEN_URL"):
        return None  # pointed elsewhere on purpose
    days = int(os.environ.get("SITELENS_GOOGLE_HISTORY_DAYS") or "30")
    stub = GoogleStub(history_days=max(1, min(WINDOW_DAYS, days)))
    try:
        server = start(host, port(), stub)
    except OSError:
        server = start(host, 0, stub)
    server.stub.refresh_tokens[DEVELOPER_TOKEN] = Grant(frozenset({ANY_PROPERTY}))
    for name, value in server.environment().items():
        os.environ[name] = value
    return server


def start(host: str = "127.0.0.1", port: int = 0, stub: GoogleStub | None = None) -> GoogleServer:
    """Serve a stub in a daemon thread (port 0: a free one); its server's shutdown stops it."""
    server = GoogleServer((host, port), _Handler)
    server.stub = stub or GoogleStub()
    server.stub.token_url = f"{server.url}/token"
    threading.Thread(
        target=server.serve_forever, args=(STOP_POLL_SECONDS,), name="google", daemon=True
    ).start()
    return server
