"""The `python` blocks of docs/examples.md and docs/client.md, run against make serve: each
page's in order in one namespace, with the pages' key and make serve's bases mapped to the
shared server's (docs/examples.md says so to its readers)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from tests.e2e.conftest import SharedServe
from tests.e2e.test_local_server import ROOT

PAGES = [ROOT / "docs/examples.md", ROOT / "docs/client.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def python_blocks(page: Path) -> list[tuple[int, str]]:
    text = page.read_text()
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in BLOCK.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_pages_python_blocks_run(
    page: Path, shared_serve: SharedServe, page_site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = python_blocks(page)
    assert blocks, f"{page.name} has no python block"
    account = shared_serve.take()
    monkeypatch.setenv("SITELENS_API_URL", shared_serve.server.analytics)
    monkeypatch.setenv("SITELENS_SEO_URL", shared_serve.server.seo)
    monkeypatch.setenv("SITELENS_API_KEY", account.key)
    namespace: dict[str, object] = {}
    for line, code in blocks:
        code = code.replace("sl_local_demo_key", account.key).replace("127.0.0.1:8000", page_site)
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
            except Exception as error:
                pytest.fail(f"{page.name}, the block at line {line}: {error!r}")
