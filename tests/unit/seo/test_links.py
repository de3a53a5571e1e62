"""`links.absolute_http`, which the link checks ask of every link and link text of a page:
its shortcut (no `//`, no host) and its cache give the parse's answer on every input."""

from __future__ import annotations

import random

import pytest

from sitelens.seo import links


@pytest.mark.parametrize(
    ("url", "absolute"),
    [
        ("https://example.com/a", True),
        ("HTTP://Example.COM", True),
        ("http://[::1]:8080/", True),
        ("//example.com/a", False),  # no scheme
        ("http:/example.com", False),  # no authority
        ("http:example.com", False),
        ("http:/\t/example.com", False),  # urlsplit drops the tab; the whitespace refuses it
        ("\x01http://example.com", True),  # urlsplit strips leading C0 controls
        ("http://example.com/a b", False),
        ("http://:80/", False),  # no host
        ("http://example.com:99999/", False),  # a port out of range
        ("ftp://example.com/", False),
        ("Read more", False),
        ("https://example.com/" + "a" * 3000, True),  # longer than the cache keeps
        ("https://example.com/" + "a" * 3000 + " b", False),
        ("", False),
    ],
)
def test_absolute_http_urls(url: str, absolute: bool) -> None:
    assert links.absolute_http(url) is absolute
    assert links._absolute_http(url) is absolute  # the parse, without shortcut or cache


def test_the_shortcut_and_the_cache_agree_with_the_parser() -> None:
    rng = random.Random(7)
    pieces = ["http", "https", "HTTP", "ftp", ":", "/", "//", "\\", " ", "\t", "\x01", "[",
              "]", "::1", "example.com", "xn--bcher-kva.ch", ":8080", ":x", "?q=1", "#f", "@",
              "a", "é"]  # fmt: skip
    for _ in range(20_000):
        url = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        assert links.absolute_http(url) is links._absolute_http(url), repr(url)
