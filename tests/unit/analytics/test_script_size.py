"""The tracking script's size, gzipped as browsers fetch it: the whole script as served,
its core without the opt-in parts (each between `// part: <name>` and `// end part`), and
each part's own cost. Comments are counted out (a minifier would drop them). Issue 24's
target: a core under 2 KB gzipped."""

from __future__ import annotations

import gzip
import re
from importlib import resources

SOURCE = resources.files("sitelens.analytics").joinpath("script.js").read_text("utf-8")
PART = re.compile(r"^ *// part: (?P<name>[^\n]+)\n.*?^ *// end part\n", re.S | re.M)
CORE_TARGET = 2048


def gzipped(text: str) -> int:
    """Bytes gzipped at level 9, comments and indentation taken out."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = (re.sub(r"^\s+|\s*//[^'\n]*$", "", line) for line in text.splitlines())
    return len(gzip.compress("\n".join(line for line in lines if line).encode(), 9))


def sizes() -> dict[str, int]:
    whole = gzipped(SOURCE)
    found = {"whole": whole, "core": gzipped(PART.sub("", SOURCE))}
    for match in PART.finditer(SOURCE):
        found[match["name"]] = whole - gzipped(SOURCE.replace(match[0], ""))
    return found


def test_the_core_is_under_its_target_and_each_part_is_measured():
    found = sizes()
    print(found)  # make bench's figure (pytest -s shows it)
    assert found["core"] < CORE_TARGET, found
    assert {"scroll", "outbound, downloads", "404"} <= set(found)
    assert all(size > 0 for size in found.values())
