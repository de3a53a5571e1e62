"""The running service against its published contract: schemathesis, with every check
(server errors, status codes and content types, response schemas, negative data,
authentication, use after delete, stateful links), against `make serve`'s program with
two accounts, bounded in time. Report creation fetches a local fixture site."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fixtures.site import Site
from tests.test_local_server import ROOT, Server, start_server

CONFIG = ROOT / "openapi" / "schemathesis.toml"
SECONDS_PER_RUN = 20  # each API, each account: under two minutes in all


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    served = Site()
    yield served
    served.close()


@pytest.fixture(scope="module")
def service(site: Site) -> Iterator[tuple[Server, list[str]]]:
    keys = [f"sl_contract_{n}_{uuid.uuid4().hex}" for n in (1, 2)]
    server = start_server(
        SITELENS_DEV_API_KEY=",".join(keys),
        SITELENS_ALLOW_PRIVATE_URLS="1",  # reports of the fixture site on 127.0.0.1
        SITELENS_ACCOUNT_RATE_LIMIT="0",  # the fuzzer sends hundreds of requests a second
        SITELENS_LOCAL_DB="memory",
    )
    try:
        yield server, keys
    finally:
        server.stop()


def document_for_run(api: str, site: Site, tmp: Path) -> Path:
    """The published document, with report URLs drawn from the fixture site (the fuzzer's
    own URLs would point at hosts this machine cannot reach)."""
    document: dict[str, Any] = yaml.safe_load((ROOT / "openapi" / f"{api}.yaml").read_text())
    if api == "seo":
        pages = [site.url(path) for path in ("/good", "/poor", "/private/page")]
        body = document["paths"]["/api/v1/reports"]["post"]["requestBody"]["content"]
        for media in body.values():
            schema = media["schema"]
            schema = (
                document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
                if "$ref" in schema
                else schema
            )
            schema["properties"]["url"] = {"type": "string", "enum": pages}
            media.pop("example", None)
            media.pop("examples", None)
    path = tmp / f"{api}.json"
    path.write_text(json.dumps(copy.deepcopy(document)))
    return path


@pytest.mark.parametrize("api", ["analytics", "seo"])
def test_the_service_keeps_its_contract(service, site, tmp_path: Path, api: str) -> None:
    server, keys = service
    base = server.analytics if api == "analytics" else server.seo
    document = document_for_run(api, site, tmp_path)
    for key in keys:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemathesis.cli",
                "--config-file",
                str(CONFIG),
                "run",
                str(document),
                "--url",
                base,
                "-H",
                f"Authorization: Bearer {key}",
                "--checks",
                "all",
                "--max-time",
                str(SECONDS_PER_RUN),
                "--seed",
                "20261122",
                "--no-color",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=SECONDS_PER_RUN * 4,
            check=False,
        )
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
