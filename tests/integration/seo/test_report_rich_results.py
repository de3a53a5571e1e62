"""The single-URL SEO report's `rich_results`: a page's structured data checked against
schema.org and Google's rich-result rules, read through POST /api/v1/reports as a user
reads it."""

from __future__ import annotations

import pytest

from sitelens.core import config
from tests.bench import content_pages
from tests.integration.audits.small_site import HTML, SmallSite


@pytest.fixture
def site(monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    pages = {p: (s, {"Content-Type": k}, b) for p, (s, k, b) in content_pages.pages("").items()}
    served = SmallSite({p: v for p, v in pages.items() if isinstance(v[2], str)})  # type: ignore[misc]
    yield served
    served.close()
    config.reset()


def rich_results(seo, url: str) -> dict:
    reply = seo.post("/api/v1/reports", {"url": url})
    assert reply.status == 201, reply.body
    return reply.data["results"]["rich_results"]


def test_broken_markup_fails_with_each_error_naming_the_type_and_property(seo, site):
    result = rich_results(seo, site.url("/sd-product-no-offers"))
    assert result["passed"] is False and result["importance"] == "medium"
    message = "Product is missing required property `offers` (or review/aggregateRating)."
    assert result["errors"] == {"Product.offers": message}
    assert result["value"] == {"types": ["Product"], "errors": [message], "warnings": []}
    assert result["fix"] and result["learn_more"].startswith("https://developers.google.com/")


def test_microdata_errors_and_recommended_properties_as_warnings(seo, site):
    event = rich_results(seo, site.url("/sd-event-microdata"))
    assert set(event["errors"]) == {"Event.startDate", "Event.location"}
    organization = rich_results(seo, site.url("/sd-organization"))
    assert organization["passed"] is True and organization["errors"] is None
    assert organization["value"]["warnings"] == [
        "Organization is missing recommended property `url`.",
        "Organization is missing recommended property `logo`.",
    ]


def test_valid_markup_of_several_types_and_syntaxes_passes(seo, site):
    result = rich_results(seo, site.url("/sd-valid-mix"))
    assert result["passed"] is True
    assert result["value"] == {
        "types": ["BreadcrumbList", "Restaurant", "VideoObject", "Article"],
        "errors": [],
        "warnings": [],
    }


def test_a_page_without_structured_data_passes(seo, site):
    site.pages["/plain"] = (200, HTML, "<!doctype html><title>Plain</title><p>Text</p>")
    result = rich_results(seo, site.url("/plain"))
    assert result["passed"] is True and result["value"]["types"] == []
