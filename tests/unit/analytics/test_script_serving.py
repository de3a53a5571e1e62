"""GET /js/<file> through the template's route and the real handler: the content coding the
caller ranks highest, a strong ETag of the bytes sent (304 when the copy is current), a
day's caching at the plain URL and a year's (immutable) at the versioned one."""

from __future__ import annotations

import json

import pytest

from sitelens.analytics import script
from sitelens.edge.scripts import content_coding
from tests.fixtures.tracking_script import answer, sent_bytes

BROWSER = "gzip, deflate, br, zstd"


def versioned(name: str) -> str:
    """The versioned file name the plain URL's Content-Location gives."""
    return answer(name)["headers"]["Content-Location"]


def test_the_plain_url_is_cached_a_day_and_names_its_versioned_url():
    found = answer("script.js", BROWSER)
    headers = found["headers"]
    assert found["statusCode"] == 200
    assert headers["Content-Type"] == "application/javascript; charset=utf-8"
    assert headers["Cache-Control"] == "public, max-age=86400, stale-while-revalidate=604800"
    assert (headers["Content-Encoding"], headers["Vary"]) == ("br", "Accept-Encoding")
    assert headers["Access-Control-Allow-Origin"] == headers["Timing-Allow-Origin"] == "*"
    version = script.find("script.js").version  # type: ignore[union-attr]
    assert headers["Content-Location"] == f"script.js?v={version}"


def test_the_versioned_url_is_immutable_and_another_version_is_not():
    name, _, version = versioned("script.outbound-links.js").partition("?v=")
    assert name == "script.outbound-links.js"
    current = answer(f"{name}?v={version}", "gzip")
    assert current["headers"]["Cache-Control"] == "public, max-age=31536000, immutable"
    assert sent_bytes(current) == sent_bytes(answer(name, "gzip"))
    # an old page's version: today's bytes, but no promise that they are that version's
    old = answer(f"{name}?v=0000000000000000", "gzip")
    assert old["statusCode"] == 200
    assert old["headers"]["Cache-Control"].startswith("public, max-age=86400")


@pytest.mark.parametrize("coding", ["", "gzip", BROWSER])
def test_each_coding_has_its_etag_and_a_current_copy_is_304(coding):
    first = answer("script.js", coding)
    etag = first["headers"]["ETag"]
    again = answer("script.js", coding, If_None_Match=etag)
    assert (again["statusCode"], again["body"]) == (304, "")
    assert again["headers"]["ETag"] == etag
    assert again["headers"]["Vary"] == "Accept-Encoding"
    assert "Content-Encoding" not in again["headers"]
    assert answer("script.js", coding, If_None_Match='"old", W/' + etag)["statusCode"] == 304
    assert answer("script.js", coding, If_None_Match='"old"')["statusCode"] == 200
    others = {answer("script.js", c)["headers"]["ETag"] for c in ("", "gzip", BROWSER)} - {etag}
    assert len(others) == 2  # a copy in another coding is another representation


def test_extensions_in_any_order_are_the_same_file():
    asked = answer("script.file-downloads.outbound-links.js", "gzip")
    canonical = answer("script.outbound-links.file-downloads.js", "gzip")
    assert sent_bytes(asked) == sent_bytes(canonical)
    assert asked["headers"]["ETag"] == canonical["headers"]["ETag"]
    assert asked["headers"]["Content-Location"].startswith(
        "script.outbound-links.file-downloads.js?v="
    )


@pytest.mark.parametrize(
    "name", ["script.hash.js", "script.404.404.js", "tracker.js", "script.js.br", "other.js"]
)
def test_a_name_that_is_no_script_is_404(name):
    found = answer(name, BROWSER)
    assert found["statusCode"] == 404
    assert json.loads(found["body"])["status"] == 404


@pytest.mark.parametrize(
    ("accept_encoding", "chosen"),
    [
        ("", None),
        ("identity", None),
        ("gzip", "gzip"),
        ("x-gzip", "gzip"),
        ("deflate", None),
        ("gzip, deflate, br, zstd", "br"),
        ("br;q=0.5, gzip", "gzip"),
        ("br;q=0, gzip;q=0", None),
        ("*", "br"),
        ("*;q=0.1, br;q=0", "gzip"),
        ("GZIP ; q=0.8", "gzip"),
        ("br;q=nonsense, gzip;q=0.2", "gzip"),
    ],
)
def test_the_coding_the_caller_ranks_highest(accept_encoding, chosen):
    assert content_coding(accept_encoding, script.CODINGS) == chosen
