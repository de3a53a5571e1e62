"""`python -m sitelens_client` (and the wheel's `sitelens` script): the CI gate for SEO.

    sitelens audit run URL --wait --fail-on regression --fail-on "score<80" --sarif out.sarif

Exit codes: 0 passed, 1 a gate failed, 2 a usage error, 3 the API or the run failed
(unreachable, refused, a run that failed or did not finish by --timeout). docs/ci-gate.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

import httpx

from sitelens_client import gate_reports, gate_run
from sitelens_client.client import LOCAL_SEO, Sitelens
from sitelens_client.errors import SitelensError
from sitelens_client.gate import Rules, UsageError, judge

PASSED, FAILED, USAGE, BROKEN = 0, 1, 2, 3


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="sitelens",
        description="Audit a site with Sitelens and fail CI on SEO regressions.",
        epilog="Exit codes: 0 passed, 1 a gate failed, 2 usage error, 3 the API or run failed.",
    )
    nouns = top.add_subparsers(dest="noun", required=True)
    audit = nouns.add_parser("audit", help="site audits").add_subparsers(dest="verb", required=True)
    run = audit.add_parser("run", help="run an audit, wait for it, and judge it")
    run.add_argument("url", nargs="?", help="the site's start URL (or --audit)")
    run.add_argument("--audit", type=int, help="run this audit rather than one of URL")
    run.add_argument("--key", help="the API key (default: $SITELENS_API_KEY)")
    run.add_argument("--base-url", help="the SEO API's base (default: $SITELENS_SEO_URL)")
    run.add_argument(
        "--max-pages", type=_positive, help="pages to crawl at most (the audit's setting)"
    )
    run.add_argument("--wait", action="store_true", help="wait for the run and judge it")
    run.add_argument("--timeout", type=float, default=900.0, help="seconds to wait (900)")
    run.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="RULE",
        help="regression | score<N | severity>=high|medium|low (repeatable)",
    )
    run.add_argument(
        "--assert",
        dest="assertions",
        action="append",
        default=[],
        metavar="CHECK=LEVEL",
        help="an issue code's level: error (fails), warn or off (repeatable)",
    )
    run.add_argument("--junit", type=Path, metavar="PATH", help="write JUnit XML here")
    run.add_argument("--sarif", type=Path, metavar="PATH", help="write SARIF 2.1.0 here")
    run.add_argument(
        "--sarif-paths",
        action="store_true",
        help="locate SARIF results at pages/HOST/PATH, not the URL (for GitHub code scanning)",
    )
    run.add_argument("--markdown", type=Path, metavar="PATH", help="write the summary as Markdown")
    return top


def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise ValueError(text)
    return number


def main(argv: list[str] | None = None, *, http: httpx.Client | None = None) -> int:
    """The command; `http` is an httpx client of the caller's (a fake transport in tests)."""
    top = parser()
    args = top.parse_args(argv)  # exits 2 on a usage error, argparse's own
    rules = Rules()
    try:
        for rule in args.fail_on:
            rules.add_fail_on(rule)
        for assertion in args.assertions:
            rules.add_assertion(assertion)
        if (args.url is None) == (args.audit is None):
            raise UsageError("give either a URL or --audit ID")
        if (rules.any or args.junit or args.sarif or args.markdown) and not args.wait:
            raise UsageError("--fail-on, --assert and the reports need --wait")
        key = args.key or os.environ.get("SITELENS_API_KEY")
        if not key:
            raise UsageError("an API key is needed: --key or $SITELENS_API_KEY")
    except UsageError as error:
        top.error(str(error))  # prints the usage and exits 2
    base = args.base_url or os.environ.get("SITELENS_SEO_URL") or LOCAL_SEO
    try:
        with Sitelens(key, seo_url=base, http=http) as sitelens:
            return _run(sitelens, args, rules, base)
    except (SitelensError, gate_run.RunFailed) as error:
        print(f"sitelens: {type(error).__name__}: {error}", file=sys.stderr)
        return BROKEN
    except OSError as error:  # a report's path that cannot be written
        print(f"sitelens: {error}", file=sys.stderr)
        return USAGE
    except Exception:  # Python's own exit code, 1, would read as a failed gate
        traceback.print_exc()
        return BROKEN


def _run(sitelens: Sitelens, args: argparse.Namespace, rules: Rules, base: str) -> int:
    deadline = time.monotonic() + args.timeout
    started = gate_run.start(sitelens, args.url, args.audit, args.max_pages, deadline=deadline)
    print(f"Sitelens audit {started.id}, run {started.run} of {started.url}: {started.status}")
    if not args.wait:
        return PASSED
    audit = gate_run.wait(sitelens, started, deadline=deadline)
    finished = gate_run.finish(sitelens, audit, started.run)
    verdict = judge(rules, finished.audit, finished.run, finished.issues)
    print(gate_reports.summary(verdict, base), end="")
    if args.junit:
        args.junit.write_bytes(gate_reports.junit(verdict))
    if args.sarif:
        text = gate_reports.sarif_text(verdict, paths=args.sarif_paths)
        args.sarif.write_text(text, encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(gate_reports.summary(verdict, base, markdown=True), "utf-8")
    return PASSED if verdict.passed else FAILED


if __name__ == "__main__":
    sys.exit(main())
