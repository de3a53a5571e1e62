"""The tracking script websites embed (`GET /js/script.js`) and its variants with opt-in
extensions (`/js/script.outbound-links.file-downloads.js`, ...), as Plausible names them.

Each is a file of `sitelens/analytics/js/`, minified from `tracker.js` and compressed
(`.gz`, `.br`) by `make script`: what is served is those bytes, whatever serves them.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

# The extensions, in the order a file's name lists them (any other order is served the same)
EXTENSIONS = ("outbound-links", "file-downloads", "404", "scroll-depth", "web-vitals")
# Content codings each file is kept in, with the file suffix of each; the caller's
# preference chooses, br first when equal (smaller)
CODINGS = {"br": ".br", "gzip": ".gz"}
CONTENT_TYPE = "application/javascript; charset=utf-8"
# An unversioned URL must see a new deploy within a day (and may use its copy while it
# revalidates for a week); a versioned one (`?v=`) names these bytes forever.
CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800"
CACHE_CONTROL_VERSIONED = "public, max-age=31536000, immutable"
FOLDER = resources.files("sitelens.analytics").joinpath("js")


@dataclass(frozen=True)
class Encoded:
    """One file in one content coding (None: as it is), as it is sent."""

    body: bytes
    etag: str  # strong: the SHA-256 of `body`, quoted as the header carries it


@dataclass(frozen=True)
class Script:
    name: str  # the file's canonical name, `script.outbound-links.js`
    version: str  # the `v` of its versioned URL: the SHA-256 of the file, 16 hex digits

    def encoded(self, coding: str | None) -> Encoded:
        """The bytes to send in `coding` (one of CODINGS, or None)."""
        return _encoded(self.name, coding)


def names() -> Iterator[str]:
    """Every file's canonical name: the core, then each combination of extensions."""
    for size in range(len(EXTENSIONS) + 1):
        for chosen in itertools.combinations(EXTENSIONS, size):
            yield ".".join(("script", *chosen, "js"))


def canonical(requested: str) -> str | None:
    """The canonical name of a requested file (its extensions in any order, each once);
    None when it names no script."""
    parts = requested.split(".")
    chosen = parts[1:-1]
    if parts[0] != "script" or parts[-1] != "js":
        return None
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(EXTENSIONS):
        return None
    return ".".join(("script", *(e for e in EXTENSIONS if e in chosen), "js"))


def find(requested: str) -> Script | None:
    """The script a file name asks for; None when it names none."""
    name = canonical(requested)
    return None if name is None else _script(name)


@cache
def _script(name: str) -> Script:
    source = FOLDER.joinpath(name).read_bytes()
    return Script(name, hashlib.sha256(source).hexdigest()[:16])


@cache
def _encoded(name: str, coding: str | None) -> Encoded:
    body = FOLDER.joinpath(name + (CODINGS[coding] if coding else "")).read_bytes()
    return Encoded(body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
