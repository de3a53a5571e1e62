"""The cross-page checks of what pages carry and what the host publishes: structured data
(each page's errors and warnings, kept by the report check `rich_results`), images
(`images`) and the host's llms.txt (`llms_txt`). Their definitions join
`checks.DEFINITIONS` (one registry of issue codes); their findings join
`checks.affected`'s.

An audit judges structured data and image formats with these checks, which name the type
and property, or what the image's server answered; the report checks of the same things
(`page_rich_results`, `page_image_format`) are therefore not issues of an audit
(`JUDGED_HERE`).
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.audits import images, llms_txt

_RICH = "https://developers.google.com/search/docs/appearance/structured-data"
_LLMS = "https://llmstxt.org/"

# code -> (severity, title, fix, learn more), as `checks.DEFINITIONS`
DEFINITIONS: dict[str, tuple[str, str, str, str]] = {
    "structured_data_error": (
        "medium",
        "Structured data errors (schema.org types and properties, Google's required properties)",
        "Fix each item the error names: a schema.org type, its properties, and every "
        "property its rich result requires.",
        f"{_RICH}/intro-structured-data",
    ),
    "structured_data_warning": (
        "low",
        "Structured data missing properties Google recommends",
        "Add the recommended property the warning names: richer results show it.",
        f"{_RICH}/search-gallery",
    ),
    "image_broken": (
        "high",
        "Broken images (4xx, 5xx or unreachable)",
        "Restore the image, or point the <img> at one that exists.",
        "https://developers.google.com/search/docs/appearance/google-images",
    ),
    "image_oversized": (
        "medium",
        "Images much larger than they are shown",
        "Resize the image to at most twice its displayed size, or offer sizes in srcset.",
        "https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images",
    ),
    "image_legacy_format": (
        "low",
        "Images served only as JPEG, PNG or GIF",
        "Offer an AVIF or WebP (a <picture> source, a srcset candidate, or by the Accept header).",
        "https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images",
    ),
    "llms_txt_missing": (
        "low",
        "No llms.txt on the host",
        "Publish /llms.txt: a Markdown summary of the site with links to its key pages.",
        _LLMS,
    ),
    "llms_txt_malformed": (
        "low",
        "llms.txt not written as llmstxt.org describes",
        "Begin with one H1 title, then an optional blockquote, then H2 sections of "
        "Markdown link lists: - [name](url): notes.",
        _LLMS,
    ),
    "llms_txt_broken_link": (
        "medium",
        "llms.txt links to pages that fail (4xx, 5xx or unreachable)",
        "Update or remove the links of llms.txt that no longer answer.",
        _LLMS,
    ),
}

JUDGED_HERE = frozenset({"rich_results", "image_format"})  # report checks these replace


def _list(value: Any) -> list[Any]:
    return json.loads(value) if isinstance(value, str) else list(value or [])


def affected(html: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """(page, detail) of the page-level checks over the run's HTML pages."""
    errors = [(u, m) for u, p in html.items() for m in _list(p.get("rich_errors"))]
    warnings = [(u, m) for u, p in html.items() for m in _list(p.get("rich_warnings"))]
    pages = {u: {**p, "images": _list(p.get("images"))} for u, p in html.items()}
    return {
        "structured_data_error": errors,
        "structured_data_warning": warnings,
        **images.affected(pages),
    }


def of_host(state: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """(llms.txt URL, detail) of the host-level checks, from what the run kept."""
    kept = state.get("llms_txt")
    return llms_txt.affected(json.loads(kept) if isinstance(kept, str) and kept else None)
