"""The render function (RenderFunction: a container image with Chromium), invoked once a
page by the crawl workers of audits with `render: js` (`sitelens.audits.rendering`)."""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client


class RenderFailed(RuntimeError):
    """The render function failed or could not be invoked (throttled, timed out)."""


def render(request: dict[str, Any]) -> dict[str, Any]:
    """The render function's answer to one page's request (`{url, body, identity}`):
    `{html, error, requests, refused}`; RenderFailed when it raised or was refused."""
    answer = client("lambda").invoke(
        FunctionName=settings().render_function,
        Payload=json.dumps(request).encode(),
    )
    payload = answer["Payload"].read()
    if answer.get("FunctionError"):
        raise RenderFailed(f"the render function failed: {answer['FunctionError']}")
    return dict(json.loads(payload))
