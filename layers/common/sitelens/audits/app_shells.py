"""What JavaScript adds to a page, and the pages whose links appear only after rendering.

Pure rules over a page's facts, stored in its `rendering` field:

- with `render: js`, the raw-versus-rendered diff (`diff`): the links only in the
  rendered page (the first `MAX_DIFF_LINKS`, and how many), and the words before and after
  scripts ran, as Screaming Frog and Sitebulb show them;
- without it, the app-shell rule (`is_app_shell`): a page that answered 200 with HTML
  whose raw HTML has at least one `<script>`, fewer than `SHELL_LINKS` distinct links
  (internal and external, nofollow aside) and fewer than `SHELL_WORDS` words of body text
  is a JavaScript app shell, whose links a crawler that does not render never sees.

The cross-page check `links_only_after_rendering` lists both: a rendered page with links
only after rendering, and an app shell of a run that did not render.
"""

from __future__ import annotations

import json
import re
from typing import Any

MODES = ("html", "js")  # an audit's `render`: the raw HTML, or the DOM after scripts ran
DEFAULT_MODE = "html"
SHELL_LINKS = 2  # an app shell has fewer distinct links than this in its raw HTML...
SHELL_WORDS = 50  # ...and fewer words of text than this, and at least one script
MAX_DIFF_LINKS = 20  # links only in the rendered page, stored a page (the count is all)
_SCRIPT = re.compile(rb"<script\b", re.IGNORECASE)


def _links(facts: dict[str, Any]) -> list[str]:
    return [*(facts.get("links") or []), *(facts.get("external_links") or [])]


def link_count(facts: dict[str, Any]) -> int:
    """A page's distinct followed links: every internal one found, and the external ones."""
    return int(facts.get("links_found", 0)) + len(facts.get("external_links") or [])


def is_app_shell(raw: dict[str, Any], body: bytes) -> bool:
    """Whether a page's raw HTML (its facts and bytes) is a JavaScript app shell."""
    return (
        link_count(raw) < SHELL_LINKS
        and int(raw.get("words", 0)) < SHELL_WORDS
        and _SCRIPT.search(body) is not None
    )


def shell(raw: dict[str, Any], body: bytes) -> dict[str, Any] | None:
    """A raw page's `rendering` field: the app shell's counts, or None when it is not one."""
    if not is_app_shell(raw, body):
        return None
    scripts = len(_SCRIPT.findall(body))
    return {
        "mode": "html",
        "app_shell": True,
        "raw_links": link_count(raw),
        "raw_words": int(raw.get("words", 0)),
        "scripts": scripts,
    }


def diff(raw: dict[str, Any], rendered: dict[str, Any]) -> dict[str, Any]:
    """A rendered page's `rendering` field: what the rendered page has that the raw lacks."""
    before = set(_links(raw))
    only = [link for link in dict.fromkeys(_links(rendered)) if link not in before]
    count = max(len(only), link_count(rendered) - link_count(raw))
    return {
        "mode": "js",
        "raw_links": link_count(raw),
        "rendered_links": link_count(rendered),
        "links_only_rendered": count,
        "links_only_rendered_first": only[:MAX_DIFF_LINKS],
        "raw_words": int(raw.get("words", 0)),
        "rendered_words": int(rendered.get("words", 0)),
        "words_only_rendered": max(0, int(rendered.get("words", 0)) - int(raw.get("words", 0))),
        "title_changed": (raw.get("title") or "") != (rendered.get("title") or ""),
        "canonical_changed": raw.get("canonical") != rendered.get("canonical"),
    }


def failed(raw: dict[str, Any], error: str) -> dict[str, Any]:
    """A `rendering` field for a page that could not be rendered (its raw HTML was read)."""
    return {
        "mode": "js",
        "error": error,
        "raw_links": link_count(raw),
        "raw_words": int(raw.get("words", 0)),
    }


def of(page: dict[str, Any]) -> dict[str, Any] | None:
    """A stored page's `rendering` field, decoded (None without one)."""
    value = page.get("rendering")
    if isinstance(value, str):
        return dict(json.loads(value)) if value else None
    return dict(value) if value else None


def affected(html: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """The check's (url, detail) findings among a run's HTML pages."""
    found = []
    for url, page in html.items():
        rendering = of(page)
        if not rendering:
            continue
        if rendering.get("app_shell"):
            found.append((url, _shell_detail(rendering)))
        elif rendering.get("links_only_rendered"):
            first = ", ".join(rendering.get("links_only_rendered_first", [])[:3])
            found.append(
                (
                    url,
                    f"{rendering['links_only_rendered']} links only after rendering"
                    f" (raw HTML {rendering['raw_links']}): {first}",
                )
            )
    return {"links_only_after_rendering": found}


def _shell_detail(rendering: dict[str, Any]) -> str:
    return (
        f"app shell: {rendering['raw_links']} links and {rendering['raw_words']} words before"
        f" scripts run ({rendering['scripts']} scripts); audit with render: js"
    )
