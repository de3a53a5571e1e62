"""The CI gate against make serve on a fixture site with a planted regression: the first run
passes (exit 0), the site breaks a page, and the second run with `--fail-on regression`
exits 1, its SARIF and JUnit naming the page (docs/ci-gate.md). Slow: two crawls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sitelens_client import __main__ as cli
from tests.e2e.conftest import SharedServe
from tests.e2e.test_local_server import ROOT
from tests.integration.audits.site import page

PAGES = {
    "/": page("Gate home", ["/a", "/b"]),
    "/a": page("Gate page A", ["/", "/b"]),
    "/b": page("Gate page B", ["/", "/a"]),
}


class GateSite(ThreadingHTTPServer):
    broken: set[str]  # paths that answer 404 (the planted regression)


class Pages(BaseHTTPRequestHandler):
    server: GateSite

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path not in PAGES or path in self.server.broken:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = PAGES[path].encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[GateSite]:
    server = GateSite(("127.0.0.1", 0), Pages)
    server.broken = set()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_the_gate_passes_then_fails_on_a_planted_regression_naming_the_page(
    shared_serve: SharedServe, site: GateSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = shared_serve.take().key
    home = f"http://127.0.0.1:{site.server_address[1]}/"
    common = ["--wait", "--fail-on", "regression", "--max-pages", "10", "--timeout", "60"]
    common += ["--key", key, "--base-url", shared_serve.server.seo]

    first = cli.main(["audit", "run", home, *common, "--sarif", str(tmp_path / "first.sarif")])
    out = capsys.readouterr().out
    assert first == 0, out
    assert "run 1 of" in out and "PASSED" in out
    first_results = json.loads((tmp_path / "first.sarif").read_text())["runs"][0]["results"]
    assert "broken_internal_link" not in {r["ruleId"] for r in first_results}

    site.broken.add("/b")  # a deploy loses a page the others link to
    sarif, junit = tmp_path / "second.sarif", tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'clients/python/src'}"}
    second = subprocess.run(
        [sys.executable, "-m", "sitelens_client", "audit", "run", home, *common,
         "--sarif", str(sarif), "--junit", str(junit)],
        capture_output=True, text=True, env=env, timeout=90,
    )  # fmt: skip
    assert second.returncode == 1, second.stdout + second.stderr
    # the same audit, run again (its history is the diff's)
    assert "run 2 of" in second.stdout and "FAILED: the run regressed" in second.stdout
    assert "broken_internal_link" in second.stdout

    results = json.loads(sarif.read_text())["runs"][0]["results"]
    broken = [r for r in results if r["ruleId"] == "broken_internal_link"]
    located = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in broken}
    assert located == {home, f"{home}a"}  # the pages that link to the lost one
    assert all(f"{home}b" in r["message"]["text"] and r["level"] == "error" for r in broken)

    suites = ET.parse(junit).getroot()
    regression = next(c for c in suites.iter("testcase") if c.get("name") == "regression")
    assert regression.find("failure") is not None
    case = next(c for c in suites.iter("testcase") if c.get("name") == "broken_internal_link")
    failure = case.find("failure")  # the check the run regressed on
    assert failure is not None and home in (failure.text or "")


@pytest.mark.slow
def test_the_wheel_installs_the_gate_as_the_sitelens_command(
    shared_serve: SharedServe, tmp_path: Path
) -> None:
    wheels = tmp_path / "dist"  # not clients/python/dist, which the client's wheel test uses
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", wheels,
         ROOT / "clients/python"],
        check=True,
    )  # fmt: skip
    [wheel] = wheels.glob("sitelens_client-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([venv / "bin/python", "-m", "pip", "install", "--quiet", wheel], check=True)
    sitelens = venv / "bin/sitelens"
    env = {"PATH": os.environ["PATH"], "SITELENS_SEO_URL": shared_serve.server.seo}
    usage = subprocess.run([sitelens, "audit", "run"], capture_output=True, text=True, env=env)
    assert usage.returncode == 2 and "give either a URL or --audit ID" in usage.stderr
    refused = subprocess.run(
        [sitelens, "audit", "run", "http://127.0.0.1:9/", "--key", "sl_not_a_key"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert refused.returncode == 3 and "Unauthorized" in refused.stderr
