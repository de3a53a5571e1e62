"""`make serve`'s reading of a chunked request body (sitelens.local.front.read_chunked)."""

from __future__ import annotations

import io

import pytest

from sitelens.core import errors
from sitelens.local import front


def read(wire: bytes) -> tuple[bytes, bytes]:
    """The body read from `wire`, and what is left on the connection after it."""
    stream = io.BytesIO(wire)
    return front.read_chunked(stream), stream.read()


def test_chunks_are_joined_and_the_next_request_is_left_as_it_was() -> None:
    wire = b"4\r\nname\r\n9;ext=1\r\n=site&x=1\r\n0\r\n\r\nGET / HTTP/1.1\r\n"
    assert read(wire) == (b"name=site&x=1", b"GET / HTTP/1.1\r\n")


def test_trailer_lines_are_read_past() -> None:
    assert read(b"2\r\nab\r\n0\r\nX-Checksum: 1\r\n\r\nnext") == (b"ab", b"next")


def test_bare_line_feeds_are_read_as_line_ends() -> None:
    assert read(b"2\nab\n0\n\n") == (b"ab", b"")


@pytest.mark.parametrize(
    "wire",
    [
        b"",  # the connection ended
        b"zz\r\nab\r\n0\r\n\r\n",  # a size that is not hexadecimal
        b"-2\r\nab\r\n0\r\n\r\n",
        b"\r\nab\r\n0\r\n\r\n",  # no size
        b"4\r\nab\r\n0\r\n\r\n",  # a chunk shorter than its size
        b"2\r\nabcd\r\n0\r\n\r\n",  # ... longer
        b"2\r\nab\r\n0\r\n",  # no end of the trailer section
        b"1" * 2000 + b"\r\n",  # a size line past its bound
        b"0\r\n" + b"X: 1\r\n" * (front.MAX_TRAILER_LINES + 1) + b"\r\n",
    ],
)
def test_what_is_not_a_chunked_body_is_a_bad_request(wire: bytes) -> None:
    with pytest.raises(errors.BadRequest):
        read(wire)


def test_a_body_past_the_bound_is_refused_before_it_is_read() -> None:
    size = front.MAX_REQUEST_BYTES + 1
    with pytest.raises(errors.PayloadTooLarge):
        read(f"{size:x}\r\n".encode())  # nothing of the chunk sent: it is not waited for
