"""The generated site's pages of structured data and images, and its llms.txt, with known
answers (`tests/bench/audit_site.py` serves them in every group; the integration tests
serve one group on their own).

`pages(g)`: a group's pages (path -> status, content type, body), valid and broken
rich-result markup in JSON-LD, Microdata and RDFa, and images with every defect the audit
checks (broken, oversized for their shown size, legacy format without a modern one), beside
images that must pass (a WebP, a JPEG in a <picture> with a WebP source, a JPEG whose
server answers WebP to an Accept that asks for it, a small PNG icon). `expected(groups)`
names each finding exactly: (page path, detail) for structured data and llms.txt, (page
path, image path) for images. `NEGOTIATED` paths answer WebP when asked for it.
"""

from __future__ import annotations

import io
import json
import random
from functools import cache

HTML = "text/html; charset=utf-8"
# a group's pages linked from the home page (all of them: each is its own case)
ENTRIES = (
    "sd-product",
    "sd-product-no-offers",
    "sd-event-microdata",
    "sd-recipe-rdfa",
    "sd-unknown",
    "sd-faq",
    "sd-json-syntax",
    "sd-organization",
    "sd-valid-mix",
    "sd-other-vocabularies",
    "img-ok",
    "img-defects",
    "img-modern-offered",
    "img-no-alt",
)
NEGOTIATED = "negotiated.jpg"  # a JPEG URL whose server answers WebP when asked


@cache
def image(width: int, height: int, kind: str, seed: int) -> bytes:
    """Noise (so that it compresses as a photo does), encoded by Pillow."""
    from PIL import Image

    pixels = random.Random(seed).randbytes(width * height * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), pixels).save(out, kind)
    return out.getvalue()


def _ld(*items: dict) -> str:
    return "".join(f'<script type="application/ld+json">{json.dumps(i)}</script>' for i in items)


def _page(title: str, head: str = "", body: str = "") -> str:
    return (
        f"<!doctype html><html lang=en><head><title>{title}</title>"
        f'<meta name="description" content="About {title}.">{head}</head>'
        f'<body><h1>{title}</h1><p>The page {title}.</p>{body}<a href="/">Home</a></body></html>'
    )


_CTX = "https://schema.org"
PRODUCT = {
    "@context": _CTX,
    "@type": "Product",
    "name": "Lamp",
    "image": "https://example.com/lamp.jpg",
    "description": "A lamp.",
    "brand": {"@type": "Brand", "name": "Lumen"},
    "offers": {"@type": "Offer", "price": "20.00", "priceCurrency": "EUR"},
}
_EVENT_MICRODATA = (
    '<div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Gig</span>'
    '<span itemprop="description">A gig.</span><meta itemprop="endDate" content="2030-01-02">'
    '<link itemprop="eventStatus" href="https://schema.org/EventScheduled">'
    '<link itemprop="image" href="https://example.com/gig.jpg">'
    '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
    '<meta itemprop="price" content="10"></div>'
    '<div itemprop="organizer" itemscope itemtype="https://schema.org/Organization">'
    '<span itemprop="name">Org</span></div></div>'
)
_RECIPE_RDFA = (
    '<div vocab="https://schema.org/" typeof="Recipe"><span property="name">Soup</span>'
    '<span property="author" typeof="Person"><span property="name">Ann</span></span>'
    '<meta property="datePublished" content="2024-01-01">'
    '<span property="description">Hot soup.</span>'
    '<span property="recipeIngredient">Water</span>'
    '<span property="recipeInstructions">Boil.</span>'
    '<meta property="totalTime" content="PT10M"></div>'
)
_ARTICLE_RDFA = (
    '<div vocab="https://schema.org/" typeof="Article"><span property="headline">News</span>'
    '<link property="image" href="https://example.com/a.jpg">'
    '<span property="author" typeof="Person"><span property="name">Bo</span></span>'
    '<meta property="datePublished" content="2024-01-01">'
    '<meta property="dateModified" content="2024-01-02"></div>'
)
_BREADCRUMBS = {
    "@context": _CTX,
    "@type": "BreadcrumbList",
    "itemListElement": [
        {"@type": "ListItem", "position": 1, "name": "Home", "item": "https://example.com/"},
        {"@type": "ListItem", "position": 2, "name": "Lamps"},
    ],
}
_BUSINESS = {
    "@context": _CTX,
    "@type": "Restaurant",
    "name": "Diner",
    "address": {"@type": "PostalAddress", "streetAddress": "1 Road"},
    "telephone": "+1 555 0100",
    "url": "https://example.com/",
    "geo": {"@type": "GeoCoordinates", "latitude": 1, "longitude": 2},
    "openingHoursSpecification": {"@type": "OpeningHoursSpecification", "opens": "09:00"},
    "priceRange": "$$",
}
_VIDEO = {
    "@context": _CTX,
    "@type": "VideoObject",
    "name": "Clip",
    "thumbnailUrl": "https://example.com/t.jpg",
    "uploadDate": "2024-01-01",
    "description": "A clip.",
    "contentUrl": "https://example.com/c.mp4",
    "duration": "PT1M",
}
_FAQ = {
    "@context": _CTX,
    "@type": "FAQPage",
    "mainEntity": [
        {
            "@type": "Question",
            "name": "Why?",
            "acceptedAnswer": {"@type": "Answer", "text": "Because."},
        },
        {"@type": "Question", "name": "How?"},
    ],
}


