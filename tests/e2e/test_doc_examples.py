"""Every `curl` example of README.md and docs/*.md, run against `make serve` in the order of
its page, and its answer compared with the one the page shows.

The pages' conventions (docs/examples.md says them to readers):

- An example is a fenced `sh` block holding a `curl` (or starting a page server for the
  examples after it). A page's examples run in order from a fresh state, as a reader's
  fresh `make serve` (SITELENS_LOCAL_DB=memory) would: the ids a page writes (`/websites/1`,
  `"site_id": 1`, `websites[]=1`) are those such a run gives, and the test maps them to the
  ids the shared server gave; an id no earlier example of the page created fails.
- The key is `sl_local_demo_key` or `$KEY`, the bases `http://127.0.0.1:3000` (`$API`)
  and `http://127.0.0.1:3001` (`$SEO_BASE`), the webhook catcher `127.0.0.1:3010` and a
  page's own site `localhost:8000`: each becomes the test's own. Shell words are expanded
  by bash (`$'...'`, `$(date ...)`, variables), the request is sent from Python, so curl
  need not be installed.
- An answer is a comment right after its command that starts with `{` or `[` (continued
  on the next comment lines), or a ```json block right after the sh block (the answer of
  its last command). `...` stands for more members or elements, `{...}` and `[...]` for
  any object or list, `"abc..."` for a string that starts so. A shown `"status"` is the
  HTTP status too; with none shown, the status must be 2xx. The fields of `VOLATILE` are
  compared by type only.
- `<!-- example: shape only: reason -->` before a block: its answers' figures are made up,
  so numbers and strings are compared by type. `<!-- example: not run: reason -->`: the
  block is not run (NOT_RUN lists them, with their reasons).
- After `sleep N`, the block's requests are tried again until their answers match; `until curl ...
  | grep -Eq 're'; do sleep 1; done` is tried until the regular expression matches.
  `mkdir`, `cd`, `cat > file <<EOF` and `printf ... > file` run in a directory of the
  test's (`/tmp/site` is in it); `python3 -m http.server` serves it; `make serve`, `export`
  and `ls` are the reader's, not the test's.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import shlex
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import quote_plus

import pytest

from tests.e2e.conftest import SharedServe
from tests.e2e.test_local_server import OPENER, ROOT, free_ports

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Blocks not run, by page and reason: each needs what make serve cannot give.
NOT_RUN = {
    ("docs/audits.md", "crawls a public site (example.com) of hundreds of pages"),
    ("docs/audits.md", "needs a done run of a site whose home page has a long title"),
    ("docs/documents.md", "needs an audit with two done runs of a real site"),
    (
        "docs/imports.md",
        "needs a Plausible export zip of your own; tests/e2e/test_imports_local.py uploads one"
        " to make serve",
    ),
    (
        "docs/exports.md",
        "needs a website with counted hits; tests/e2e/test_exports_local.py makes these calls"
        " on make serve",
    ),
    (
        "docs/crawlers.md",
        "needs a role in your AWS account (tests/integration/crawls/test_log_pulls.py uses moto's)",
    ),
    (
        "docs/crawlers.md",
        "needs Google's reverse DNS and a gzip file (tests/e2e/test_crawl_logs_served.py runs "
        "it with a stub name server)",
    ),
    (
        "docs/segments-and-journeys.md",
        "needs these visits recorded on 2026-11-23 (tests/integration/journeys)",
    ),
    ("docs/websites-domains.md", "needs a site of your own on port 8000, serving the meta tag"),
    (
        "docs/teams.md",
        "needs the invitation's token from the caught mail; tests/e2e/test_local_members.py"
        " makes these calls on make serve",
    ),
}

# Compared by type only: made by the server on each run, never the same twice.
VOLATILE = {
    "id",  # numbered by the whole server; the page's ids are mapped, not its answers'
    "site_id",
    "website_id",
    "created_at",
    "updated_at",
    "generated_at",
    "expires_at",
    "token",  # a share token: signed, with its expiry
    "secret",  # a key's or a webhook's generated secret
    "share_url",  # ends in a random share id
    "next_cursor",
    "prev_cursor",
}

# The shell variables the pages use for the reader's values (`$SITELENS_*` and
# `$GITHUB_SHA` are a CI's, in the deploy mark's one line).
DOC_KEY = "sl_local_demo_key"
DOC_ANALYTICS = "http://127.0.0.1:3000"
DOC_SEO = "http://127.0.0.1:3001"
DOC_CATCHER = "127.0.0.1:3010"
DOC_SITE_PORT = 8000
DOC_SITE_DIR = "/tmp/site"

# Collections whose ids a fresh make serve numbers from these (its one key is key 1).
FIRST_ID = {"websites": 1, "reports": 1, "audits": 1, "webhooks": 1, "keys": 2}
SEO_COLLECTIONS = {"reports", "audits"}
ID_IN_PATH = re.compile(r"(/api/v1/(websites|stats|reports|audits|webhooks|keys)/)(\d+)(?=/|\?|$)")
CREATE_PATH = re.compile(r"/api/v1/(websites|reports|audits|webhooks|keys)$")
SITE_ID_IN_JSON = re.compile(r'("site_id":\s*)(\d+)')

# Placeholders a page writes for what an earlier answer gave: where the test finds it.
PLACEHOLDERS = {
    "<share id>": "share_id",
    "<delivery id>": "delivery_id",
    "<token>": "token",
}

MARKER = re.compile(r"<!--\s*example:\s*(not run|shape only):\s*(.+?)\s*-->")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
POLL = re.compile(
    r"^until\s+(curl\s.*?)[\s\\]*\|\s*grep -Eq '([^']*)';\s*do sleep \d+;\s*done$", re.DOTALL
)
CAPTURE = re.compile(r"^(\w+)=\$\((curl\s.*?)[\s\\]*\|\s*(.+)\)$", re.DOTALL)
CURL = re.compile(r"^(until\s+|\w+=\$\()?curl\s")
RETRY_SECONDS = 15.0  # after a `sleep`, or polling an `until`: make serve's queues are quick


@dataclass
class Block:
    page: str  # relative to the repository
    line: int  # of the block's first line of code
    lines: list[str]
    marker: tuple[str, str] | None  # (kind, reason)
    answer: str | None  # a ```json block right after it


@dataclass
class Command:
    line: int
    text: str
    answer: str | None = None  # the shown answer, as the page writes it
    stray: list[str] = field(default_factory=list)  # JSON-like comments not read as one


def fenced_blocks(page: Path) -> Iterator[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    name = str(page.relative_to(ROOT))
    i, marker = 0, None
    while i < len(lines):
        opened = FENCE.match(lines[i])
        found = MARKER.search(lines[i])
        if found:
            marker = (found.group(1), found.group(2))
        if not opened:
            if lines[i].strip() and not found:
                marker = None  # a marker is the line right before its block
            i += 1
            continue
        indent, lang = opened.groups()
        start, i = i + 1, i + 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        code = [line.removeprefix(indent) for line in lines[start:i]]
        i += 1
        after = i
        while after < len(lines) and not lines[after].strip():
            after += 1
        answer = None
        if after < len(lines) and FENCE.match(lines[after]) and lines[after].strip() == "```json":
            end = after + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            answer = "\n".join(lines[after + 1 : end])
        if lang in ("sh", "bash", "shell", "") and any(
            CURL.match(c.strip()) or "http.server" in c for c in code
        ):
            yield Block(name, start + 1, code, marker, answer)
        marker = None


def examples() -> list[Block]:
    return [block for page in PAGES for block in fenced_blocks(page)]


def _open_quote(text: str) -> bool:
    """Whether the shell would read on past the end of `text` (a quote left open)."""
    quote, i = "", 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif quote in ('"', "$'"):
            if c == "\\":
                i += 1
            elif c == quote[-1]:
                quote = ""
        elif c == "\\":
            i += 1
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c == "$" and text[i + 1 : i + 2] == "'":
            quote, i = "$'", i + 1
        elif c in "'\"":
            quote = c
        i += 1
    return bool(quote)


def shell_words(text: str) -> list[str]:
    """The words of a command, its comment left out (a heredoc's body as plain words)."""
    try:
        return shlex.split(text, comments=True) or [""]
    except ValueError:
        return text.split()


def _balanced(text: str) -> bool:
    depth, in_string, i = 0, False, 0
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return True
        i += 1
    return False


def commands(block: Block) -> list[Command]:
    """The block's commands, each with the answer shown after it."""
    found: list[Command] = []
    lines, i = block.lines, 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.lstrip().startswith("#"):
            comment = line.lstrip()[1:].strip()
            last = found[-1] if found else None
            if last is not None and last.answer is None and comment.startswith(("{", "[")):
                text = comment
                while not _balanced(text) and i + 1 < len(lines):
                    i += 1
                    text += "\n" + lines[i].lstrip().lstrip("#")
                last.answer = text
            elif last is not None and re.match(r'(\.\.\.\s*)?"\w+"\s*:', comment):
                last.stray.append(comment)
            i += 1
            continue
        start, text = i, line
        heredoc = re.search(r"<<-?\s*'?(\w+)'?", line)
        if heredoc:
            while i + 1 < len(lines) and lines[i + 1].strip() != heredoc.group(1):
                i += 1
                text += "\n" + lines[i]
            i += 1
            text += "\n" + lines[i]
        while (text.endswith("\\") or _open_quote(text)) and i + 1 < len(lines):
            i += 1
            text += "\n" + lines[i]
        found.append(Command(block.line + start, text))
        i += 1
    if block.answer is not None and found:
        found[-1].answer = block.answer
    return found


# Loose JSON: what the pages show, with `...` for what is left out.
MORE = "\x00..."  # an object's member name or a list's element for "and more"


@dataclass(frozen=True)
class Prefix:
    text: str


def loose_json(text: str) -> Any:
    """Parse a shown answer (JSON with `...`); trailing prose after it is ignored."""
    tokens = re.findall(
        r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|\.\.\.|[{}\[\],:]',
        text,
    )
    position = 0

    def value() -> Any:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "{":
            members: dict[str, Any] = {}
            while tokens[position] != "}":
                if tokens[position] == "...":
                    members[MORE] = True
                    position += 1
                else:
                    name = json.loads(tokens[position])
                    assert tokens[position + 1] == ":", text
                    position += 2
                    members[name] = value()
                if tokens[position] == ",":
                    position += 1
            position += 1
            return members
        if token == "[":
            items: list[Any] = []
            while tokens[position] != "]":
                if tokens[position] == "...":
                    items.append(MORE)
                    position += 1
                else:
                    items.append(value())
                if tokens[position] == ",":
                    position += 1
            position += 1
            return items
        if token == "...":
            return MORE
        parsed = json.loads(token)
        if isinstance(parsed, str) and parsed.endswith("...") and parsed != "...":
            return Prefix(parsed[:-3])
        if parsed == "...":
            return MORE
        return parsed

    return value()


def _kind(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return type(v).__name__
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, Prefix):
        return "str"
    return type(v).__name__


def compare(shown: Any, got: Any, shape: bool, where: str = "") -> list[str]:
    """How `got` differs from the answer shown (`loose_json`)."""
    if shown == MORE:
        return []
    if isinstance(shown, dict):
        if not isinstance(got, dict):
            return [f"{where or 'answer'}: shown an object, got {got!r}"]
        wrong = []
        for name, value in shown.items():
            if name == MORE:
                continue
            if name not in got:
                wrong.append(f"{where}.{name}: shown, not in the answer")
            elif name in VOLATILE and value != MORE:
                if _kind(value) != _kind(got[name]) and got[name] is not None:
                    wrong.append(f"{where}.{name}: shown a {_kind(value)}, got {got[name]!r}")
            else:
                wrong += compare(value, got[name], shape, f"{where}.{name}")
        extra = sorted(set(got) - set(shown))
        if MORE not in shown and extra:
            wrong.append(f"{where or 'answer'}: not shown: {', '.join(extra)}")
        return wrong
    if isinstance(shown, list):
        if not isinstance(got, list):
            return [f"{where}: shown a list, got {got!r}"]
        wanted = [item for item in shown if item != MORE]
        if shape:
            pairs = list(zip(wanted, got, strict=False))
        elif MORE in shown:
            pairs, rest = [], list(got)
            for item in wanted:  # in order, among others
                fits = [n for n, g in enumerate(rest) if not compare(item, g, shape)]
                if not fits:
                    return [f"{where}: no element as shown: {item!r}"]
                pairs.append((item, rest[fits[0]]))
                rest = rest[fits[0] + 1 :]
        elif len(wanted) != len(got):
            return [f"{where}: shown {len(wanted)} elements, got {len(got)}: {got!r}"]
        else:
            pairs = list(zip(wanted, got, strict=True))
        return [w for n, (a, b) in enumerate(pairs) for w in compare(a, b, shape, f"{where}[{n}]")]
    if isinstance(shown, Prefix):
        if isinstance(got, str) and (shape or got.startswith(shown.text)):
            return []
        return [f"{where}: shown {shown.text}..., got {got!r}"]
    if shape and _kind(shown) in ("number", "str"):
        return [] if _kind(shown) == _kind(got) else [f"{where}: shown {shown!r}, got {got!r}"]
    if _kind(shown) == _kind(got) and shown == got:
        return []
    return [f"{where}: shown {shown!r}, got {got!r}"]


@dataclass
class Answer:
    status: int  # 0: no connection
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Page:
    """One page's run: its ids, variables, directory, site and the records it made."""

    def __init__(self, shared: SharedServe, key: str, directory: Path) -> None:
        server = shared.server
        [self.site_port] = free_ports(1)
        self.key = key
        self.directory = directory
        self.cwd = directory
        self.forward = [
            (DOC_ANALYTICS, server.analytics),
            (DOC_SEO, server.seo),
            (DOC_CATCHER, f"127.0.0.1:{shared.catcher_port}"),
            (f"localhost:{DOC_SITE_PORT}", f"localhost:{self.site_port}"),
            (f"127.0.0.1:{DOC_SITE_PORT}", f"127.0.0.1:{self.site_port}"),
            (DOC_KEY, key),
            (DOC_SITE_DIR, str(directory / "tmp-site")),
        ]
        self.variables = {
            "KEY": key,
            "API": server.analytics,
            "SEO_BASE": server.seo,
            "SITELENS_KEY": key,
            "SITELENS_URL": server.analytics,
            "GITHUB_SHA": "3f9c2e1",
        }
        self.ids: dict[str, list[int]] = {c: [] for c in FIRST_ID}  # actual ids, in order
        self.found: dict[str, str] = {}  # placeholders' values from earlier answers
        self.site: ThreadingHTTPServer | None = None
        self.bases = {"analytics": server.analytics, "seo": server.seo}

    # -- the page's words into the test's, and back
    def to_test(self, text: str) -> str:
        for doc, ours in self.forward:
            text = text.replace(doc, ours)
        return text

    def to_page(self, text: str) -> str:
        for doc, ours in self.forward:
            text = text.replace(ours, doc)
        return text

    def actual_id(self, collection: str, shown: int) -> int:
        created = self.ids[collection]
        n = shown - FIRST_ID[collection]
        if not 0 <= n < len(created):
            raise LookupError(
                f"{collection} {shown}: no earlier example of the page created it "
                f"(a fresh run's ids start at {FIRST_ID[collection]})"
            )
        return created[n]

    def map_ids(self, text: str) -> str:
        def path(m: re.Match[str]) -> str:
            collection = "websites" if m.group(2) == "stats" else m.group(2)
            return f"{m.group(1)}{self.actual_id(collection, int(m.group(3)))}"

        text = ID_IN_PATH.sub(path, text)
        return SITE_ID_IN_JSON.sub(
            lambda m: f"{m.group(1)}{self.actual_id('websites', int(m.group(2)))}", text
        )

    # -- the shell
    def words(self, text: str) -> list[str]:
        """`text`'s words as bash expands them, with the page's variables."""
        script = re.sub(r"^curl", lambda _: "printf '%s\\0'", text.strip(), count=1)
        done = subprocess.run(
            ["bash", "-c", script],
            capture_output=True,
            check=True,
            cwd=ROOT,  # for a page's `$(git rev-parse ...)`
            env={"PATH": os.environ["PATH"], **self.variables},
        )
        return done.stdout.decode().split("\0")[:-1]

    def shell(self, text: str) -> None:
        """A file command of the page, in its directory; `cd` moves the page's next ones."""
        where = self.directory / ".pwd"
        subprocess.run(
            ["bash", "-ec", f'{text}\npwd > "{where}"'],
            check=True,
            cwd=self.cwd,
            env={"PATH": os.environ["PATH"], **self.variables},
            capture_output=True,
        )
        self.cwd = Path(where.read_text().strip())

    def serve(self, text: str) -> None:
        words = shlex.split(text.rstrip(" &"), comments=True)
        directory = self.cwd
        if "--directory" in words:
            directory = self.cwd / words[words.index("--directory") + 1]
        directory.mkdir(parents=True, exist_ok=True)
        if self.site is not None:  # the reader stops the one before: the port is the same
            self.site.shutdown()
            self.site.server_close()
        handler = functools.partial(Quiet, directory=str(directory))
        self.site = ThreadingHTTPServer(("127.0.0.1", self.site_port), handler)
        threading.Thread(target=self.site.serve_forever, daemon=True).start()

    # -- a request
    def request(self, words: list[str]) -> tuple[urllib.request.Request, str]:
        """curl's arguments (those the pages use) as a request, and its URL."""
        method, url, head = None, None, False
        headers = {"User-Agent": "curl/8.5.0", "Accept": "*/*"}
        data: list[str] = []
        i = 1
        while i < len(words):
            word = words[i]
            i += 1
            if not word.startswith("-"):
                url = word
                continue
            if word.startswith("--"):
                name = word
            else:
                flags = word[1:]
                name = f"-{flags[-1]}"
                for flag in flags[:-1]:
                    assert flag in "sSfOJiIL", f"curl option -{flag} is not one the test knows"
                    head = head or flag == "I"
            if name in ("-s", "-S", "-f", "-O", "-J", "-L", "-i", "--silent", "--fail"):
                continue
            if name == "-I":
                head = True
                continue
            if name in ("-o", "--output"):
                i += 1
                continue
            argument = words[i]
            i += 1
            if name in ("-X", "--request"):
                method = argument
            elif name in ("-H", "--header"):
                header, _, value = argument.partition(":")
                headers[header.strip()] = value.strip()
            elif name in ("-A", "--user-agent"):
                headers["User-Agent"] = argument
            elif name in ("-u", "--user"):
                headers["Authorization"] = "Basic " + base64.b64encode(argument.encode()).decode()
            elif name in ("-d", "--data", "--data-raw"):
                data.append(argument)
            elif name == "--data-urlencode":
                field_name, equals, content = argument.partition("=")
                data.append(
                    f"{field_name}={quote_plus(content)}" if equals else quote_plus(argument)
                )
            elif name == "--json":
                data.append(argument)
                headers.setdefault("Content-Type", "application/json")
                headers["Accept"] = "application/json"
            else:
                raise AssertionError(f"curl option {name} is not one the test knows")
        assert url is not None, f"no URL in {words}"
        body = None
        if data:
            joined = "&".join(data)
            body = self.map_ids(joined).encode()
            body = re.sub(
                rb"(websites(?:\[\]|%5B%5D)=)(\d+)",
                lambda m: m.group(1) + str(self.actual_id("websites", int(m.group(2)))).encode(),
                body,
            )
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        method = method or ("HEAD" if head else "POST" if data else "GET")
        url = self.map_ids(url)
        return urllib.request.Request(url, data=body, headers=headers, method=method), url

    def send(self, request: urllib.request.Request) -> Answer:
        try:
            with OPENER.open(request, timeout=20) as response:
                return Answer(response.status, response.read())
        except HTTPError as err:
            return Answer(err.code, err.read())
        except URLError as err:
            return Answer(0, str(err.reason).encode())

    def learn(self, method: str, url: str, answer: Answer) -> None:
        """Ids a create answered, and the values the page's placeholders stand for."""
        try:
            body = answer.json()
        except ValueError:
            return
        data = body.get("data") if isinstance(body, dict) else None
        path = url.split("?")[0]
        created = CREATE_PATH.search(path)
        if method == "POST" and created and answer.status == 201 and isinstance(data, dict):
            self.ids[created.group(1)].append(int(data["id"]))
        records = data if isinstance(data, list) else [data]
        for record in records:
            if isinstance(record, dict) and isinstance(record.get("share_url"), str):
                self.found["share_id"] = record["share_url"].rsplit("/", 1)[-1]
            if isinstance(record, dict) and isinstance(record.get("token"), str):
                self.found["token"] = record["token"]
        if "/deliveries" in path and isinstance(data, list) and data:
            self.found["delivery_id"] = str(data[0]["id"])

    def shown_id_fits(self, method: str, url: str, shown: Any) -> list[str]:
        """A create's shown id is the one a fresh run gives (the page maps by it)."""
        created = CREATE_PATH.search(url.split("?")[0])
        if method != "POST" or not created or not isinstance(shown, dict):
            return []
        data = shown.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            return []
        collection = created.group(1)
        fresh = FIRST_ID[collection] + len(self.ids[collection]) - 1
        if data["id"] != fresh:
            return [f"shows {collection} id {data['id']}; a fresh run gives {fresh}"]
        return []

    def check(self, command: Command, shape: bool, retry: bool) -> list[str]:
        """Run one curl and compare; [] when it answers as shown."""
        poll, capture = POLL.match(command.text), CAPTURE.match(command.text)
        text = self.to_test(
            poll.group(1) if poll else capture.group(2) if capture else command.text
        )
        for name, found in PLACEHOLDERS.items():
            if name in text:
                if found not in self.found:
                    return [f"{name}: no earlier answer of the page gave one"]
                text = text.replace(name, self.found[found])
        try:
            request, url = self.request(self.words(text))
        except LookupError as err:
            return [str(err)]
        shown = loose_json(self.to_page(command.answer)) if command.answer else None
        deadline = time.monotonic() + (RETRY_SECONDS if poll or retry else 0)
        while True:
            answer = self.send(request)
            wrong = self.judge(answer, shown, shape)
            if poll and not re.search(poll.group(2), self.to_page(answer.body.decode())):
                wrong = wrong or [f"never matched {poll.group(2)!r}"]
            if not wrong or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        self.learn(request.get_method(), url, answer)
        if capture:
            self.variables[capture.group(1)] = self.filtered(capture.group(3), url, answer)
        if command.stray:
            wrong.append(f"answer comments the test cannot read: {command.stray}")
        return wrong + self.shown_id_fits(request.get_method(), url, shown)

    def filtered(self, pipeline: str, url: str, answer: Answer) -> str:
        """`NAME=$(curl ... | pipeline)`: the pipeline reads the answer as the page would see
        it, a create's id being the one a fresh run gives."""
        text = self.to_page(answer.body.decode())
        created = CREATE_PATH.search(url.split("?")[0])
        if created and answer.status == 201:
            body = json.loads(text)
            collection = created.group(1)
            body["data"]["id"] = FIRST_ID[collection] + len(self.ids[collection]) - 1
            text = json.dumps(body)
        done = subprocess.run(
            ["bash", "-c", pipeline],
            input=text.encode(),
            capture_output=True,
            check=True,
            cwd=ROOT,
            env={"PATH": os.environ["PATH"], **self.variables},
        )
        return done.stdout.decode().strip()

    def judge(self, answer: Answer, shown: Any, shape: bool) -> list[str]:
        got_text = self.to_page(answer.body.decode(errors="replace"))
        if shown is None:
            if 200 <= answer.status < 300:
                return []
            return [f"answered {answer.status}: {got_text[:300]}"]
        try:
            got = json.loads(got_text)
        except ValueError:
            return [f"answered {answer.status}, not JSON: {got_text[:300]}"]
        wrong = compare(shown, got, shape)
        status = shown.get("status") if isinstance(shown, dict) else None
        expected = status if isinstance(status, int) else None
        if expected is not None and answer.status != expected:
            wrong.insert(0, f"HTTP status {answer.status}, shown {expected}")
        elif expected is None and not 200 <= answer.status < 300:
            wrong.insert(0, f"HTTP status {answer.status}")
        if wrong:
            wrong.append(f"the answer: {got_text[:600]}")
        return wrong

    def run(self, block: Block) -> list[str]:
        """The block's commands in order: what went wrong, each with its line."""
        shape = block.marker is not None and block.marker[0] == "shape only"
        failures, retry = [], False
        for command in commands(block):
            words = shell_words(command.text)
            if CURL.match(command.text):
                try:
                    wrong = self.check(command, shape, retry)
                except Exception as err:  # the example failed: reported with its line
                    wrong = [f"{type(err).__name__}: {err}"]
                if wrong:
                    shown = f"{block.page}:{command.line}: {command.text.strip()}"
                    failures.append("\n  ".join([shown, *wrong]))
            elif words[0] == "sleep":
                retry = True
            elif "make" in words and "serve" in words:
                self.reset()  # a fresh run: what the page made is gone, ids start again
            elif words[0] in ("export", "ls"):
                continue  # the reader's settings and a look around
            elif words[:3] == ["python3", "-m", "http.server"]:
                self.serve(self.to_test(command.text))
            elif all(re.fullmatch(r"[A-Z_]+=\S*", w) for w in words):
                for word in shell_words(self.to_test(command.text)):
                    name, _, value = word.partition("=")
                    self.variables[name] = value
            elif words[0] in ("mkdir", "cd", "cat", "printf"):
                self.shell(self.to_test(command.text))
            else:
                failures.append(f"{block.page}:{command.line}: a command the test cannot run")
        return failures

    def reset(self) -> None:
        """Delete what the page made (a website's domain is claimed across accounts)."""
        for collection, created in self.ids.items():
            base = self.bases["seo" if collection in SEO_COLLECTIONS else "analytics"]
            for actual in created:
                request = urllib.request.Request(
                    f"{base}/api/v1/{collection}/{actual}",
                    headers={"Authorization": f"Bearer {self.key}"},
                    method="DELETE",
                )
                self.send(request)
            created.clear()
        self.found.clear()

    def close(self) -> None:
        self.reset()
        if self.site is not None:
            self.site.shutdown()
            self.site.server_close()


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


BLOCKS = examples()
RUN_PAGES = sorted({b.page for b in BLOCKS if not b.marker or b.marker[0] != "not run"})


def test_examples_not_run_are_the_listed_few_and_say_why() -> None:
    not_run = {(b.page, b.marker[1]) for b in BLOCKS if b.marker and b.marker[0] == "not run"}
    assert not_run == NOT_RUN


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
@pytest.mark.parametrize("page", RUN_PAGES)
def test_page_examples_answer_as_shown(
    page: str, shared_serve: SharedServe, dev_key: str, tmp_path: Path
) -> None:
    run = Page(shared_serve, dev_key, tmp_path)
    failures: list[str] = []
    try:
        for block in BLOCKS:
            if block.page == page and not (block.marker and block.marker[0] == "not run"):
                failures += run.run(block)
    finally:
        run.close()
    assert not failures, "\n\n".join(failures)
