"""Guest links: a read key limited to websites or projects doubles as its client's login
to the share views of what it reaches (`links`: made, listed and revoked through the keys
API; a link's token opens a guest session). Which records a session opens is
`sharing.access.Guest`'s rule; the edge turns a session into a cookie."""

from sitelens.guests.links import (
    DEFAULT_SECONDS,
    MAX_LINKS_PER_KEY,
    MAX_SECONDS,
    create,
    list_page,
    revoke,
    session,
)

__all__ = [
    "DEFAULT_SECONDS",
    "MAX_LINKS_PER_KEY",
    "MAX_SECONDS",
    "create",
    "list_page",
    "revoke",
    "session",
]
