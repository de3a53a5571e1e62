"""The event function's memory: its resident set in a fresh process (what Lambda's Max
Memory Used reports) after init and after the new agents that load its patterns and
Matomo's device database, against template.yaml's MemorySize with 30% of headroom
(docs/operations.md, "CostProfile=lean on the hit path")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from sitelens.local import resources, template

HEADROOM = 0.30  # of MemorySize left over the measured peak
NEW_AGENTS = 2_300

_MEASURE = """\
import importlib.util, json, sys
def rss(field="VmRSS"):
    with open("/proc/self/status") as f:
        return int(dict(l.split(":", 1) for l in f)[field].split()[0]) / 1024
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
spec.loader.exec_module(importlib.util.module_from_spec(spec))
found = {"after_init": rss()}
from sitelens.analytics import visitors
android = ("Mozilla/5.0 (Linux; Android 13; SM-A546B Build/TP1A.{n}) AppleWebKit/537.36 "
           "(KHTML, like Gecko) Chrome/120.0.{n}.0 Mobile Safari/537.36")
visitors.classify(android.format(n=0))
found["after_first_android"] = rss()
agents = [android, "Mozilla/5.0 (Linux; Android 10; QX{n} Build/QP1A) AppleWebKit/537.36 "
          "(KHTML, like Gecko) Chrome/100.0.{n}.0 Mobile Safari/537.36",
          "Mozilla/5.0 (Linux; Android 11; Redmi Note 8 Pro Build/RP1A.{n}; wv) "
          "AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/96.0.{n}.0 Mobile "
          "Safari/537.36", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_{n} like Mac OS X) "
          "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
          "Mozilla/5.0 (compatible; Googlebot/2.{n}; +http://www.google.com/bot.html)"]
for n in range(1, int(sys.argv[2]) + 1):
    visitors.classify(agents[n % len(agents)].format(n=n))
# VmHWM, the peak of this program's memory: ru_maxrss would keep the forking test
# worker's (Linux keeps it across exec), 900 MB under make test-slow's workers
found["peak"] = rss("VmHWM")
print(json.dumps(found))
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_event_function_has_30_percent_of_headroom_over_its_peak():
    spec = template.load()
    function = spec["Resources"]["EventFunction"]
    # the function's own environment, as Lambda gives it: not the test worker's, which other
    # tests may have changed (under make test-slow's workers it once measured 900 MB)
    kept = ("PATH", "HOME", "PYTHONPATH", "LANG", "TMPDIR")
    env = {
        **{name: os.environ[name] for name in kept if name in os.environ},
        "AWS_DEFAULT_REGION": "us-east-1",
        **resources.function_environment(spec, {}, function),
    }
    app = str(template.DEFAULT_PATH.parent / "functions/analytics/event/app.py")
    found = json.loads(
        subprocess.run(
            [sys.executable, "-c", _MEASURE, app, str(NEW_AGENTS)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout
    )
    memory = function["Properties"]["MemorySize"]
    assert found["after_init"] < found["after_first_android"] <= found["peak"]
    assert found["peak"] <= memory * (1 - HEADROOM), found
    # and not more than needed: the next size down would not leave the headroom
    assert found["peak"] > memory / 2 * (1 - HEADROOM), found
