"""The tracking script's files and their names: one a combination of extensions, named as
Plausible names its extensions (in any order, each once), each kept as it is and in the
content codings it is sent in; the source loads the file of the extensions `data-auto` asks
for under the same names."""

from __future__ import annotations

import re

import pytest

from sitelens.analytics import script

SOURCE = (script.FOLDER / ".." / "tracker.js").read_text()


def test_a_file_for_each_combination_in_each_coding_and_nothing_else():
    names = list(script.names())
    assert len(names) == 2 ** len(script.EXTENSIONS) == len(set(names))
    kept = {path.name for path in script.FOLDER.iterdir()}
    assert kept == {name + suffix for name in names for suffix in ("", *script.CODINGS.values())}


@pytest.mark.parametrize(
    ("asked", "canonical"),
    [
        ("script.js", "script.js"),
        ("script.outbound-links.js", "script.outbound-links.js"),
        ("script.file-downloads.outbound-links.js", "script.outbound-links.file-downloads.js"),
        ("script.web-vitals.404.scroll-depth.js", "script.404.scroll-depth.web-vitals.js"),
        ("script.outbound-links.outbound-links.js", None),  # an extension twice
        ("script.hash.js", None),  # Plausible's, not ours
        ("script..js", None),
        ("script.JS", None),
        ("tracker.js", None),
        ("script.js.gz", None),
        ("script", None),
        ("", None),
    ],
)
def test_the_name_asked_for_and_the_file_sent(asked: str, canonical: str | None):
    assert script.canonical(asked) == canonical
    found = script.find(asked)
    assert (found and found.name) == canonical


def test_the_source_asks_for_the_extensions_by_the_same_names_in_the_same_order():
    [listed] = re.findall(r"var names = '([^']*)'\.split", SOURCE)
    assert tuple(listed.split(" ")) == script.EXTENSIONS


def test_the_version_is_the_file_s_hash_and_each_coding_has_its_own_etag():
    found = script.find("script.js")
    assert found is not None and re.fullmatch(r"[0-9a-f]{16}", found.version)
    tags = {found.encoded(coding).etag for coding in (None, *script.CODINGS)}
    assert len(tags) == 3
    assert found.encoded(None).etag.startswith(f'"{found.version}')
