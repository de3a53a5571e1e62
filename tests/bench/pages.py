"""Realistic pages for the SEO benchmark: a shop/blog page with the head a real site has
(meta, Open Graph, JSON-LD, stylesheets, scripts, hreflang) and a body of article
sections (headings, paragraphs with inline links, images, pictures, lists, tables,
embeds, forms, inline SVG), repeated with varied text until the page has the size asked."""

from __future__ import annotations

import json
import random

from sitelens.seo.page import Response, Site

HOST = "www.acme-garden.example"
URL = f"https://{HOST}/guides/pruning-shears"
_VOCABULARY = (  # noqa: SIM905 - a word list reads better as words
    "garden pruning shears blade steel handle grip branch rose hedge tree cut clean sharp "
    "spring summer autumn winter soil compost water sunlight leaf stem bud flower fruit "
    "season tool care oil rust storage guide tip expert beginner choose buy review price "
    "quality durable lightweight ergonomic bypass anvil ratchet lopper saw glove safety "
    "shape growth healthy disease prevent angle node shoot cane shrub perennial vine "
    "orchard apple pear plum cherry grape lavender hydrangea boxwood maple oak willow"
).split()
_EXTERNAL = (
    "https://en.wikipedia.org/wiki/Pruning",
    "https://www.rhs.org.uk/advice/pruning",
    "http://old-forum.gardeners.example/thread/1234",
    "https://www.youtube.com/watch?v=abc123",
    "https://shop.partner.example/shears?ref=acme",
)
_SOCIAL = (
    "https://www.facebook.com/acmegarden",
    "https://x.com/acmegarden",
    "https://www.instagram.com/acmegarden/",
    "https://github.com/acme-garden",
)
_SVG = (
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><title>Leaf</title>'
    '<path d="M12 2C7 7 4 11 4 15a8 8 0 0016 0c0-4-3-8-8-13z"/></svg>'
)


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_VOCABULARY) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random, n: int) -> str:
    parts = []
    for _ in range(rng.randint(3, 6)):
        sentence = _sentence(rng, rng.randint(8, 20))
        roll = rng.random()
        if roll < 0.25:
            slug = "-".join(rng.sample(_VOCABULARY, 3))
            sentence += f' See <a href="/guides/{slug}">our {slug.replace("-", " ")} guide</a>.'
        elif roll < 0.35:
            url = rng.choice(_EXTERNAL)
            rel = ' rel="noopener"' if rng.random() < 0.5 else ""
            sentence += f' Read <a href="{url}" target="_blank"{rel}>more on this</a>.'
        elif roll < 0.4:
            sentence += " <strong>" + _sentence(rng, 4) + "</strong>"
        parts.append(sentence)
    style = ' style="margin-top:0"' if n % 17 == 0 else ""
    return (
        f'<div class="prose-block mx-auto max-w-prose text-gray-700 leading-relaxed" '
        f'data-block="{n}-{rng.randint(0, 999)}"><p class="text-base md:text-lg"{style}>'
        f"{' '.join(parts)}</p></div>"
    )


def _image(rng: random.Random, n: int) -> str:
    name = "-".join(rng.sample(_VOCABULARY, 2))
    alt = f' alt="{name.replace("-", " ")}"' if rng.random() < 0.8 else ""
    if n % 5 == 0:
        return (
            f'<picture><source type="image/avif" srcset="/img/{name}-{n}.avif">'
            f'<source type="image/webp" srcset="/img/{name}-{n}.webp">'
            f'<img src="/img/{name}-{n}.jpg"{alt} width="800" height="600" loading="lazy">'
            "</picture>"
        )
    ext = rng.choice(("jpg", "webp", "png", "avif"))
    return (
        f'<figure><img src="https://cdn.acme-garden.example/img/{name}-{n}.{ext}"{alt} '
        f'width="640" height="480" loading="lazy"><figcaption>{_sentence(rng, 6)}</figcaption>'
        "</figure>"
    )


