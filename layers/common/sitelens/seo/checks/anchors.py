"""Checks of the page's `<a>` links: how many, their texts, whether a crawler can follow
them, and links to social networks."""

from __future__ import annotations

import re
from functools import lru_cache

from selectolax.lexbor import LexborNode

from sitelens.seo import link_texts, links
from sitelens.seo.checks.context import Context, Link, _attr, _authority, _distinct, _shown, _text
from sitelens.seo.checks.outcome import Errors, Outcome, verdict

MAX_LINKS = 150


def in_page_links(ctx: Context) -> Outcome:
    """At most 150 `<a href>` links. Value: how many."""
    count = len(ctx.links)
    errors: Errors = {}
    if count > MAX_LINKS:
        errors["too_many"] = f"The page has {count} links; keep it to {MAX_LINKS}."
    return verdict(count, errors)


# punctuation and arrows that decorate "Read more »" style texts
_LINK_TEXT_DECORATION = " .,:;!?()[]<>|-\u2013\u2014\u2026\u00ab\u00bb\u2039\u203a\u2190\u2192"


def _generic_text(ctx: Context, link: Link) -> str | None:
    """The link's text when it says nothing (in the language of the nearest `lang`, or in
    any language without one) or is a bare URL, as Lighthouse's link-text audit finds."""
    text = _text(link.node)
    if not text:
        return None
    if links.absolute_http(text):
        return text
    phrase = " ".join(text.casefold().split()).strip(_LINK_TEXT_DECORATION)
    if phrase not in link_texts.ANY_LANGUAGE:
        return None
    language = ctx.language_of(link.node).split("-", 1)[0].lower()
    generic = link_texts.GENERIC.get(language) if language else link_texts.ANY_LANGUAGE
    return text if generic is not None and phrase in generic else None


def link_text(ctx: Context) -> Outcome:
    """No link says only "click here", "read more" and the like (in the languages of
    `link_texts`), as Lighthouse's link-text audit: nofollow, javascript:, mailto: and
    same-page links are skipped. Value: such texts."""
    generic = []
    for link in ctx.links:
        href = link.href.lower()
        if "nofollow" in link.node.attrs.sget("rel").lower().split():
            continue
        if href.startswith(("javascript:", "mailto:")):
            continue
        target = ctx.resolve(link.href)
        if target is None or links.same_page(target, ctx.url):
            continue
        if (text := _generic_text(ctx, link)) is not None:
            generic.append(text)
    errors = {"generic": f"Links with generic texts: {len(generic)}."} if generic else {}
    return verdict(_distinct(generic), errors)


# attributes that only make sense with an href: an <a> with one of them misses its href
_HREF_ATTRIBUTES = ("target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy")
_VOID_JAVASCRIPT = re.compile(r"javascript:void(\(|)0(\)|)", re.IGNORECASE)  # schemes ignore case


def _uncrawlable(ctx: Context, node: LexborNode) -> bool:
    """Lighthouse's crawlable-anchors rules for one `<a>`."""
    attrs = node.attrs
    raw = "".join(attrs.sget("href").split())
    if _attr(node, "role") or raw.startswith("mailto:"):
        return False
    if not raw and _attr(node, "id"):
        return False  # <a id="..."> is a fragment target
    if raw.startswith("file:"):
        return True
    if _attr(node, "name"):
        return False
    if (
        "href" not in attrs
        and not any(name in attrs for name in _HREF_ATTRIBUTES)
        and _attr(node, "aria-current").lower() in ("page", "location")
    ):
        return False  # a placeholder for the current page
    if "href" not in attrs:
        return True  # <a onclick="..."> and the like: nothing to crawl
    if _VOID_JAVASCRIPT.search(raw):
        return True
    resolved = ctx.resolve(raw) if raw else ctx.url
    return resolved is None or (
        resolved.split(":", 1)[0].lower() in ("http", "https") and not links.absolute_http(resolved)
    )


def crawlable_anchors(ctx: Context) -> Outcome:
    """Every `<a>` is a link a crawler can follow, by Lighthouse's crawlable-anchors rules:
    fails `<a>` without href (an onclick handler), `javascript:void(0)`, `file:` and
    malformed URLs; `href=""`, "#" and " " resolve to the page and pass; anchors with a
    role, a name or an id, and mailto: links, are exempt. Value: the bad hrefs."""
    bad = [
        node.attrs.sget("href") if "href" in node.attrs else "(no href)"
        for node in ctx.tags("a")
        if _uncrawlable(ctx, node)
    ]
    errors = {"uncrawlable": f"Links without a crawlable URL: {len(bad)}."} if bad else {}
    return verdict(_distinct(_shown(href) for href in bad), errors)


_SOCIAL_NETWORKS = {
    "facebook.com": "facebook",
    "fb.com": "facebook",
    "x.com": "x",
    "twitter.com": "x",
    "instagram.com": "instagram",
    "linkedin.com": "linkedin",
    "youtube.com": "youtube",
    "youtu.be": "youtube",
    "tiktok.com": "tiktok",
    "pinterest.com": "pinterest",
    "github.com": "github",
    "mastodon.social": "mastodon",
    "mastodon.online": "mastodon",
    "threads.net": "threads",
    "bsky.app": "bluesky",
    "reddit.com": "reddit",
    "discord.gg": "discord",
    "discord.com": "discord",
    "t.me": "telegram",
    "whatsapp.com": "whatsapp",
    "wa.me": "whatsapp",
    "snapchat.com": "snapchat",
    "tumblr.com": "tumblr",
    "twitch.tv": "twitch",
    "vk.com": "vk",
    "dribbble.com": "dribbble",
    "behance.net": "behance",
}


def social_network(url: str) -> str | None:
    """The social network an absolute URL belongs to (by host or parent domain), or None."""
    host = _authority(url).rsplit("@", 1)[-1].split(":", 1)[0]
    return _network_of(host.lower().rstrip("."))


@lru_cache(maxsize=1024)
def _network_of(host: str) -> str | None:
    labels = host.split(".")
    if labels[0] == "mastodon" and len(labels) > 2:  # self-hosted: mastodon.<domain>
        return "mastodon"
    for start in range(len(labels) - 1):
        network = _SOCIAL_NETWORKS.get(".".join(labels[start:]))
        if network:
            return network
    return None


def social(ctx: Context) -> Outcome:
    """Links to social networks. Value: the networks linked to."""
    # a relative href stays on this site; only absolute and //host links can leave it
    networks = _distinct(
        network
        for link in ctx.links
        if "//" in link.href and (network := social_network(link.href))
    )
    errors = {} if networks else {"missing": "The page links to no social network."}
    return verdict(networks, errors)
