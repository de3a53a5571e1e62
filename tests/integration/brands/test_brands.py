"""Brands through the template's routes: set, read and deleted per project and account,
validated; the logo fetched once through the SSRF guard (private addresses, oversized and
non-image bytes refused, nothing stored then) and served from our own URL; share pages drawn
with the brand ("Made with Sitelens" only when on); frame-ancestors for listed origins."""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sitelens import brands
from sitelens.core import config
from tests.conftest import Client

PNG = (
    b"\x89PNG\r\n\x1a\n"
    + struct.pack(">I", 13)
    + b"IHDR"
    + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    + struct.pack(">I", zlib.crc32(b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)))
)
FILES: dict[str, tuple[bytes, str]] = {
    "/logo.png": (PNG, "image/png"),
    "/logo-as-text.png": (PNG, "text/plain"),  # sniffed: the bytes decide
    "/huge.png": (PNG + b"\0" * (256 * 1024), "image/png"),
    "/logo.svg": (
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>',
        "image/svg+xml",
    ),
    "/page.html": (b"<html><title>Not a logo</title></html>", "image/png"),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body, content_type = FILES.get(self.path, (b"missing", "text/plain"))
        self.send_response(200 if self.path in FILES else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def images() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def local_fetches(monkeypatch):
    """make serve's development setting: fetches (and http logo URLs) may reach 127.0.0.1."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield
    config.reset()


@pytest.fixture
def public_seo(account) -> Client:
    return Client("SeoApi", None)


BRAND = "/api/v1/projects/shop.example/brand"


def test_a_brand_is_set_read_and_deleted(seo, local_fetches, images):
    reply = seo.put(
        BRAND,
        json_body={
            "name": " Acme Agency ",
            "logo_url": f"{images}/logo.png",
            "accent": "#C0F",
            "contact": "hello@acme.example · +44 20 0000 0000",
            "frame_ancestors": ["https://client.example", "https://*.acme.example"],
        },
    )
    assert reply.status == 200, reply.body
    shown = reply.data
    assert shown["name"] == "Acme Agency" and shown["accent"] == "#cc00ff"
    assert shown["made_with"] == 1 and shown["project"] == "shop.example"
    assert shown["logo"].startswith("https://api.test/share/logos/")
    assert seo.get("/api/v1/projects/www.Shop.example/brand").data == shown
    logo = Client("SeoApi", None).get(shown["logo"].removeprefix("https://api.test"))
    assert logo.status == 200 and logo.headers["Content-Type"] == "image/png"
    assert seo.delete(BRAND).status == 200
    assert seo.get(BRAND).status == 404
    assert seo.delete(BRAND).status == 404


def test_a_renderer_gets_the_projects_brand_else_the_accounts(seo, account, local_fetches, images):
    assert brands.for_project(account.id, "shop.example") == brands.Brand()
    seo.put("/api/v1/account/brand", {"name": "Acme", "made_with": "0"})
    fallback = brands.for_project(account.id, "shop.example")
    assert fallback.name == "Acme" and fallback.made_with is False and fallback.logo is None
    seo.put(BRAND, {"name": "Shop", "logo_url": f"{images}/logo-as-text.png", "accent": "#123456"})
    own = brands.for_project(account.id, "shop.example")
    assert (own.name, own.accent, own.logo, own.logo_type) == ("Shop", "#123456", PNG, "image/png")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "two\nlines"}, "name"),
        ({"name": "A", "accent": "red"}, "accent"),
        ({"name": "A", "accent": "#12345"}, "accent"),
        ({"name": "A", "contact": "c" * 201}, "contact"),
        ({"name": "A", "logo_url": "http://cdn.example/logo.png"}, "logo_url"),
        ({"name": "A", "logo_url": "https://user:pw@cdn.example/logo.png"}, "logo_url"),
        ({"name": "A", "logo_url": "javascript:alert(1)"}, "logo_url"),
        ({"name": "A", "made_with": "2"}, "made_with"),
        ({"name": "A", "frame_ancestors": "http://client.example"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "*"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "https://*"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "https://a.*.example"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "https://client.example/path"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "https://x.example 'unsafe-inline'"}, "frame_ancestors"),
        ({"name": "A", "frame_ancestors": "https://x.example;script-src *"}, "frame_ancestors"),
        (
            {"name": "A", "frame_ancestors": "\n".join(f"https://c{n}.example" for n in range(11))},
            "frame_ancestors",
        ),
    ],
)
def test_bad_fields_are_refused_by_name(seo, fields, field):
    reply = seo.put(BRAND, fields)
    assert reply.status == 422 and list(reply.body["message"]) == [field], reply.body
    assert seo.get(BRAND).status == 404


@pytest.mark.parametrize(
    ("path", "sentence"),
    [
        ("/huge.png", "larger than 256 KB"),
        ("/logo.svg", "PNG, JPEG or WebP"),
        ("/page.html", "PNG, JPEG or WebP"),
        ("/nothing.png", "HTTP 404"),
    ],
)
def test_a_refused_logo_changes_nothing(seo, local_fetches, images, path, sentence):
    kept = seo.put(BRAND, {"name": "Kept", "logo_url": f"{images}/logo.png"}).data
    reply = seo.put(BRAND, {"name": "Changed", "logo_url": f"{images}{path}"})
    assert reply.status == 422 and sentence in reply.body["message"]["logo_url"][0], reply.body
    assert seo.get(BRAND).data == kept


def test_a_logo_at_a_private_address_is_refused_before_any_fetch(seo, monkeypatch):
    # the deployed setting: the guard's, checked after DNS (localhost is 127.0.0.1)
    fetched = []
    monkeypatch.setattr("sitelens.seo.fetch._request", lambda *a, **k: fetched.append(a))
    reply = seo.put(BRAND, {"name": "A", "logo_url": "https://localhost/logo.png"})
    assert reply.status == 422
    assert reply.body["message"]["logo_url"] == ["The URL points to a private or reserved address."]
    assert fetched == [] and seo.get(BRAND).status == 404


def test_another_account_or_a_limited_key_cannot_touch_a_brand(seo, other_seo, account):
    seo.put(BRAND, {"name": "Mine"})
    assert other_seo.get(BRAND).status == 404
    assert other_seo.delete(BRAND).status == 404
    assert seo.get(BRAND).data["name"] == "Mine"
    limited = seo.post(
        "/api/v1/keys", {"name": "one", "projects": "other.example", "access": "write"}
    ).data["key"]
    assert Client("SeoApi", limited).get(BRAND).status == 404
    assert Client("SeoApi", limited).put(BRAND, {"name": "X"}).status == 404
    # the account's brand draws every project: only a key over the whole account sets it
    assert Client("SeoApi", limited).put("/api/v1/account/brand", {"name": "X"}).status == 403
    assert seo.get(BRAND).data["name"] == "Mine" and seo.get("/api/v1/account/brand").status == 404