def _cards(rng: random.Random, n: int) -> str:
    cards = []
    for i in range(4):
        name = "-".join(rng.sample(_VOCABULARY, 2))
        cards.append(
            f'<div class="card group relative flex flex-col rounded-lg border border-gray-200 '
            f'bg-white shadow-sm hover:shadow-md" data-product-id="{n * 10 + i}">'
            f'<a class="card-link block aspect-square overflow-hidden" href="/products/{name}">'
            f'<img class="h-full w-full object-cover" src="/img/products/{name}.webp" '
            f'alt="{name.replace("-", " ")}" width="300" height="300" loading="lazy"></a>'
            f'<div class="card-body flex flex-1 flex-col p-4"><h4 class="text-sm font-medium">'
            f'<a href="/products/{name}">{name.replace("-", " ").title()}</a></h4>'
            f'<p class="mt-1 text-sm text-gray-500">{_sentence(rng, 5)}</p>'
            f'<div class="mt-auto flex items-center justify-between"><span class="price '
            f'text-lg font-semibold">{rng.randint(9, 99)}.{rng.randint(0, 99):02d} EUR</span>'
            f'<button class="btn btn-primary inline-flex items-center gap-1" type="button" '
            f'data-action="add-to-cart" aria-label="Add to cart">{_SVG}<span>Add</span>'
            "</button></div></div></div>"
        )
    return f'<div class="product-grid grid grid-cols-2 gap-4 md:grid-cols-4">{"".join(cards)}</div>'


