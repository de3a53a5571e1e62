"""Sending one delivery: an HTTP POST through the report fetcher's guard (`seo.fetch`):
http and https only, the fetcher's ports, no credentials in the URL, every address of the
host public (checked after DNS, and the connection made to that checked address, so DNS
rebinding cannot swap one in), a deadline for the whole attempt, and no redirect followed
(a 3xx is a failure, as the Standard Webhooks scheme advises)."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from urllib3 import BaseHTTPResponse, Timeout
from urllib3.exceptions import HTTPError, NewConnectionError

from sitelens.seo import fetch
from sitelens.seo.connections import OPENING, Session

USER_AGENT = "Sitelens-Webhooks/1.0"
DEADLINE = 10.0  # seconds for a whole attempt: a receiver that stalls has failed it
MAX_ANSWER_BYTES = 4 * 1024  # of the receiver's answer kept in the delivery log
STALLED = "The endpoint did not answer within 10 seconds."


@dataclass(frozen=True)
class Attempt:
    """What one POST came to: the status (None when no answer came) and why it failed."""

    status: int | None
    error: str | None
    answer: str = ""  # the start of the receiver's answer, for the log
    milliseconds: int = 0

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def check_url(url: str) -> str | None:
    """Why the URL cannot receive deliveries (a sentence), or None: the guard's checks of
    the scheme, port, credentials and addresses, without sending anything."""
    session = Session()
    try:
        fetch.checked_addresses(session, fetch.target_of(url), time.monotonic() + DEADLINE)
    except fetch.FetchError as err:
        return str(err)
    finally:
        session.close()
    return None


def post(url: str, body: bytes, headers: dict[str, str]) -> Attempt:
    """POST the body with the headers to the URL, within the guard and `DEADLINE`."""
    started = time.monotonic()
    deadline = started + DEADLINE
    session = Session()
    token = OPENING.set(session)
    try:
        target = fetch.target_of(url)
        *others, last = fetch.checked_addresses(session, target, deadline)
        response = None
        for address in others:
            with contextlib.suppress(NewConnectionError):  # refused or unreachable: next one
                response = _send(session, target, address, body, headers, deadline)
                break
        if response is None:
            response = _send(session, target, last, body, headers, deadline)
        try:
            answer = response.read(MAX_ANSWER_BYTES, decode_content=False)
        finally:
            response.close()
        elapsed = int((time.monotonic() - started) * 1000)
        text = answer.decode("utf-8", "replace")
        error = (
            None if 200 <= response.status < 300 else f"The endpoint answered {response.status}."
        )
        return Attempt(response.status, error, text, elapsed)
    except fetch.FetchError as err:
        return Attempt(None, str(err), "", int((time.monotonic() - started) * 1000))
    except (HTTPError, OSError):
        elapsed = int((time.monotonic() - started) * 1000)
        error = STALLED if time.monotonic() >= deadline - 0.05 else fetch.UNREACHABLE
        return Attempt(None, error, "", elapsed)
    finally:
        OPENING.reset(token)
        session.close()


def _send(
    session: Session,
    target: fetch.Target,
    address: str,
    body: bytes,
    headers: dict[str, str],
    deadline: float,
) -> BaseHTTPResponse:
    remaining = max(deadline - time.monotonic(), 0.01)
    tls = {"server_hostname": target.host} if target.scheme == "https" else None
    pool = session.pools.connection_from_host(
        address, port=target.port, scheme=target.scheme, pool_kwargs=tls
    )
    return pool.urlopen(
        "POST",
        target.path,
        body=body,
        headers={
            "Host": target.authority,
            "User-Agent": USER_AGENT,
            "Content-Type": "application/json",
            **headers,
        },
        retries=False,
        redirect=False,
        assert_same_host=False,
        preload_content=False,
        timeout=Timeout(connect=min(fetch.CONNECT_TIMEOUT, remaining), read=remaining),
    )
