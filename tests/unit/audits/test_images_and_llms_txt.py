"""The image checks' rules on stored facts, the images a page shows, and llms.txt's
Markdown as llmstxt.org describes it."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from sitelens.audits import images, llms_txt

PAGE = "https://example.com/p"


def fetched(**fields) -> dict:
    return {
        "src": "https://example.com/i.jpg",
        "shown": [None, None],
        "srcset": False,
        "modern_offered": False,
        "status": 200,
        "bytes": 50_000,
        "format": "jpeg",
        "size": [400, 300],
        **fields,
    }


def judged(*shown: dict) -> dict[str, list[str]]:
    found = images.affected({PAGE: {"images": list(shown)}})
    return {code: [detail for _, detail in entries] for code, entries in found.items() if entries}


def test_an_image_shown_at_its_size_in_a_modern_format_passes():
    assert judged(fetched(format="webp", shown=[200, 150])) == {}


def test_broken_images_are_only_broken():
    assert judged(fetched(status=404), fetched(src="https://example.com/x.png", status=0)) == {
        "image_broken": [
            "https://example.com/i.jpg (404)",
            "https://example.com/x.png (unreachable)",
        ]
    }


def test_oversized_allows_a_2x_screen_and_wastes_at_least_4_kib():
    assert "image_oversized" not in judged(fetched(format="webp", shown=[200, 150]))  # 2x
    found = judged(fetched(format="webp", shown=[100, 75]))
    assert found["image_oversized"] == [
        "https://example.com/i.jpg: 49 KB, 400x300 px shown at 100x75; "
        "about 37 KB more than a 2x screen needs"
    ]
    small = fetched(format="webp", shown=[100, 75], bytes=5_000)  # wastes 3,750 bytes
    assert "image_oversized" not in judged(small)
    assert "image_oversized" not in judged(fetched(format="webp", shown=[100, 75], srcset=True))
    assert "image_oversized" not in judged(fetched(format="webp"))  # no size shown: unknown


def test_legacy_formats_unless_a_modern_one_is_offered_or_the_image_is_small():
    assert judged(fetched())["image_legacy_format"] == ["https://example.com/i.jpg: JPEG, 49 KB"]
    assert judged(fetched(modern_offered=True)) == {}
    assert judged(fetched(format="png", bytes=images.LEGACY_MIN_BYTES - 1)) == {}
    assert judged(fetched(format="svg", size=None)) == {}


def test_refs_are_the_first_distinct_images_of_the_audited_host():
    html = (
        '<img src="/a.jpg" width="10" height="20"><img src="/a.jpg">'
        '<img src="data:image/png;base64,AA"><img src="https://cdn.example.net/b.jpg">'
        '<picture><source type="image/webp" srcset="/c.webp"><img src="/c.jpg"></picture>'
        '<img src="/d.jpg" srcset="/d.avif 1x, /d-2.jpg 2x">'
        + "".join(f'<img src="/n{n}.png">' for n in range(20))
    )
    tree = LexborHTMLParser(html)
    found = images.refs(tree, PAGE, lambda url: url.startswith("https://example.com/"))
    assert len(found) == images.MAX_IMAGES
    assert [r["src"].removeprefix("https://example.com") for r in found[:4]] == [
        "/a.jpg",
        "/c.jpg",
        "/d.jpg",
        "/n0.png",
    ]
    assert found[0]["shown"] == [10, 20] and not found[0]["modern_offered"]
    assert found[1]["modern_offered"] and found[1]["srcset"]
    assert found[2]["modern_offered"] and found[3]["shown"] == [None, None]


def test_a_well_formed_llms_txt_has_no_problems_and_gives_its_links():
    text = (
        "# Site\n\n> Summary.\n\nSome words.\n\n## Docs\n\n"
        "- [Guide](https://example.com/guide.md): the guide\n- [API](/api.md)\n\n"
        "## Optional\n\n- [Blog](https://example.com/blog)\n"
    )
    assert llms_txt.parse(text) == (
        [],
        ["https://example.com/guide.md", "/api.md", "https://example.com/blog"],
    )


def test_llms_txt_problems():
    problems, _ = llms_txt.parse("## Docs\n\n- just text\n\n#### Deep\n")
    assert problems == [
        "The file does not begin with an H1 title (# Site name).",
        "In section 'Docs', the item 'just text' does not begin with a Markdown link [name](url).",
        "Heading 'Deep' is an H4: use H2 sections.",
    ]
    assert llms_txt.parse("")[0] == ["The file does not begin with an H1 title (# Site name)."]


def test_llms_txt_findings_as_host_level_issues():
    kept = {
        "url": "https://example.com/llms.txt",
        "status": 200,
        "problems": ["bad"],
        "links": [
            ["https://example.com/a", 200],
            ["https://example.com/b", 500],
            ["https://x.test/", 0],
        ],
    }
    assert llms_txt.affected(kept) == {
        "llms_txt_missing": [],
        "llms_txt_malformed": [("https://example.com/llms.txt", "bad")],
        "llms_txt_broken_link": [
            ("https://example.com/llms.txt", "https://example.com/b (500)"),
            ("https://example.com/llms.txt", "https://x.test/ (unreachable)"),
        ],
    }
    assert llms_txt.affected({**kept, "status": 404, "problems": [], "links": []}) == {
        "llms_txt_missing": [("https://example.com/llms.txt", "not found (404)")],
        "llms_txt_malformed": [],
        "llms_txt_broken_link": [],
    }
    assert llms_txt.affected(None) == {}  # a run from before llms.txt was read
