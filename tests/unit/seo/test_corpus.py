"""Well-made pages of several kinds, languages and charsets: no check that concerns their
content may fail on them (false alarms make users distrust the whole report)."""

from __future__ import annotations

import pytest

from sitelens.seo.analysis import analyse
from sitelens.seo.page import Response, Site

# checks about the page's content and markup, which a well-made page passes
CONTENT_CHECKS = (
    "title",
    "meta_description",
    "headings",
    "content_keywords",
    "image_keywords",
    "robots",
    "robots_txt",
    "noindex",
    "language",
    "canonical",
    "hreflang",
    "link_text",
    "crawlable_anchors",
    "meta_viewport",
    "charset",
    "content_length",
    "unsafe_cross_origin_links",
)
WORDPRESS_ROBOTS = (
    "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\n"
    "Sitemap: https://{host}/wp-sitemap.xml\n"
)
ENGLISH = (
    "Sourdough needs only flour, water and salt, but it asks for patience: the starter "
    "ferments for days before it can raise a loaf, and every kitchen gives it a different "
    "character. "
)
GERMAN = (
    "Der Stadtrat hat am Dienstag den Haushalt für das kommende Jahr beschlossen. Die "
    "Ausgaben für Schulen und den öffentlichen Nahverkehr steigen deutlich, während die "
    "Verwaltung sparen muss. "
)
JAPANESE = "東京では今週、晴れの日が続き、最高気温は二十度前後まで上がる見込みです。週末は雨の可能性があります。"
CHINESE = (
    "今年的春季新品发布会在上海举行，公司展示了多款智能家居产品，并宣布将在全国开设更多体验店。"
)


def page(
    host: str,
    path: str,
    lang: str,
    title: str,
    description: str,
    heading: str,
    paragraph: str,
    repeat: int,
    charset: str = "utf-8",
    extra_head: str = "",
    extra_body: str = "",
) -> tuple[str, bytes, str]:
    url = f"https://{host}{path}"
    html = f"""<!doctype html>
<html lang="{lang}">
<head>
<meta charset="{charset}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<meta name="description" content="{description}">
<link rel="canonical" href="{url}">
<link rel="icon" href="/favicon.ico">
<meta property="og:site_name" content="{host.split(".")[-2].capitalize()}">
{extra_head}
</head>
<body>
<header><a href="/"><img src="/logo.svg" alt="{host}"></a>
<nav><a href="/about">About us</a> <a href="/contact">Contact</a></nav></header>
<main><h1>{heading}</h1>
<img src="/divider.png" alt="">
<img src="https://stats.example.net/pixel.gif" width="1" height="1">
{"<p>" + paragraph + "</p>" * 1}
{("<p>" + paragraph + "</p>") * repeat}
{extra_body}
<p><a href="https://twitter.com/{host}" target="_blank">Follow us</a></p>
</main>
</body>
</html>"""
    return url, html.encode(charset), charset


PAGES = {
    "english blog post": page(
        "breadlab.example",
        "/blog/sourdough-starter",
        "en",
        "How to Keep a Sourdough Starter Alive | Breadlab",
        "Feeding schedules, flour choices and the signs that your sourdough starter is ready.",
        "Keeping a sourdough starter alive",
        ENGLISH,
        20,
        extra_body='<p><a href="/blog/flour">Which flour to choose for sourdough</a></p>',
    ),
    "german news article": page(
        "stadtblatt.example",
        "/politik/haushalt-beschlossen",
        "de",
        "Stadtrat beschließt Haushalt für das kommende Jahr - Stadtblatt",
        "Mehr Geld für Schulen und Nahverkehr: der Stadtrat hat den Haushalt beschlossen.",
        "Haushalt beschlossen: mehr Geld für Schulen",
        GERMAN,
        25,
        charset="iso-8859-15",
    ),
    "japanese weather article": page(
        "tenki.example",
        "/tokyo/weekly",
        "ja",
        "東京の週間天気予報",
        "東京の今週の天気予報です。晴れの日が続き、週末は雨の可能性があります。",
        "今週の東京の天気",
        JAPANESE,
        15,
        charset="shift_jis",
        extra_head='<link rel="alternate" hreflang="en" href="https://tenki.example/en/tokyo/weekly">'
        '<link rel="alternate" hreflang="ja" href="https://tenki.example/tokyo/weekly">',
    ),
    "chinese product news": page(
        "zhineng.example",
        "/news/spring-launch",
        "zh-Hans",
        "春季新品发布会在上海举行",
        "公司在上海举行春季新品发布会，展示多款智能家居产品。",
        "春季新品发布会",
        CHINESE,
        15,
        charset="gb2312",
    ),
    "shop product page": page(
        "teashop.example",
        "/products/green-tea-sencha",
        "en",
        "Organic Sencha Green Tea, 100 g | Teashop",
        "Organic sencha from Shizuoka: grassy, fresh and bright. Free shipping from 30 euros.",
        "Organic Sencha Green Tea",
        "Our organic sencha green tea comes from small farms in Shizuoka. Steep it at 70 "
        "degrees for two minutes to keep it sweet and fresh, and enjoy a bright cup. ",
        25,
        extra_body='<p><a href="/products/green-tea-sencha#reviews">Reviews</a> '
        '<a href="/cart" rel="nofollow">Add to cart</a></p>',
    ),
}


@pytest.mark.parametrize("name", PAGES)
def test_well_made_pages_pass_every_content_check(name: str) -> None:
    url, body, _ = PAGES[name]
    host = url.split("/")[2]
    site = Site(
        page=Response(url, 200, {"content-type": "text/html"}, body, 0.2, 0, "br"),
        robots_txt=Response(
            f"https://{host}/robots.txt", 200, {}, WORDPRESS_ROBOTS.format(host=host).encode(), 0.1
        ),
        missing_page_status=404,
    )
    results = analyse(site).results
    failed = {key: results[key]["errors"] for key in CONTENT_CHECKS if not results[key]["passed"]}
    assert failed == {}
