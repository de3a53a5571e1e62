"""Google's rich-result rules: the properties each structured-data type must have (an
error: the page is not eligible for the rich result) and should have (a warning), as
Google's Search Central documentation lists them, one page a type (`Rule.doc`).

This table is the one home of those rules; `structured_data.validate` applies it to each
top-level item of a page (and to the nested items a rule names, such as an FAQ's
questions), after checking every item against the schema.org vocabulary. A type takes the
rule of its nearest ancestor in the table (a Restaurant that of LocalBusiness, a
NewsArticle that of Article).
"""

from __future__ import annotations

from dataclasses import dataclass, field

_DOCS = "https://developers.google.com/search/docs/appearance/structured-data"


@dataclass(frozen=True)
class Rule:
    """A type's required properties (each a tuple: any one of them will do), recommended
    ones, and rules for the items of a property (`nested`: property -> rule)."""

    doc: str
    required: tuple[tuple[str, ...], ...] = ()
    recommended: tuple[str, ...] = ()
    nested: dict[str, Rule] = field(default_factory=dict)


_ANSWER = Rule(f"{_DOCS}/faqpage", required=(("text",),))
_QUESTION = Rule(
    f"{_DOCS}/faqpage",
    required=(("name",), ("acceptedAnswer",)),
    nested={"acceptedAnswer": _ANSWER},
)
_CRUMB = Rule(f"{_DOCS}/breadcrumb", required=(("position",), ("name", "item")))

RULES: dict[str, Rule] = {
    "Product": Rule(
        f"{_DOCS}/product-snippet",
        required=(("name",), ("offers", "review", "aggregateRating")),
        recommended=("image", "description", "brand"),
    ),
    "Article": Rule(
        f"{_DOCS}/article",
        recommended=("headline", "image", "author", "datePublished", "dateModified"),
    ),
    "BreadcrumbList": Rule(
        f"{_DOCS}/breadcrumb", required=(("itemListElement",),), nested={"itemListElement": _CRUMB}
    ),
    "FAQPage": Rule(
        f"{_DOCS}/faqpage", required=(("mainEntity",),), nested={"mainEntity": _QUESTION}
    ),
    "Organization": Rule(f"{_DOCS}/organization", recommended=("name", "url", "logo")),
    "LocalBusiness": Rule(
        f"{_DOCS}/local-business",
        required=(("name",), ("address",)),
        recommended=("telephone", "url", "geo", "openingHoursSpecification", "priceRange"),
    ),
    "Event": Rule(
        f"{_DOCS}/event",
        required=(("name",), ("startDate",), ("location",)),
        recommended=("description", "endDate", "eventStatus", "image", "offers", "organizer"),
    ),
    "Recipe": Rule(
        f"{_DOCS}/recipe",
        required=(("name",), ("image",)),
        recommended=(
            "author",
            "datePublished",
            "description",
            "recipeIngredient",
            "recipeInstructions",
            "totalTime",
        ),
    ),
    "VideoObject": Rule(
        f"{_DOCS}/video",
        required=(("name",), ("thumbnailUrl",), ("uploadDate",)),
        recommended=("description", "contentUrl", "duration"),
    ),
}


def missing(alternatives: tuple[str, ...]) -> str:
    """A required property as an error names it: `offers` (or review/aggregateRating)."""
    first, *others = alternatives
    return f"`{first}`" + (f" (or {'/'.join(others)})" if others else "")
