"""Share views: reading a website's statistics, a report or an audit without an API key, as
the record's privacy allows, proving its password, and what a guest session opens
(`access`); reports' and audits' unguessable share links (`links`); each client address's
limit on share routes (`limits`). Knows nothing of HTTP: the edge turns what is decided
here into JSON, pages and cookies."""

from sitelens.sharing import limits, links
from sitelens.sharing.access import (
    ATTEMPT_WINDOW_SECONDS,
    ATTEMPTS_PER_CLIENT,
    ATTEMPTS_PER_RECORD,
    FREE_FAILURES,
    TOKEN_SECONDS,
    Grant,
    Guest,
    Renamed,
    Shared,
    admit,
    audit,
    report,
    unlock,
    website,
)

__all__ = [
    "ATTEMPTS_PER_CLIENT",
    "ATTEMPTS_PER_RECORD",
    "ATTEMPT_WINDOW_SECONDS",
    "FREE_FAILURES",
    "TOKEN_SECONDS",
    "Grant",
    "Guest",
    "Renamed",
    "Shared",
    "admit",
    "audit",
    "limits",
    "links",
    "report",
    "unlock",
    "website",
]