def _section(rng: random.Random, n: int) -> str:
    parts = [f'<section id="part-{n}" class="guide-section">']
    parts.append(f"<h2>{_sentence(rng, 5)[:-1]}</h2>")
    for _ in range(rng.randint(2, 4)):
        parts.append(_paragraph(rng, n))
    parts.append(_image(rng, n))
    if n % 2 == 0:
        parts.append(_cards(rng, n))
    if n % 3 == 0:
        items = "".join(
            f'<li><a href="/products/{rng.choice(_VOCABULARY)}-{n}-{i}">{_sentence(rng, 3)}</a>'
            f" {_sentence(rng, 8)}</li>"
            for i in range(rng.randint(4, 8))
        )
        parts.append(f'<ul class="tips">{items}</ul>')
    if n % 4 == 0:
        rows = "".join(
            f"<tr><td>{rng.choice(_VOCABULARY)}</td><td>{rng.randint(10, 90)} EUR</td>"
            f"<td>{rng.randint(1, 5)}/5</td></tr>"
            for _ in range(5)
        )
        parts.append(
            "<table><thead><tr><th>Model</th><th>Price</th><th>Rating</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    if n % 7 == 0:
        parts.append(
            f'<h3>{_sentence(rng, 4)[:-1]}</h3><div class="callout">{_SVG}'
            f"<span>{_sentence(rng, 12)}</span></div>"
        )
    if n % 9 == 0:
        parts.append(
            '<iframe src="https://www.youtube.com/embed/xyz' + str(n) + '" width="560" '
            'height="315" title="Video" loading="lazy" allowfullscreen></iframe>'
        )
    if n % 11 == 0:
        parts.append('<p><a href="/guides/more">Read more</a> <a href="#">top</a></p>')
    if n % 13 == 0:
        parts.append(
            '<form action="/newsletter" method="post"><input type="email" name="email" '
            'placeholder="Your email"><input type="image" src="/img/go.png" alt="Go"></form>'
        )
    if n % 29 == 0:
        parts.append("<center><font color=red>Spring sale!</font></center>")
    parts.append(
        '<script>window.dataLayer=window.dataLayer||[];dataLayer.push({"section":'
        + str(n)
        + "});</script>"
    )
    parts.append("</section>")
    return "".join(parts)


_HEAD = """<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pruning Shears: How to Choose and Care for Them</title>
<meta name="description" content="Everything about pruning shears: bypass or anvil,
 blade care, and the best models for roses, hedges and fruit trees.">
<meta name="robots" content="index, follow">
<meta property="og:title" content="Pruning Shears Guide">
<meta property="og:type" content="article">
<meta property="og:image" content="https://cdn.acme-garden.example/img/og-shears.jpg">
<meta name="twitter:card" content="summary_large_image">
<link rel="canonical" href="https://www.acme-garden.example/guides/pruning-shears">
<link rel="icon" href="/favicon.ico" sizes="any">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<link rel="alternate" hreflang="en" href="https://www.acme-garden.example/guides/pruning-shears">
<link rel="alternate" hreflang="de-DE" href="https://www.acme-garden.example/de/ratgeber/gartenschere">
<link rel="alternate" hreflang="x-default" href="https://www.acme-garden.example/guides/pruning-shears">
<link rel="preconnect" href="https://cdn.acme-garden.example">
<link rel="stylesheet" href="/assets/app.3f9a1c.css">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap">
<link rel="stylesheet" href="http://legacy-cdn.acme-garden.example/print.css" media="print">
<style>body{font-family:Inter,sans-serif;margin:0}.icon{width:1em;height:1em}.guide-section{max-width:48rem;margin:auto}</style>
<script src="/assets/vendor.91b2.js"></script>
<script src="/assets/app.3f9a1c.js" defer></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-XXXX"></script>
<script type="module" src="/assets/islands.js"></script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",
"headline":"Pruning Shears: How to Choose and Care for Them",
"author":{"@type":"Person","name":"Ada Gardener"},"datePublished":"2026-03-14"}</script>
</head>
"""


def _header(rng: random.Random) -> str:
    nav = "".join(
        f'<li><a href="/{word}">{word.title()}</a></li>' for word in rng.sample(_VOCABULARY, 24)
    )
    return (
        '<body><header class="site-header"><a class="logo" href="/">'
        f'{_SVG}<span>Acme Garden</span></a><nav aria-label="Main"><ul>{nav}</ul></nav>'
        '<form role="search" action="/search"><input type="search" name="q">'
        "<button>Search</button></form></header>"
        "<main><article><h1>Choosing and caring for pruning shears</h1>"
        f'<p class="lead">{_sentence(rng, 30)}</p>'
    )


def _footer(rng: random.Random) -> str:
    social = "".join(f'<a href="{url}" target="_blank" rel="noopener">f</a>' for url in _SOCIAL)
    links = "".join(
        f'<li><a href="/{word}/{i}">{word}</a></li>'
        for i, word in enumerate(rng.sample(_VOCABULARY, 12))
    )
    return (
        "</article></main><footer><ul>"
        f"{links}</ul><p>Write to us: hello@acme-garden.example or "
        '<a href="mailto:shop@acme-garden.example">our shop</a>.</p>'
        f'<div class="social">{social}</div>'
        '<noscript><img src="/pixel.gif" alt=""></noscript>'
        '<script src="/assets/consent.js"></script></footer></body></html>\n'
    )


def page_html(size: int, seed: int = 1) -> bytes:
    """A page of about `size` bytes (within one section's size above it)."""
    rng = random.Random(seed)
    head, footer = _HEAD + _header(rng), _footer(rng)
    # Framework-rendered pages carry their state as inline JSON: about a tenth of the page.
    state = json.dumps(
        {"props": {"page": [_sentence(rng, 12) for _ in range(size // 1000)]}},
        separators=(",", ":"),
    )
    footer = f'<script id="__NEXT_DATA__" type="application/json">{state}</script>' + footer
    sections: list[str] = []
    length = len(head) + len(footer)
    n = 0
    while length < size:
        n += 1
        section = _section(rng, n)
        sections.append(section)
        length += len(section.encode())
    return (head + "".join(sections) + footer).encode()


ROBOTS = b"User-agent: *\nDisallow: /cart/\nDisallow: /search\n\nSitemap: https://www.acme-garden.example/sitemap.xml\n"


def site(size: int, seed: int = 1, url: str = URL) -> Site:
    """A fetched site as `sitelens.seo.fetch` builds it, without the network."""
    host = url.split("/", 3)[2]
    return Site(
        page=Response(
            url=url,
            status=200,
            headers={
                "content-type": "text/html; charset=utf-8",
                "content-encoding": "br",
                "server": "nginx",
                "cache-control": "max-age=600",
            },
            body=page_html(size, seed),
            elapsed=0.38,
            content_encoding="br",
        ),
        robots_txt=Response(
            url=f"https://{host}/robots.txt",
            status=200,
            headers={"content-type": "text/plain"},
            body=ROBOTS,
            elapsed=0.05,
        ),
        missing_page_status=404,
    )
