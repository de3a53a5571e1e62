"""Share pages drawn with a brand: its name, logo (our own URL), accent and contact line,
"Made with Sitelens" only when on; framed only by the brand's listed origins."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.core import config
from tests.conftest import Client
from tests.integration.brands.test_brands import images  # noqa: F401

PROJECT_BRAND = "/api/v1/projects/127.0.0.1/brand"


@pytest.fixture
def owner(seo, monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield seo
    config.reset()


def shared_page(owner: Client, url: str, **fields: Any) -> Any:
    record = owner.post("/api/v1/reports", {"url": url, **fields}).data
    path = str(record["share_url"]).removeprefix("https://api.test")
    return Client("SeoApi", None).get(path)


def test_a_branded_share_page_shows_the_brand_and_not_sitelens(owner, site, images):  # noqa: F811
    brand = owner.put(
        PROJECT_BRAND,
        {
            "name": "Acme Agency",
            "logo_url": f"{images}/logo.png",
            "accent": "#cc00ff",
            "contact": "Call Acme on 020 0000 0000",
        },
    ).data
    page = shared_page(owner, site.url("/good"))
    assert page.status == 200
    assert "<title>" in page.body and "· Acme Agency</title>" in page.body
    assert f'<img class="logo" src="{brand["logo"]}" alt="">Acme Agency' in page.body
    assert images not in page.body  # never hot-linked
    assert "Call Acme on 020 0000 0000" in page.body
    assert "<style>:root{--accent:#cc00ff}</style>" in page.body
    policy = page.headers["Content-Security-Policy"]
    assert "style-src 'self' 'sha256-" in policy and "frame-ancestors 'none'" in policy
    assert page.body.count("Sitelens") == 1 and "Made with Sitelens" in page.body

    owner.put(PROJECT_BRAND, {**{k: brand[k] for k in ("name", "logo_url")}, "made_with": "0"})
    quiet = shared_page(owner, site.url("/good"))
    assert "Acme Agency" in quiet.body and "Sitelens" not in quiet.body


def test_an_unbranded_page_looks_as_before(owner, site):
    page = shared_page(owner, site.url("/good"))
    assert '<a class="brand" href="https://github.com/sitelens">Sitelens</a>' in page.body
    assert "<style>" not in page.body
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "style-src 'self';" in page.headers["Content-Security-Policy"]


def test_the_accounts_brand_draws_projects_without_their_own(owner, site):
    owner.put("/api/v1/account/brand", {"name": "Acme Everywhere"})
    assert "Acme Everywhere" in shared_page(owner, site.url("/good")).body


def test_only_listed_origins_may_frame_a_brands_pages(owner, site):
    owner.put(
        PROJECT_BRAND,
        {"name": "Acme", "frame_ancestors": "https://client.example\nhttps://*.acme.example"},
    )
    listed = shared_page(owner, site.url("/good"))
    policy = listed.headers["Content-Security-Policy"]
    assert "frame-ancestors https://client.example https://*.acme.example;" in policy
    assert "X-Frame-Options" not in listed.headers
    # another project of the account: not listed, framed by nobody
    other = shared_page(owner, site.url("/good", host="localhost"))
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]
    assert other.headers["X-Frame-Options"] == "DENY"
    # the brand's error pages and password form are framed as its page is
    locked = shared_page(owner, site.url("/good"), privacy=2, password="correct-horse")
    assert locked.status == 401 and "X-Frame-Options" not in locked.headers
