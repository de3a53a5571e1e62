"""One fetch's connections: the pools it opens (`pools`) and the sockets it holds, so that
`fetch_site` can cut them all at its deadline (`Session`). A session is never shared
with another fetch."""

from __future__ import annotations

import contextlib
import contextvars
import socket
import threading

from urllib3 import HTTPConnectionPool, HTTPSConnectionPool, PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import NewConnectionError


class Session:
    """One fetch's connection pools and open sockets, so that they can all be shut down
    together at its deadline, and never shared with another fetch."""

    def __init__(self, user_agent: str = "") -> None:
        self.pools = pools()
        self.user_agent = user_agent  # "" for the report fetcher's (an audit's crawler has its own)
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._cut = False

    def check(self) -> None:
        """Raise `ConnectionAbortedError` once the session is cut: nothing more is to be
        fetched (`fetch` answers it as any network failure)."""
        if self._cut:
            raise ConnectionAbortedError("the fetch is over")

    def opened(self, sock: socket.socket) -> None:
        """Keep a new connection's socket, to be cut with the others; refuse it once cut."""
        with self._lock:
            if self._cut:
                sock.close()
                raise ConnectionAbortedError("the fetch is over")
            self._sockets.append(sock)

    def cut(self) -> None:
        """Shut every socket down, which wakes a thread blocked reading it; the socket
        stays open (its thread closes it), so its descriptor cannot be reused meanwhile."""
        with self._lock:
            self._cut = True
            for sock in self._sockets:
                if sock.fileno() != -1:
                    with contextlib.suppress(OSError):  # not connected any more
                        sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Close every pooled connection (after `cut`, once no thread uses them)."""
        self._cut = True
        self.pools.clear()


# The session whose connection is being opened (`fetch` sets it), for `_Connection._new_conn`.
OPENING: contextvars.ContextVar[Session] = contextvars.ContextVar("sitelens_fetch_session")


class _Connection(HTTPConnection):
    """An HTTP connection that hands its socket to the fetch's session once connected."""

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        session = OPENING.get(None)
        if session is not None:
            try:
                session.opened(sock)
            except OSError as exc:
                raise NewConnectionError(self, "The fetch is over.") from exc
        return sock


class _TLSConnection(_Connection, HTTPSConnection):
    """The same for https: the TLS handshake runs on the socket the session holds."""


class _Pool(HTTPConnectionPool):
    ConnectionCls = _Connection


class _TLSPool(HTTPSConnectionPool):
    ConnectionCls = _TLSConnection


def pools(ca_certs: str | None = None) -> PoolManager:
    """A fetch's connection pools, keyed by address, port and TLS host name; `ca_certs`:
    the certificates to trust instead of the system's (tests)."""
    pools = PoolManager(num_pools=20, maxsize=3, ca_certs=ca_certs)  # 3 requests a site at once
    pools.pool_classes_by_scheme = {"http": _Pool, "https": _TLSPool}
    return pools
