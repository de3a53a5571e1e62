"""The tracking script's committed files (`sitelens/analytics/js/*.js`) are its source,
`tracker.js`, as `make script` minifies it now: a change to the source without `make
script` fails here. Needs Node and terser (`make script` and `make test` install it, CI
too); without them it skips, saying why."""

from __future__ import annotations

import pytest

from scripts import make_tracking_script
from sitelens.analytics import script


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_the_committed_files_are_the_source_minified() -> None:
    reason = make_tracking_script.missing()
    if reason:
        pytest.skip(reason)
    built = make_tracking_script.minified()
    assert sorted(built) == sorted(script.names())
    stale = [
        name for name, code in built.items() if script.FOLDER.joinpath(name).read_bytes() != code
    ]
    assert stale == [], "run `make script`: these files are not tracker.js minified"