def pages(g: str) -> dict[str, tuple[int, str, str | bytes]]:
    """One group's pages and images (path -> status, content type, body)."""
    no_offers = {k: v for k, v in PRODUCT.items() if k != "offers"}
    unknown = [
        {"@context": _CTX, "@type": "Prodcut", "name": "Typo"},
        {"@context": _CTX, "@type": "Person", "name": "Cy", "colour": "red"},
    ]
    organization = {"@context": _CTX, "@type": "Organization", "name": "Org"}
    other = (
        '<meta property="og:title" content="Other">'
        '<script type="application/ld+json">{"@context": "https://example.org/v#", '
        '"@type": "Gadget", "colour": "red"}</script>'
    )
    img = f'<img src="{g}/photo.webp" width="200" height="200" alt="A photo">'
    defects = (
        f'<img src="{g}/missing.png" alt="Gone">'
        f'<img src="{g}/big.jpg" width="100" height="75" alt="Big">'
        f'<img src="{g}/photo.jpg" alt="Legacy">'
        f'<img src="{g}/icon.png" width="16" height="16" alt="Icon">'
    )
    modern = (
        f'<picture><source type="image/webp" srcset="{g}/pic.webp">'
        f'<img src="{g}/pic.jpg" width="300" height="200" alt="Picture"></picture>'
        f'<img src="{g}/{NEGOTIATED}" width="300" height="200" alt="Negotiated">'
        f'<img src="{g}/set.jpg" srcset="{g}/set.avif 1x" alt="Set">'
    )
    return {
        f"{g}/sd-product": (200, HTML, _page(f"Product {g}", _ld(PRODUCT))),
        f"{g}/sd-product-no-offers": (200, HTML, _page(f"No offers {g}", _ld(no_offers))),
        f"{g}/sd-event-microdata": (200, HTML, _page(f"Event {g}", body=_EVENT_MICRODATA)),
        f"{g}/sd-recipe-rdfa": (200, HTML, _page(f"Recipe {g}", body=_RECIPE_RDFA)),
        f"{g}/sd-unknown": (200, HTML, _page(f"Unknown {g}", _ld(*unknown))),
        f"{g}/sd-faq": (200, HTML, _page(f"FAQ {g}", _ld(_FAQ))),
        f"{g}/sd-json-syntax": (
            200,
            HTML,
            _page(
                f"Syntax {g}", '<script type="application/ld+json">{"@type": "Product",</script>'
            ),
        ),
        f"{g}/sd-organization": (200, HTML, _page(f"Organization {g}", _ld(organization))),
        f"{g}/sd-valid-mix": (
            200,
            HTML,
            _page(f"Valid {g}", _ld(_BREADCRUMBS, _BUSINESS, _VIDEO), body=_ARTICLE_RDFA),
        ),
        f"{g}/sd-other-vocabularies": (200, HTML, _page(f"Other {g}", other)),
        f"{g}/img-ok": (200, HTML, _page(f"Images fine {g}", body=img)),
        f"{g}/img-defects": (200, HTML, _page(f"Images broken {g}", body=defects)),
        f"{g}/img-modern-offered": (200, HTML, _page(f"Images modern {g}", body=modern)),
        f"{g}/img-no-alt": (
            200,
            HTML,
            _page(f"No alt {g}", body=img.replace(' alt="A photo"', "")),
        ),
        f"{g}/photo.webp": (200, "image/webp", image(200, 200, "WEBP", 1)),
        f"{g}/big.jpg": (200, "image/jpeg", image(640, 480, "JPEG", 2)),
        f"{g}/photo.jpg": (200, "image/jpeg", image(300, 200, "JPEG", 3)),
        f"{g}/icon.png": (200, "image/png", image(16, 16, "PNG", 4)),
        f"{g}/pic.jpg": (200, "image/jpeg", image(300, 200, "JPEG", 5)),
        f"{g}/pic.webp": (200, "image/webp", image(300, 200, "WEBP", 5)),
        f"{g}/{NEGOTIATED}": (200, "image/jpeg", image(300, 200, "JPEG", 6)),
        f"{g}/set.jpg": (200, "image/jpeg", image(300, 200, "JPEG", 7)),
    }


