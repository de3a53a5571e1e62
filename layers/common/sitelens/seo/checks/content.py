"""Checks of what the page says: title, description, headings, keywords, image texts,
language and the amount of text (Lighthouse's content best practices)."""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from sitelens.core import hosts, words
from sitelens.seo import text
from sitelens.seo.checks.context import Context, _attr, _distinct, _meta_key, _shown, _text
from sitelens.seo.checks.outcome import Errors, Outcome, verdict

MAX_KEYWORDS = 20  # title words looked for: a 60-character title has at most 15

# Search results show a title up to about 600 px of 20 px Arial (Google's desktop layout)
MAX_TITLE_PX = 600
SHOWN_TITLE_CHARACTERS = 60  # about what fits in MAX_TITLE_PX, as people count a title
QUOTED = 80  # characters of a page's text quoted in a sentence
MIN_DESCRIPTION = 10  # characters: shorter says nothing (Lighthouse only asks for non-empty)
MAX_DESCRIPTION = 320  # characters: the longest snippets search results show, on two lines
MIN_KEYWORD_SHARE = 0.5  # of the title's keywords found in the text: titles also summarise
MIN_WORDS = 500
MIN_TEXT_RATIO = 10.0  # percent


def title(ctx: Context) -> Outcome:
    """A single, non-empty `<title>` that search results show whole: at most
    `MAX_TITLE_PX` pixels wide in their font (about 60 to 70 characters). Value: the title.
    """
    errors: Errors = {}
    if not ctx.titles:
        errors["missing"] = "The page has no <title> in its <head>."
    elif not ctx.title:
        errors["empty"] = "The <title> is empty."
    elif (width := text.title_width(ctx.title)) > MAX_TITLE_PX:
        errors["too_long"] = (
            f"Title is {len(ctx.title)} characters ({width} px wide); search results show "
            f"about {SHOWN_TITLE_CHARACTERS} ({MAX_TITLE_PX} px): <title>{_quoted(ctx.title)}"
            "</title>."
        )
    if len(ctx.titles) > 1:
        errors["multiple"] = f"The page has {len(ctx.titles)} <title> elements; keep one."
    return verdict(ctx.title, errors)


def meta_description(ctx: Context) -> Outcome:
    """One non-empty `<meta name=description>` of `MIN_DESCRIPTION` to `MAX_DESCRIPTION`
    characters. Value: its content."""
    nodes = ctx.meta("description")
    content = " ".join(nodes[0].attrs.sget("content").split()) if nodes else None
    errors: Errors = {}
    if not nodes:
        errors["missing"] = 'The page has no <meta name="description">.'
    elif not content:
        errors["empty"] = "The meta description is empty."
    elif len(content) < MIN_DESCRIPTION:
        errors["too_short"] = (
            f'Meta description is {len(content)} characters ("{content}"); say what the '
            f"page is about in at least {MIN_DESCRIPTION}."
        )
    elif len(content) > MAX_DESCRIPTION:
        errors["too_long"] = (
            f"Meta description is {len(content)} characters; search results show at most "
            f'about {MAX_DESCRIPTION}: "{_quoted(content)}".'
        )
    if len(nodes) > 1:
        errors["multiple"] = f"The page has {len(nodes)} meta descriptions; keep one."
    return verdict(content, errors)


def headings(ctx: Context) -> Outcome:
    """Exactly one `<h1>`, and not the same text as the title. Value: the h1 texts."""
    h1s = [_text(node) for node in ctx.tags("h1")]
    errors: Errors = {}
    if not h1s:
        errors["missing"] = "The page has no <h1> heading; it needs exactly one."
    elif len(h1s) > 1:
        shown = ", ".join(f'"{_quoted(h1, 40)}"' for h1 in h1s[:3])
        errors["multiple"] = f"The page has {len(h1s)} <h1> headings ({shown}); keep one."
    if ctx.title and any(h1.casefold() == ctx.title.casefold() for h1 in h1s):
        errors["same_as_title"] = (
            f'The <h1> "{_quoted(ctx.title)}" repeats the <title>; make it describe the content.'
        )
    return verdict(h1s, errors)


def _quoted(found: str, limit: int = QUOTED) -> str:
    """A text of the page as a sentence quotes it: cut at `limit` characters."""
    return found if len(found) <= limit else found[: limit - 1] + "…"


