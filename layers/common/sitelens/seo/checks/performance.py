"""Checks of what the page costs to load: compression, load time, size, requests, image
formats, blocking scripts and the number of elements.

Where a report has field data (real visits' Core Web Vitals, `Site.field_vitals`), the
load time is judged by the visits' LCP instead of the one fetch, and two checks only
visits can answer join: INP and CLS (a fetch runs no script and sees no interaction).
"""

from __future__ import annotations

from sitelens.seo.checks.context import Context, _attr, _distinct, _shown
from sitelens.seo.checks.outcome import Errors, FieldOutcome, Outcome, verdict
from sitelens.seo.page import FieldVital

MAX_LOAD_TIME = 2.0  # seconds
MAX_PAGE_SIZE = 330_000  # bytes
MAX_REQUESTS = 50
MAX_ELEMENTS = 1_500

_COMPRESSIONS = frozenset({"gzip", "br", "zstd", "deflate"})


def text_compression(ctx: Context) -> Outcome:
    """The HTML is sent compressed (gzip, br, zstd or deflate). Value: the encoding."""
    encoding = ctx.page.content_encoding.strip().lower()
    used = {token.strip() for token in encoding.split(",")}
    errors = {} if used & _COMPRESSIONS else {"uncompressed": "The HTML is sent uncompressed."}
    return verdict(encoding or None, errors)


def _from_field(vital: FieldVital, name: str, value: float, unit: str) -> Outcome:
    """The verdict of a vital measured on real visits: passed when its p75 is good by
    Google's threshold; the error (keyed by its rating) says it is field data."""
    errors: Errors = {}
    if vital.rating != "good":
        shown = f"{value:g}{unit}"
        errors[vital.rating] = (
            f"Real visits' {name} is {shown} at the 75th percentile (field data: "
            f"{vital.samples:,} page views over {vital.days} days); "
            f"aim for {_in_unit(vital.good_up_to, unit):g}{unit} or less."
        )
    return FieldOutcome(not errors, value, errors or None)


def _in_unit(value: float, unit: str) -> float:
    return value / 1000 if unit == " s" else value


def load_time(ctx: Context) -> Outcome:
    """The page loads in under 2 seconds. Value: seconds, to 2 decimals.

    With field data: real visits' LCP p75 is good (2.5 s or less), in seconds.
    """
    lcp = ctx.site.field_vitals.get("lcp")
    if lcp is not None:
        return _from_field(lcp, "LCP (Largest Contentful Paint)", round(lcp.p75 / 1000, 2), " s")
    seconds = ctx.page.elapsed
    errors: Errors = {}
    if seconds >= MAX_LOAD_TIME:
        errors["too_slow"] = f"The page took {seconds:.2f} s; aim for under {MAX_LOAD_TIME:g} s."
    return verdict(round(seconds, 2), errors)


def page_size(ctx: Context) -> Outcome:
    """The HTML is under 330,000 bytes. Value: its size in bytes."""
    size = len(ctx.page.body)
    errors: Errors = {}
    if size >= MAX_PAGE_SIZE:
        errors["too_large"] = f"The HTML is {size:,} bytes; keep it under {MAX_PAGE_SIZE:,}."
    return verdict(size, errors)


def http_requests(ctx: Context) -> Outcome:
    """At most 50 distinct resources (scripts, stylesheets, images, frames, media, objects).

    Value: how many of each kind.
    """
    counts = {kind: len(urls) for kind, urls in ctx.resources.items()}
    total = sum(counts.values())
    errors: Errors = {}
    if total > MAX_REQUESTS:
        errors["too_many"] = f"The page loads {total} resources; keep it to {MAX_REQUESTS}."
    return verdict(counts, errors)


_MODERN_EXTENSIONS = frozenset({"avif", "webp", "svg"})
_MODERN_TYPES = ("image/avif", "image/webp", "image/svg+xml")
_PICTURE_TYPES = frozenset({"image/avif", "image/webp"})


