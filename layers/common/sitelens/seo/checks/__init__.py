"""The SEO checks: one small pure function per check, all sharing one parsed page.

Each check takes a `Context` (`context`) and returns an `Outcome` (`outcome`: `passed`,
`value`, `errors`). The checks live in modules by what they look at (`content`, `crawling`,
`anchors`, `performance`, `security`, `markup`); `CHECKS` below is the registry: which
checks a report runs, with their key, importance and category, in the order of a report's
`results`. `FIELD_CHECKS` run only on a report with field data for their vital
(`performance.FIELD_VITALS`), after the others.
"""

from __future__ import annotations

from collections.abc import Collection

from sitelens.seo.checks import anchors, content, crawling, markup, performance, security
from sitelens.seo.checks.context import Context
from sitelens.seo.checks.outcome import JSON, Category, Check, Errors, Importance, Outcome, verdict

__all__ = [
    "CHECKS",
    "FIELD_CHECKS",
    "JSON",
    "Category",
    "Check",
    "Context",
    "Errors",
    "Importance",
    "Outcome",
    "checks_for",
    "verdict",
]


def _registry(*checks: Check) -> dict[str, Check]:
    found = {check.key: check for check in checks}
    if len(found) != len(checks):
        raise ValueError("duplicate check keys")
    return found


CHECKS: dict[str, Check] = _registry(
    Check("title", "high", "seo", content.title),
    Check("meta_description", "high", "seo", content.meta_description),
    Check("headings", "high", "seo", content.headings),
    Check("content_keywords", "high", "seo", content.content_keywords),
    Check("image_keywords", "high", "seo", content.image_keywords),
    Check("seo_friendly_url", "high", "seo", crawling.seo_friendly_url),
    Check("404_page", "high", "seo", crawling.missing_page),
    Check("robots", "high", "seo", crawling.robots_allow),
    Check("robots_txt", "low", "seo", crawling.robots_txt),
    Check("noindex", "high", "seo", crawling.noindex),
    Check("in_page_links", "medium", "seo", anchors.in_page_links),
    Check("language", "medium", "seo", content.language),
    Check("favicon", "medium", "seo", markup.favicon),
    Check("canonical", "medium", "seo", crawling.canonical),
    Check("hreflang", "low", "seo", crawling.hreflang),
    Check("link_text", "low", "seo", anchors.link_text),
    Check("crawlable_anchors", "low", "seo", anchors.crawlable_anchors),
    Check("http_status_code", "high", "seo", crawling.http_status_code),
    Check("text_compression", "high", "performance", performance.text_compression),
    Check("load_time", "medium", "performance", performance.load_time),
    Check("page_size", "medium", "performance", performance.page_size),
    Check("http_requests", "medium", "performance", performance.http_requests),
    Check("image_format", "medium", "performance", performance.image_format),
    Check("defer_javascript", "low", "performance", performance.defer_javascript),
    Check("dom_size", "low", "performance", performance.dom_size),
    Check("https_encryption", "high", "security", security.https_encryption),
    Check("mixed_content", "medium", "security", security.mixed_content),
    Check("server_signature", "medium", "security", security.server_signature),
    Check("unsafe_cross_origin_links", "medium", "security", security.unsafe_cross_origin_links),
    Check("plaintext_email", "low", "security", security.plaintext_email),
    Check("structured_data", "medium", "miscellaneous", markup.structured_data),
    Check("rich_results", "medium", "miscellaneous", markup.rich_results),
    Check("meta_viewport", "medium", "miscellaneous", markup.meta_viewport),
    Check("charset", "medium", "miscellaneous", markup.charset),
    Check("sitemap", "low", "miscellaneous", crawling.sitemap),
    Check("social", "low", "miscellaneous", anchors.social),
    Check("content_length", "low", "miscellaneous", content.content_length),
    Check("text_html_ratio", "low", "miscellaneous", content.text_html_ratio),
    Check("inline_css", "low", "miscellaneous", markup.inline_css),
    Check("deprecated_html_tags", "low", "miscellaneous", markup.deprecated_html_tags),
)

# Checks of real visits' measurements, which a fetch cannot make: in a report's results
# only when it has enough field data for their vital (`Site.field_vitals`)
FIELD_CHECKS: dict[str, Check] = _registry(
    Check(
        "interaction_to_next_paint", "medium", "performance", performance.interaction_to_next_paint
    ),
    Check("cumulative_layout_shift", "medium", "performance", performance.cumulative_layout_shift),
)


def checks_for(site_field_vitals: Collection[str]) -> dict[str, Check]:
    """The checks a page runs: every one of `CHECKS`, then the `FIELD_CHECKS` whose vital
    the page has field data for."""
    extra = {
        key: check
        for key, check in FIELD_CHECKS.items()
        if performance.FIELD_VITALS[key] in site_field_vitals
    }
    return {**CHECKS, **extra}
