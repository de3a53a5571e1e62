"""Structured data checked against schema.org's vocabulary and Google's rich-result rules,
on small snippets of JSON-LD, Microdata and RDFa."""

from __future__ import annotations

import json

import pytest

from sitelens.seo import rich_results, structured_data

URL = "https://example.com/p"


def ld(*items: dict) -> str:
    scripts = "".join(f'<script type="application/ld+json">{json.dumps(i)}</script>' for i in items)
    return f"<html><head>{scripts}</head><body></body></html>"


def messages(html: str) -> tuple[list[str], list[str]]:
    found = structured_data.validate(html, URL)
    return [f.message for f in found.errors], [f.message for f in found.warnings]


def test_the_vocabulary_is_schema_org_s_current_one():
    types, properties = structured_data.vocabulary()
    assert len(types) > 800 and len(properties) > 1400
    assert "LocalBusiness" in structured_data.ancestors("Restaurant")
    assert "Organization" in properties["logo"]


def test_every_rule_names_types_and_properties_schema_org_defines():
    types, properties = structured_data.vocabulary()
    for name, rule in rich_results.RULES.items():
        assert name in types and rule.doc.startswith("https://developers.google.com/search/")
        named = [p for alternatives in rule.required for p in alternatives] + [*rule.recommended]
        assert set(named) <= set(properties), name


@pytest.mark.parametrize(
    ("item", "errors"),
    [
        ({"@type": "Event", "name": "Gig", "startDate": "2030-01-01"}, ["`location`"]),
        ({"@type": "Recipe", "name": "Soup"}, ["`image`"]),
        ({"@type": "VideoObject", "name": "Clip"}, ["`thumbnailUrl`", "`uploadDate`"]),
        ({"@type": "LocalBusiness", "address": "1 Road"}, ["`name`"]),
        ({"@type": "BreadcrumbList"}, ["`itemListElement`"]),
        ({"@type": "FAQPage"}, ["`mainEntity`"]),
        ({"@type": "Product", "name": "Lamp", "review": {"@type": "Review"}}, []),
        ({"@type": "NewsArticle", "headline": "News"}, []),  # Article's rule: no requirement
    ],
)
def test_google_s_required_properties(item, errors):
    found, _ = messages(ld({"@context": "https://schema.org", **item}))
    assert [m for m in found if "required" in m] == [
        f"{item['@type']} is missing required property {p}." for p in errors
    ]


def test_a_subtype_takes_its_nearest_ancestor_s_rule():
    found, warnings = messages(ld({"@context": "https://schema.org", "@type": "Restaurant"}))
    assert found == [
        "Restaurant is missing required property `name`.",
        "Restaurant is missing required property `address`.",
    ]
    assert "Restaurant is missing recommended property `telephone`." in warnings


def test_types_and_properties_outside_the_vocabulary_are_errors():
    found, _ = messages(
        ld(
            {"@context": "https://schema.org", "@type": "Prodcut"},
            {"@context": "http://schema.org/", "@type": "Person", "colour": "red"},
            {"@context": "https://schema.org", "@type": "Person", "startDate": "2020"},
        )
    )
    assert found == [
        "`Prodcut` is not a schema.org type.",
        "Person has property `colour`, which schema.org does not define.",
        "`startDate` is not a property of Person in schema.org.",
    ]


def test_nested_items_and_graphs_are_checked():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "Product", "name": "Lamp", "offers": {"@type": "Offer", "prize": 3}},
            {"@type": "FAQPage", "mainEntity": {"@type": "Question", "name": "Why?"}},
        ],
    }
    found, _ = messages(ld(graph))
    assert found == [
        "Offer has property `prize`, which schema.org does not define.",
        "Question is missing required property `acceptedAnswer`.",
    ]


def test_json_that_does_not_parse_is_an_error_and_the_other_blocks_still_count():
    html = '<script type="application/ld+json">{"@type": </script>' + ld(
        {"@context": "https://schema.org", "@type": "Prodcut"}
    )
    found, _ = messages(html)
    assert found[0].startswith("JSON-LD block 1 is not valid JSON")
    assert found[1] == "`Prodcut` is not a schema.org type."


def test_microdata_and_rdfa_are_read_as_json_ld_is():
    html = (
        '<div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Gig</span>'
        '<span itemprop="colour">red</span></div>'
        '<div vocab="https://schema.org/" typeof="Recipe"><span property="name">Soup</span>'
        '<span property="author" typeof="Person"><span property="nam">Ann</span></span></div>'
    )
    found = structured_data.validate(html, URL)
    assert found.types == ["Event", "Recipe"]
    assert [f.message for f in found.errors] == [
        "Event has property `colour`, which schema.org does not define.",
        "Event is missing required property `startDate`.",
        "Event is missing required property `location`.",
        "Person has property `nam`, which schema.org does not define.",
        "Recipe is missing required property `image`.",
    ]


def test_other_vocabularies_are_not_judged():
    html = (
        '<meta property="og:title" content="T">'
        '<script type="application/ld+json">{"@context": "https://example.org/", '
        '"@type": "Gadget", "colour": 1}</script>'
        '<div itemscope itemtype="https://example.org/Gadget"><span itemprop="x">1</span></div>'
    )
    assert structured_data.validate(html, URL) == structured_data.Validation([], [], [])


def test_findings_are_bounded():
    items = [{"@context": "https://schema.org", "@type": f"Nope{n}"} for n in range(40)]
    found = structured_data.validate(ld(*items), URL)
    assert len(found.errors) == structured_data.MAX_FINDINGS