def _modern_image(url: str) -> bool:
    if url[:5].lower() == "data:":
        return url[5:].lower().startswith(_MODERN_TYPES)
    name = url.split("#", 1)[0].split("?", 1)[0].rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[1].lower() in _MODERN_EXTENSIONS


def _modern_pictures(ctx: Context) -> set[int]:
    """The `mem_id`s of the `<picture>` elements that offer an AVIF or WebP `<source>`."""
    return {
        parent.mem_id
        for node in ctx.tags("source")
        if (parent := node.parent) is not None
        and parent.tag == "picture"
        and _attr(node, "type").lower() in _PICTURE_TYPES
    }


def image_format(ctx: Context) -> Outcome:
    """Images are AVIF, WebP or SVG, judged by extension. Value: the other images.

    An `<img>` in a `<picture>` that offers an AVIF or WebP `<source>`, or whose own
    `srcset` offers an AVIF or WebP candidate, counts as modern. (An audit judges formats
    by what the image's server answers: `audits.images`.)
    """
    # a <picture> offering AVIF or WebP serves those where supported; the <img> is a fallback
    modern_pictures = _modern_pictures(ctx)
    legacy = []
    for node in ctx.tags("img"):
        src = _attr(node, "src")
        url = ctx.resolve(src) if src else None
        parent = node.parent
        in_modern_picture = parent is not None and parent.mem_id in modern_pictures
        candidates = [part.split()[0] for part in _attr(node, "srcset").split(",") if part.split()]
        offered = any(_modern_image(candidate) for candidate in candidates)
        if url and not _modern_image(url) and not in_modern_picture and not offered:
            legacy.append(url)
    errors: Errors = {}
    if legacy:
        errors["legacy"] = f"Images not in AVIF, WebP or SVG: {len(legacy)}."
    return verdict(_distinct(_shown(url) for url in legacy), errors)


_JS_TYPES = frozenset(
    {
        "",
        "text/javascript",
        "application/javascript",
        "application/x-javascript",
        "text/ecmascript",
        "application/ecmascript",
        "text/jscript",
    }
)


def defer_javascript(ctx: Context) -> Outcome:
    """Every external script is `defer`, `async` or a module. Value: the blocking ones."""
    blocking = [
        ctx.resolve(_attr(node, "src")) or _attr(node, "src")
        for node in ctx.tags("script")
        if "src" in node.attrs
        and "defer" not in node.attrs
        and "async" not in node.attrs
        # modules defer by default; other types (JSON, templates) never run
        and _attr(node, "type").lower() in _JS_TYPES
    ]
    errors: Errors = {}
    if blocking:
        errors["blocking"] = f"Scripts without defer or async: {len(blocking)}."
    return verdict(_distinct(_shown(url) for url in blocking), errors)


def dom_size(ctx: Context) -> Outcome:
    """At most 1,500 elements. Value: how many."""
    count = ctx.element_count
    errors: Errors = {}
    if count > MAX_ELEMENTS:
        errors["too_large"] = f"The page has {count:,} elements; keep it to {MAX_ELEMENTS:,}."
    return verdict(count, errors)


# The checks only field data answers (`checks.FIELD_CHECKS`), by the vital each judges
FIELD_VITALS = {"interaction_to_next_paint": "inp", "cumulative_layout_shift": "cls"}


def interaction_to_next_paint(ctx: Context) -> Outcome:
    """Field data only: real visits' INP p75 is good (200 ms or less). Value: milliseconds."""
    inp = ctx.site.field_vitals["inp"]
    return _from_field(inp, "INP (Interaction to Next Paint)", round(inp.p75), " ms")


def cumulative_layout_shift(ctx: Context) -> Outcome:
    """Field data only: real visits' CLS p75 is good (0.1 or less). Value: the score."""
    cls = ctx.site.field_vitals["cls"]
    return _from_field(cls, "CLS (Cumulative Layout Shift)", round(cls.p75, 3), "")
