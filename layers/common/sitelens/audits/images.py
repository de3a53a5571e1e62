"""A page's images as an audit checks them: which it shows (`refs`), what their server
answers for them (`fetch`), and the three checks over what was stored (`affected`).
Missing alt text is the report check `image_keywords` (an audit's `page_image_keywords`),
not judged again here.

**What is fetched.** The first `MAX_IMAGES` distinct `<img src>` of a page on the audited
host (images of other hosts are not requested: their politeness is theirs), not `data:`
URLs, not those robots.txt disallows. Each is one GET in the page's own step, under the
page host's gate (`politeness.Gate`: one of its places, after the page), its first
`MAX_IMAGE_BYTES` read: enough for the dimensions, which Pillow reads from the header; its
size is the Content-Length (the bytes read without one). A run whose site asks for a
crawl-delay, or whose `max_rate` slows it, has only its pages fetched: images would
exceed the pace it asked for. An image is fetched once a run in a container (`_seen`),
however many pages show it. Requests ask `Accept: image/avif,image/webp,...`, so a server
that negotiates formats answers as it would a browser.

**The checks** (`affected`):
- `image_broken`: an image answering 4xx or 5xx, or not at all;
- `image_oversized`: an image with `width` and `height` attributes (and no `srcset`: the
  browser picks among those) whose intrinsic pixels exceed what it is shown at on a 2x
  screen (`DPR`), wasting at least `WASTE_LIMIT` bytes: bytes x (1 - shown / intrinsic
  pixels), as Lighthouse's "properly size images" estimates;
- `image_legacy_format`: an image served as JPEG, PNG or GIF (as Pillow reads it, else its
  Content-Type) of at least `LEGACY_MIN_BYTES`, for which the page offers no AVIF or WebP:
  no `<source type="image/avif|webp">` in its `<picture>`, no `.avif`/`.webp` candidate
  in its `srcset`, and the server did not answer our Accept with one.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

from sitelens.audits.fetching import Fetched, Identity, get
from sitelens.seo.fetch import FetchError

MAX_IMAGES = 8  # images fetched a page
MAX_IMAGE_BYTES = 1024 * 1024  # read of each: the header holds the dimensions
DPR = 2  # device pixels per CSS pixel allowed for (a high-density screen)
WASTE_LIMIT = 4 * 1024  # bytes an image must waste to be oversized (Lighthouse's 4 KiB)
LEGACY_MIN_BYTES = 4 * 1024  # smaller legacy images gain too little from AVIF or WebP
IMAGE_ACCEPT = "image/avif,image/webp,image/apng,image/*;q=0.8,*/*;q=0.5"  # as Chrome asks
LEGACY = frozenset({"jpeg", "png", "gif"})
MODERN = frozenset({"webp", "avif"})
_SEEN_KEPT = 5_000  # (run, image) answers kept in a container
_seen: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()

Gated = Callable[[Callable[[], Fetched]], Fetched]


def _attr(node: Any, name: str) -> str:
    return (node.attributes.get(name) or "").strip()


def _pixels(value: str) -> int | None:
    value = value.strip().removesuffix("px")
    return int(value) if value.isdigit() and 0 < int(value) < 100_000 else None


def _modern_candidate(srcset: str) -> bool:
    urls = [part.strip().split(" ")[0].split("?")[0].lower() for part in srcset.split(",")]
    return any(url.endswith((".avif", ".webp")) for url in urls if url)


def refs(tree: Any, page_url: str, internal: Callable[[str], bool]) -> list[dict[str, Any]]:
    """The page's images to fetch, in its order: the first `MAX_IMAGES` distinct `<img
    src>` on the audited host, each with its shown size (attributes) and whether the page
    offers an AVIF or WebP of it."""
    found: dict[str, dict[str, Any]] = {}
    for node in tree.css("img[src]"):
        src = _attr(node, "src")
        if not src or src.lower().startswith("data:"):
            continue
        url = urljoin(page_url, src).split("#")[0]
        if url in found or not internal(url):
            continue
        parent = node.parent
        sources = parent.css("source") if parent is not None and parent.tag == "picture" else []
        modern = _modern_candidate(_attr(node, "srcset")) or any(
            _attr(s, "type").lower() in ("image/avif", "image/webp")
            or _modern_candidate(_attr(s, "srcset"))
            for s in sources
        )
        found[url] = {
            "src": url,
            "shown": [_pixels(_attr(node, "width")), _pixels(_attr(node, "height"))],
            "srcset": bool(_attr(node, "srcset")) or bool(sources),
            "modern_offered": modern,
        }
        if len(found) == MAX_IMAGES:
            break
    return list(found.values())


def _read(body: bytes, content_type: str) -> tuple[str, int | None, int | None]:
    """(format, width, height) of an image's first bytes: Pillow's reading of its header,
    else the Content-Type's subtype and no dimensions."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(body)) as image:  # reads the header only
            return (image.format or "").lower(), image.width, image.height
    except Exception:  # not an image Pillow knows (SVG), or cut before its header
        subtype = content_type.split(";")[0].strip().lower().removeprefix("image/")
        return {"jpg": "jpeg", "svg+xml": "svg"}.get(subtype, subtype), None, None


def fetch(
    crawl: str, images: list[dict[str, Any]], identity: Identity, gated: Gated
) -> list[dict[str, Any]]:
    """Each image with what its server answered: `status` (0: no answer), `bytes`,
    `format`, `size` ([width, height] or None)."""
    asking = dataclasses.replace(identity, headers=(*identity.headers, ("Accept", IMAGE_ACCEPT)))
    checked = []
    for image in images:
        key = (crawl, image["src"])
        with _lock:
            known = _seen.get(key)
        if known is None:
            known = _answer(gated(functools.partial(_get, image["src"], asking)))
            with _lock:
                _seen[key] = known
                while len(_seen) > _SEEN_KEPT:
                    _seen.popitem(last=False)
        checked.append({**image, **known})
    return checked


def _get(url: str, identity: Identity) -> Fetched:
    try:
        return Fetched(url, get(url, cap=MAX_IMAGE_BYTES, identity=identity), None)
    except FetchError as err:
        return Fetched(url, None, str(err))


def _answer(result: Fetched) -> dict[str, Any]:
    response = result.response
    if response is None:
        return {"status": 0, "bytes": 0, "format": "", "size": None}
    if response.status >= 400:
        return {"status": response.status, "bytes": 0, "format": "", "size": None}
    length = response.headers.get("content-length", "")
    size = int(length) if length.isdigit() else len(response.body)
    kind, width, height = _read(response.body, response.headers.get("content-type", ""))
    dimensions = [width, height] if width and height else None
    return {"status": response.status, "bytes": size, "format": kind, "size": dimensions}


def _kib(size: int) -> str:
    return f"{size / 1024:,.0f} KB"


def _oversized(image: dict[str, Any]) -> str | None:
    width, height = image.get("shown") or [None, None]
    if image.get("srcset") or not width or not height or not image.get("size"):
        return None
    intrinsic = image["size"][0] * image["size"][1]
    needed = width * DPR * height * DPR
    wasted = int(image["bytes"] * (1 - min(1.0, needed / intrinsic)))
    if wasted < WASTE_LIMIT:
        return None
    w, h = image["size"]
    return (
        f"{image['src']}: {_kib(image['bytes'])}, {w}x{h} px shown at {width}x{height}; "
        f"about {_kib(wasted)} more than a {DPR}x screen needs"
    )


def affected(pages: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """(page, detail) of each image check over the stored pages' `images`."""
    broken, oversized, legacy = [], [], []
    for url, page in pages.items():
        for image in page.get("images") or []:
            status = image.get("status", 0)
            if status == 0 or status >= 400:
                broken.append((url, f"{image['src']} ({status or 'unreachable'})"))
                continue
            if (why := _oversized(image)) is not None:
                oversized.append((url, why))
            kind = image.get("format", "")
            if (
                kind in LEGACY
                and image.get("bytes", 0) >= LEGACY_MIN_BYTES
                and not image.get("modern_offered")
            ):
                legacy.append((url, f"{image['src']}: {kind.upper()}, {_kib(image['bytes'])}"))
    return {"image_broken": broken, "image_oversized": oversized, "image_legacy_format": legacy}