def _site_names(ctx: Context) -> list[str]:
    """What the site calls itself: `og:site_name`, and its host's main label ("acme")."""
    names = [
        _attr(node, "content") for node in ctx.tags("meta") if _meta_key(node) == "og:site_name"
    ]
    parts = hosts.split_url(ctx.url)
    host = (parts.hostname if parts else "") or ""
    labels = [label for label in host.split(".") if label not in ("www", "m")]
    if len(labels) >= 2:
        names.append(labels[-2])
    return [name for name in names if name]


def content_keywords(ctx: Context) -> Outcome:
    """At least half of the title's keywords (its first 20, without the site's name, stop
    words of the page's language or words under three letters) appear in the visible body
    text. Value: the keywords.
    """
    language = _attr(ctx.tags("html")[0], "lang") if ctx.tags("html") else ""
    title_text = text.without_site_name(ctx.title or "", _site_names(ctx))
    wanted = text.keywords(title_text, language)
    errors: Errors = {}
    if not wanted:
        errors["no_keywords"] = "The title has no keywords to look for in the page."
    else:
        searched = wanted[:MAX_KEYWORDS]
        missing = [word for word in searched if not text.has_word(ctx.folded_text, word)]
        if len(missing) > len(searched) * (1 - MIN_KEYWORD_SHARE):
            errors["missing"] = "Title words not in the page text: " + ", ".join(missing) + "."
    return verdict(wanted, errors)


_DECORATIVE_ROLES = frozenset({"presentation", "none"})
MAX_PIXEL_SIDE = 1  # a tracking pixel's width and height: nothing to describe


def _named_image(ctx: Context, node: LexborNode) -> bool:
    """Whether an image has a text alternative or is marked decorative, as axe's image-alt
    rule (Lighthouse's image-alt audit) accepts: an alt attribute (alt="" is decorative),
    role presentation or none, aria-hidden, aria-label, aria-labelledby naming elements
    with text, or a title."""
    attrs = node.attrs
    if "alt" in attrs or attrs.sget("aria-hidden").strip().lower() == "true":
        return True
    if _attr(node, "role").lower() in _DECORATIVE_ROLES:
        return True
    if _attr(node, "aria-label") or _attr(node, "title"):
        return True
    ids = _attr(node, "aria-labelledby").split()
    return any(ctx.text_of_id(element_id) for element_id in ids)


def _tracking_pixel(node: LexborNode) -> bool:
    sides = (_attr(node, "width"), _attr(node, "height"))
    return all(side.isdigit() and int(side) <= MAX_PIXEL_SIDE for side in sides)


def image_keywords(ctx: Context) -> Outcome:
    """Every `<img>` has a text alternative or is marked decorative (axe's image-alt rule);
    1x1 tracking pixels are not counted. Value: the images without one."""
    bare = [
        _attr(node, "src")
        for node in ctx.tags("img")
        if not _tracking_pixel(node) and not _named_image(ctx, node)
    ]
    errors: Errors = {}
    if bare:
        first = _shown(ctx.resolve(bare[0]) or bare[0])
        errors["missing_alt"] = (
            f"{words.counted(len(bare), 'image')} without alt text, the first "
            f'<img src="{_quoted(first)}">; every <img> needs one (alt="" if decorative).'
        )
    return verdict(_distinct(_shown(ctx.resolve(src) or src) for src in bare), errors)


def language(ctx: Context) -> Outcome:
    """`<html lang>` is declared. Value: the language."""
    roots = ctx.tags("html")
    lang = _attr(roots[0], "lang") if roots else ""
    errors = {} if lang else {"missing": 'The <html> element has no lang attribute (lang="en").'}
    return verdict(lang or None, errors)


def content_length(ctx: Context) -> Outcome:
    """At least 500 words of visible body text, counted by script (`text.word_count`: each
    Chinese or Japanese character is a word). Value: the count."""
    count = text.word_count(ctx.text)
    errors: Errors = {}
    if count < MIN_WORDS:
        errors["too_short"] = f"The page's text has {count} words; aim for at least {MIN_WORDS}."
    return verdict(count, errors)


def text_html_ratio(ctx: Context) -> Outcome:
    """Visible text is at least 10% of the HTML, in characters. Value: the percentage."""
    ratio = round(100 * len(ctx.text) / len(ctx.html), 2) if ctx.html else 0.0
    errors: Errors = {}
    if ratio < MIN_TEXT_RATIO:
        errors["too_low"] = f"Text is {ratio}% of the HTML; aim for {MIN_TEXT_RATIO:g}%."
    return verdict(ratio, errors)