def negotiated() -> tuple[str, bytes]:
    """What a NEGOTIATED path answers an Accept with image/webp."""
    return "image/webp", image(300, 200, "WEBP", 6)


def llms_txt(base: str) -> str:
    """The site's llms.txt: a title, a summary, a section with a working link, a broken
    one, and an item that is not a link (malformed)."""
    return (
        "# Generated site\n\n> A site the audit bench generates.\n\n## Pages\n\n"
        f"- [Home]({base}/): the home page\n- [Gone]({base}/llms-gone): a page that is not\n"
        "- Contact us by mail\n"
    )


def expected(groups: int, base: str) -> dict[str, set[tuple[str, str]]]:
    """What an audit of the site must report, by check: (page path, detail) exactly, or
    (page path, image path) for the image checks (whose details start with the image)."""
    found: dict[str, set[tuple[str, str]]] = {
        "structured_data_error": set(),
        "structured_data_warning": set(),
        "image_broken": set(),
        "image_oversized": set(),
        "image_legacy_format": set(),
        "page_image_keywords": set(),
    }
    for n in range(groups):
        g = f"/g{n}"
        found["structured_data_error"] |= {
            (
                f"{g}/sd-product-no-offers",
                "Product is missing required property `offers` (or review/aggregateRating).",
            ),
            (f"{g}/sd-event-microdata", "Event is missing required property `startDate`."),
            (f"{g}/sd-event-microdata", "Event is missing required property `location`."),
            (f"{g}/sd-recipe-rdfa", "Recipe is missing required property `image`."),
            (f"{g}/sd-unknown", "`Prodcut` is not a schema.org type."),
            (f"{g}/sd-unknown", "Person has property `colour`, which schema.org does not define."),
            (f"{g}/sd-faq", "Question is missing required property `acceptedAnswer`."),
            (
                f"{g}/sd-json-syntax",
                "JSON-LD block 1 is not valid JSON (Expecting property "
                "name enclosed in double quotes).",
            ),
        }
        found["structured_data_warning"] |= {
            (f"{g}/sd-organization", "Organization is missing recommended property `url`."),
            (f"{g}/sd-organization", "Organization is missing recommended property `logo`."),
        }
        found["image_broken"].add((f"{g}/img-defects", f"{base}{g}/missing.png"))
        found["image_oversized"].add((f"{g}/img-defects", f"{base}{g}/big.jpg"))
        found["image_legacy_format"] |= {
            (f"{g}/img-defects", f"{base}{g}/big.jpg"),
            (f"{g}/img-defects", f"{base}{g}/photo.jpg"),
        }
        found["page_image_keywords"].add((f"{g}/img-no-alt", "image_keywords"))
    return found


def expected_llms(base: str) -> dict[str, set[tuple[str, str]]]:
    """What the audit must report of `llms_txt(base)`: (llms.txt path, detail)."""
    return {
        "llms_txt_missing": set(),
        "llms_txt_malformed": {
            (
                "/llms.txt",
                "In section 'Pages', the item 'Contact us by mail' does not begin with a "
                "Markdown link [name](url).",
            )
        },
        "llms_txt_broken_link": {("/llms.txt", f"{base}/llms-gone (404)")},
    }


def finding(code: str, detail: str) -> str:
    """The part of an issue's detail the answers name: the image for image checks."""
    return detail.split(" ")[0].rstrip(":") if code.startswith("image_") else detail
