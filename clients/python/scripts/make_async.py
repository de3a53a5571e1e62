"""Writes sitelens_client/async_client.py from client.py (the sync client), so the two
clients have the same methods: each call the sync one sends, the async one awaits.

`make client-models` runs it; tests/unit/client/test_models.py checks the file is current.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ruffed import formatted

PACKAGE = Path(__file__).resolve().parents[1] / "src/sitelens_client"
HEADER = '''"""`AsyncSitelens`: the async client, the same methods as `Sitelens`, awaited.

Written from client.py by clients/python/scripts/make_async.py: edit that file, not this one.
"""
'''
WORDS = [
    (
        r"from sitelens_client\._runner import Paginator, Runner",
        "from sitelens_client._async_runner import AsyncPaginator, AsyncRunner",
    ),
    (r"\bRunner\b", "AsyncRunner"),
    (r"\bPaginator\b", "AsyncPaginator"),
    (r"httpx\.Client\b", "httpx.AsyncClient"),
    (r"\bclass Sitelens\b", "class AsyncSitelens"),
    (r"-> Sitelens:", "-> AsyncSitelens:"),
    (r'"Sitelens"', '"AsyncSitelens"'),
    (r"self\._http\.close\(\)", "await self._http.aclose()"),
    (r"def __enter__", "async def __aenter__"),
    (r"def __exit__", "def __aexit__"),
    (r"def close\(", "def aclose("),
    (r"self\.close\(\)", "await self.aclose()"),
    (r"(self\._r\.run|self\.delete|self\.runs)\(", r"await \1("),
]
DEF = re.compile(r"^(\s*)def ")


def make_async(source: str) -> str:
    body = source[source.index('"""', 3) + 3 :].lstrip("\n")
    for pattern, replacement in WORDS:
        body = re.sub(pattern, replacement, body)
    lines = body.split("\n")
    starts = [n for n, line in enumerate(lines) if DEF.match(line)]
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        if any("await " in line for line in lines[start:end]):
            lines[start] = DEF.sub(r"\1async def ", lines[start], count=1)
    return HEADER + "\n" + "\n".join(lines)


def main() -> None:
    target = PACKAGE / "async_client.py"
    written = formatted(make_async((PACKAGE / "client.py").read_text()), target)
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == written else "async_client.py is not current")
    target.write_text(written)


if __name__ == "__main__":
    main()
