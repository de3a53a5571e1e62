"""A referrer's source: its search engine, social network or AI assistant by name (`Google`,
`X`, `ChatGPT`), else its host, as Plausible's `visit:source` shows it. The names are in
`sources.json`."""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from importlib import resources

# A visit with no referrer and no tag, as Plausible names it wherever a person reads a source
NONE = "Direct / None"

# Engines with a domain per country (google.de, google.co.uk, search.yahoo.co.jp...).
_COUNTRY_DOMAINS = (
    (re.compile(r"(?:[a-z0-9-]+\.)*google\.(?:com?\.)?[a-z]{2,3}"), "Google"),
    (re.compile(r"(?:[a-z0-9-]+\.)*bing\.(?:com?\.)?[a-z]{2,3}"), "Bing"),
    (re.compile(r"(?:[a-z0-9-]+\.)*yahoo\.(?:com?\.)?[a-z]{2,3}"), "Yahoo!"),
    (re.compile(r"(?:[a-z0-9-]+\.)*yandex\.(?:com?\.)?[a-z]{2,3}"), "Yandex"),
    (re.compile(r"(?:[a-z0-9-]+\.)*baidu\.(?:com?\.)?[a-z]{2,3}"), "Baidu"),
)


@cache
def _names() -> tuple[dict[str, str], dict[str, str]]:
    """(exact hosts, parent domains of `*.` keys) -> name."""
    data = json.loads(resources.files("sitelens.analytics").joinpath("sources.json").read_text())
    exact: dict[str, str] = {}
    parents: dict[str, str] = {}
    for kind in ("search", "social", "ai"):
        for host, name in data[kind].items():
            if host.startswith("*."):
                parents[host[2:]] = name
            else:
                exact[host] = name
    return exact, parents


@lru_cache(maxsize=4096)
def source(referrer_host: str) -> str:
    """The source of a referrer's host (already without `www.`); "" for none."""
    host = referrer_host.lower()
    if not host:
        return ""
    exact, parents = _names()
    if host in exact:
        return exact[host]
    for pattern, name in _COUNTRY_DOMAINS:
        if pattern.fullmatch(host):
            return name
    labels = host.split(".")
    for start in range(1, len(labels) - 1):
        if (parent := ".".join(labels[start:])) in parents:
            return parents[parent]
    return host
