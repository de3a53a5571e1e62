"""`visit:channel`: the marketing channel of a visit, by Google Analytics 4's default channel
group (the rules Plausible applies), with one channel more, AI Assistants.

A channel is found at query time from the visit's stored source, referrer and UTM tags
(`sql`), not stored itself: every row ever written has one, on every engine, from raw rows
and from the stored summaries of visits alike. The lists it reads (which sources are
search engines, social networks, video and shopping sites, mail, AI assistants) are data,
in `channels.json` beside `sources.json`, whose names count in their categories too.

The rules, first match wins (`RULES`): a visit's *source* is its `utm_source` when it has
one, else its referrer's source (`visit:source`), lowercased; *medium* and *campaign* its
`utm_medium` and `utm_campaign`, lowercased. A medium is *paid* when it matches
`^(.*cp.*|ppc|retargeting|paid.*)$`. GA4 also reads Google's and Microsoft's click ids
(gclid, msclkid); pages are stored without them, so such a visit without UTM tags is
Organic Search here.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Final

from sitelens.analytics.warehouse import schema

NAMES: Final = (
    "Cross-network",
    "Display",
    "Paid Shopping",
    "Paid Search",
    "Paid Social",
    "Paid Video",
    "Paid Other",
    "AI Assistants",
    "Organic Shopping",
    "Organic Social",
    "Organic Video",
    "Organic Search",
    "Email",
    "Affiliates",
    "Audio",
    "SMS",
    "Mobile Push Notifications",
    "Referral",
    "Direct",
)
_PAID: Final = "'^(.*cp.*|ppc|retargeting|paid.*)$'"
_SHOPPING_CAMPAIGN: Final = "'^(.*(([^a-df-z]|^)shop|shopping).*)$'"
_EMAIL_WORDS: Final = "'e[-_ ]?mail|newsletter'"
_SOCIAL_MEDIUMS: Final = (
    "social",
    "social-network",
    "social-media",
    "sm",
    "social network",
    "social media",
)
_DISPLAY_MEDIUMS: Final = ("display", "banner", "expandable", "interstitial", "cpm")


@cache
def categories() -> dict[str, frozenset[str]]:
    """Category -> the lowercased sources in it (search, social, video, shopping, email,
    ai): `sources.json`'s names by their group, then `channels.json`'s lists, which win."""
    folder = resources.files("sitelens.analytics")
    named = json.loads(folder.joinpath("sources.json").read_text())
    listed = json.loads(folder.joinpath("channels.json").read_text())
    category: dict[str, str] = {}
    for group in ("search", "social", "ai"):
        for name in named[group].values():
            category[name.lower()] = group
    for group, sources in listed["categories"].items():
        category.update(dict.fromkeys(sources, group))
    category.update(dict.fromkeys(listed["ai_assistants"], "ai"))
    found: dict[str, set[str]] = {}
    for source, group in category.items():
        found.setdefault(group, set()).add(source)
    return {group: frozenset(sources) for group, sources in found.items()}


def _among(value: str, words: frozenset[str] | tuple[str, ...]) -> str:
    return f"{value} IN ({', '.join(schema.literal(word) for word in sorted(words))})"


@cache
def sql(prefix: str = "e.v_") -> str:
    """The channel of a visit whose columns are `<prefix>source`, `<prefix>utm_medium`...,
    in DuckDB's words (rendered for the other engines as every statement is)."""

    def lowered(column: str) -> str:
        return f"LOWER(COALESCE({prefix}{column}, ''))"

    medium, campaign = lowered("utm_medium"), lowered("utm_campaign")
    tagged = lowered("utm_source")
    source = f"(CASE WHEN {tagged} <> '' THEN {tagged} ELSE {lowered('source')} END)"
    found = categories()

    def of(group: str) -> str:
        return _among(source, found.get(group, frozenset()))

    paid = f"REGEXP_MATCHES({medium}, {_PAID})"
    shopping_campaign = f"REGEXP_MATCHES({campaign}, {_SHOPPING_CAMPAIGN})"
    rules = (
        ("Cross-network", f"STRPOS({campaign}, 'cross-network') > 0"),
        ("Display", _among(medium, _DISPLAY_MEDIUMS)),
        ("Paid Shopping", f"{paid} AND ({of('shopping')} OR {shopping_campaign})"),
        ("Paid Search", f"{paid} AND {of('search')}"),
        ("Paid Social", f"{paid} AND {of('social')}"),
        ("Paid Video", f"{paid} AND {of('video')}"),
        ("Paid Other", paid),
        ("AI Assistants", of("ai")),
        ("Organic Shopping", f"{of('shopping')} OR {shopping_campaign}"),
        ("Organic Social", f"{of('social')} OR {_among(medium, _SOCIAL_MEDIUMS)}"),
        ("Organic Video", f"{of('video')} OR STRPOS({medium}, 'video') > 0"),
        ("Organic Search", f"{of('search')} OR {medium} = 'organic'"),
        (
            "Email",
            f"{of('email')} OR REGEXP_MATCHES({tagged}, {_EMAIL_WORDS}) "
            f"OR REGEXP_MATCHES({medium}, {_EMAIL_WORDS})",
        ),
        ("Affiliates", f"{medium} = 'affiliate'"),
        ("Audio", f"{medium} = 'audio'"),
        ("SMS", f"{tagged} = 'sms' OR {medium} = 'sms'"),
        (
            "Mobile Push Notifications",
            f"{medium} LIKE '%push' OR STRPOS({medium}, 'mobile') > 0 "
            f"OR STRPOS({medium}, 'notification') > 0 OR {source} = 'firebase'",
        ),
        ("Referral", f"{_among(medium, ('referral', 'app', 'link'))} OR {source} <> ''"),
    )
    cases = "\n".join(f"  WHEN {test} THEN {schema.literal(name)}" for name, test in rules)
    return f"(CASE\n{cases}\n  ELSE 'Direct'\nEND)"
