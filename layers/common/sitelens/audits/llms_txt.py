"""The audited host's `/llms.txt` (llmstxt.org), read once a run when it starts, as its
robots.txt is (and again for the host a start URL moves to): whether it is there, whether
it is written as the proposal says, and whether its links answer.

**Well-formed** (llmstxt.org, parsed as CommonMark by markdown-it-py): served as text, not
an HTML page (a site answering every path with its app's page has no llms.txt); one H1,
the site's name, first; then an optional blockquote and paragraphs; then sections under
H2 headings, each a list whose every item begins with a Markdown link `[name](url)`
(notes may follow after a colon). No deeper headings.

**Links**: the first `MAX_LINKS` distinct links of the file are checked as external links
are (`externals.check`: HEAD first, the link's host's robots.txt obeyed, the SSRF guard),
those of the audited host spaced as its pages are (the run's rate, or its crawl-delay),
for at most `MAX_SECONDS` together; a link answering 4xx or 5xx, or not at all, is broken.

What is kept in the run's state is bounded (`MAX_PROBLEMS`, `MAX_LINKS`): `found`'s
dict, which `affected` turns into host-level issues (the llms.txt URL is their page).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urljoin

from sitelens.audits import externals
from sitelens.audits.fetching import Identity, get
from sitelens.audits.politeness import MAX_CRAWL_DELAY
from sitelens.core.config import settings
from sitelens.seo import fetch

MAX_LLMS_BYTES = 256 * 1024  # of the file read
MAX_LINKS = 20  # links checked
MAX_SECONDS = 20.0  # spent checking them, whatever the crawl-delay
MAX_PROBLEMS = 20
MAX_TEXT = 120  # characters of a quoted line


def _origin(url: str) -> str:
    return "/".join(url.split("/", 3)[:3])


def parse(text: str) -> tuple[list[str], list[str]]:
    """(problems, links) of an llms.txt's Markdown, each in the file's order."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    problems: list[str] = []
    links: list[str] = []
    h1s = 0
    section: str | None = None  # the H2 heading we are under
    first_block = next((t for t in tokens if t.level == 0 and t.nesting != -1), None)
    if first_block is None or first_block.tag != "h1":
        problems.append("The file does not begin with an H1 title (# Site name).")
    for n, token in enumerate(tokens):
        if token.type == "heading_open":
            title = tokens[n + 1].content[:MAX_TEXT]
            if token.tag == "h1":
                h1s += 1
            elif token.tag == "h2":
                section = title
            else:
                problems.append(f"Heading '{title}' is an {token.tag.upper()}: use H2 sections.")
        elif token.type == "inline":
            links += [
                str(child.attrs.get("href", ""))
                for child in token.children or []
                if child.type == "link_open"
            ]
        elif token.type == "list_item_open" and section is not None:
            inline = next((t for t in tokens[n:] if t.type == "inline"), None)
            children = [
                c
                for c in (inline.children if inline else None) or []
                if c.content.strip() or c.type != "text"
            ]
            if not children or children[0].type != "link_open":
                shown = (inline.content if inline else "").splitlines()[0:1] or [""]
                problems.append(
                    f"In section '{section}', the item '{shown[0][:MAX_TEXT]}' does not "
                    "begin with a Markdown link [name](url)."
                )
    if h1s > 1:
        problems.append(f"The file has {h1s} H1 headings; it should have one, the title.")
    return problems[:MAX_PROBLEMS], links


def read(start_url: str, identity: Identity, delay: float) -> dict[str, Any]:
    """The host's llms.txt as a run keeps it: its URL, status (0: no answer), problems and
    checked links ([url, status])."""
    url = _origin(start_url) + "/llms.txt"
    found: dict[str, Any] = {"url": url, "status": 0, "problems": [], "links": []}
    try:
        response = get(url, cap=MAX_LLMS_BYTES, identity=identity)
    except fetch.FetchError:
        return found
    found["status"] = response.status
    if response.status != 200:
        return found
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media in ("text/html", "application/xhtml+xml"):
        found["problems"] = ["The file answers an HTML page, not Markdown text."]
        return found
    problems, links = parse(response.body.decode("utf-8", "replace"))
    found["problems"] = problems
    named = [urljoin(url, link).split("#")[0] for link in links if link]
    wanted = list(dict.fromkeys(u for u in named if u.startswith(("http://", "https://"))))
    found["links"] = _checked(wanted[:MAX_LINKS], _origin(url), delay)
    return found


def _checked(links: list[str], own: str, delay: float) -> list[list[Any]]:
    """[url, status] of each link checked within `MAX_SECONDS` (status 0: no answer)."""
    externals.read(links)
    spacing = max(1.0 / settings().audit_rate, min(delay, MAX_CRAWL_DELAY))
    began, last_own = time.monotonic(), 0.0
    checked = []
    for link in links:
        if not externals.host(link).allows(link):
            continue  # its host's robots.txt disallows it: not requested, not broken
        if link.startswith(own):
            wait = last_own + spacing - time.monotonic()
            if time.monotonic() + max(wait, 0) - began > MAX_SECONDS:
                break
            time.sleep(max(wait, 0))
            last_own = time.monotonic()
        elif time.monotonic() - began > MAX_SECONDS:
            break
        result = externals.check(link)
        checked.append([link, result.response.status if result.response else 0])
    return checked


def affected(found: dict[str, Any] | None) -> dict[str, list[tuple[str, str]]]:
    """(llms.txt URL, detail) of each llms.txt check over what the run kept."""
    if not found:
        return {}
    url, status = found["url"], found.get("status", 0)
    missing = [] if status == 200 else [(url, f"not found ({status or 'unreachable'})")]
    broken = [
        (url, f"{link} ({code or 'unreachable'})")
        for link, code in found.get("links") or []
        if code == 0 or code >= 400
    ]
    malformed = [(url, problem) for problem in found.get("problems") or []]
    return {
        "llms_txt_missing": missing,
        "llms_txt_malformed": malformed,
        "llms_txt_broken_link": broken,
    }
