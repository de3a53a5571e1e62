"""The cross-page checks of what pages carry and what the host publishes: structured data
(each page's errors and warnings, kept by the report check `rich_results`), images
(`images`) and the host's llms.txt (`llms_txt`). Their definitions are in `definitions`
with every other check's (one registry of issue codes); their findings join
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
