"""The tracking script's answer to a refused hit (429), run in Node with a stub of the page:
sent once more after Retry-After (5 s at most), never more than once."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.fixtures import tracking_script

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no node on PATH")
# the core as the API sends it
SCRIPT = tracking_script.sent_bytes(tracking_script.answer("script.js")).decode()

# A page with just what the script reads; fetch answers each request with the next of
# ANSWERS (then 202), setTimeout runs at once and records its delay.
PAGE = """
const answers = ANSWERS;
const sent = [], waits = [];
const listeners = () => {};
globalThis.window = globalThis;
globalThis.addEventListener = listeners;
globalThis.location = {href: 'https://www.example.com/pricing', protocol: 'https:'};
globalThis.screen = {width: 1920, height: 1080};
globalThis.history = {pushState() {}};
globalThis.document = {
  currentScript: {src: 'https://hits.example.net/js/script.js', getAttribute: () => null},
  referrer: '', visibilityState: 'visible', addEventListener: listeners,
};
Object.defineProperty(globalThis, 'navigator', {value: {}});
globalThis.Request = function () {};
Request.prototype.keepalive = true;
globalThis.setTimeout = (run, ms) => { waits.push(ms); Promise.resolve().then(run); };
globalThis.fetch = (url, options) => {
  sent.push({url, mode: options.mode || 'cors', credentials: options.credentials,
    body: String(options.body)});
  const [status, retryAfter] = answers.shift() || [202, null];
  return Promise.resolve({status, headers: {get: (name) =>
    name.toLowerCase() === 'retry-after' ? retryAfter : null}});
};
SCRIPT
setImmediate(() => setImmediate(() => console.log(JSON.stringify({sent, waits}))));
"""


def run(answers: list[tuple[int, str | None]]) -> dict:
    page = PAGE.replace("ANSWERS", json.dumps(answers)).replace("SCRIPT", SCRIPT)
    assert NODE is not None
    done = subprocess.run([NODE, "-e", page], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_an_accepted_hit_is_sent_once_and_read_cross_origin():
    found = run([])
    [hit] = found["sent"]
    assert hit["url"] == "https://hits.example.net/api/event"
    assert (hit["mode"], hit["credentials"]) == ("cors", "omit")
    assert "page=https%3A%2F%2Fwww.example.com%2Fpricing" in hit["body"]
    assert found["waits"] == []


def test_a_refused_hit_is_sent_again_after_retry_after():
    found = run([(429, "2")])
    first, second = found["sent"]
    assert first == second
    assert found["waits"] == [2000]


@pytest.mark.parametrize(("retry_after", "wait"), [(None, 1000), ("soon", 1000), ("3600", 5000)])
def test_the_wait_is_a_second_without_a_number_and_five_at_most(retry_after, wait):
    assert run([(429, retry_after)])["waits"] == [wait]


def test_a_hit_refused_twice_is_given_up_not_sent_in_a_loop():
    found = run([(429, "1"), (429, "1"), (429, "1")])
    assert len(found["sent"]) == 2 and found["waits"] == [1000]


@pytest.mark.parametrize("status", [403, 404, 422, 500])
def test_other_refusals_are_not_sent_again(status):
    assert len(run([(status, "1")])["sent"]) == 1
