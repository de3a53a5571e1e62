"""The documents state the server's own rules for the fields whose rule is a list or a
pattern: a time zone, a currency, a host (and an audit's http(s) start URL). `make openapi`
writes each from the rule the server checks by (`sitelens.local.openapi.GENERATED`); these
tests fail when a document is stale, when a field stops pointing at its rule, or when the
server and the document would answer a value differently."""

from __future__ import annotations

import ipaddress
import random
import re

import pytest

from sitelens.analytics.warehouse import periods
from sitelens.core import currencies, errors, hosts, properties, timezones
from sitelens.core.errors import FieldError
from sitelens.local import openapi
from sitelens.websites import rules as website_rules
from sitelens.websites.goals import rules as goal_rules

DOCUMENTS = {api: openapi.document(api) for api in openapi.APIS}
SCHEMAS = DOCUMENTS["analytics"]["components"]["schemas"]


@pytest.mark.parametrize("api", openapi.APIS)
def test_the_generated_lists_and_patterns_are_current(api):
    text = (openapi.SOURCES / f"{api}.yaml").read_text()
    assert openapi.refreshed(text) == text, "run `make openapi`"


def test_the_time_zones_are_the_servers():
    pattern = re.compile(SCHEMAS["TimeZone"]["pattern"])
    for name in timezones.names():
        assert pattern.search(name), name
        assert website_rules.check_timezone(name) == name
        assert periods.timezone(name) == name
    assert pattern.search("") and website_rules.check_timezone("") == "UTC"  # the default
    near = {name[:-1] for name in timezones.names()} | {f"{n}x" for n in timezones.names()}
    near |= {name.lower() for name in timezones.names()} | {f" {n}" for n in timezones.names()}
    for name in [*sorted(near - timezones.names()), "Mars/Olympus_Mons", "localtime", "UTC+1"]:
        assert not pattern.search(name), name
        with pytest.raises(errors.Invalid):
            periods.timezone(name)
        if name == name.strip():  # a website's zone is trimmed first, as its other fields
            with pytest.raises(FieldError):
                website_rules.check_timezone(name)


def test_the_currencies_are_iso_4217_less_the_codes_that_are_no_money():
    listed = SCHEMAS["Currency"]["enum"]
    assert listed == sorted(currencies.codes())
    assert {"EUR", "USD", "JPY", "CHF", "XAU"} <= set(listed)
    for code in listed:
        assert goal_rules.check_currency(code) == code
        assert properties.revenue("1.50", code) == ("1.50", code)
    for code in ("XYZ", "XXX", "XTS", "EURO", "eu", "", "ABC"):
        assert code not in listed
        with pytest.raises(FieldError):
            goal_rules.check_currency(code)
        with pytest.raises(properties.InvalidProperties):
            properties.revenue("1.50", code)
    # an event's code in lower case is taken, as Plausible's script may send it
    assert properties.revenue(2, "eur") == ("2", "EUR")


def _accepted(text: str) -> bool:
    try:
        hosts.parse(text)
    except hosts.InvalidHost:
        return False
    return True


def _listed(text: str) -> bool:
    """The server's rule for a key's or an endpoint's `projects` sent as text."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    return all(_accepted(part) for part in parts)


def _addresses(rng: random.Random) -> list[str]:
    """IPv6 and IPv4 addresses in the spellings people write them."""
    found = []
    for _ in range(300):
        groups = [rng.choice([0, 0, 1, 0xDB8, 0xFFFF, rng.randrange(65536)]) for _ in range(8)]
        address = ipaddress.IPv6Address(":".join(f"{g:x}" for g in groups))
        found += [address.compressed, address.exploded.upper(), f"[{address.compressed}]"]
        v4 = ipaddress.IPv4Address(rng.randrange(2**32))
        found += [str(v4), f"::ffff:{v4}", f"[{v4}]", f"{address.compressed}%eth{rng.randrange(3)}"]
    return found


def _names(rng: random.Random) -> list[str]:
    letters = "abcXYZ019_-"
    found = []
    for _ in range(400):
        labels = [
            "".join(rng.choice(letters) for _ in range(rng.choice([1, 2, 5, 63, 64])))
            for _ in range(rng.choice([1, 2, 3]))
        ]
        found.append(".".join(labels) + rng.choice(["", "", "."]))
    longest = ("a" * 63 + ".") * 3 + "a" * 61  # 253 characters
    found += [longest, longest + ".", longest + "a."]
    return found


def _mutants(rng: random.Random, text: str) -> list[str]:
    alphabet = "a0:.%[]-_, "
    spots = range(len(text) + 1)
    return [
        *(
            text[:i] + rng.choice(alphabet) + text[i:]
            for i in rng.sample(spots, min(3, len(spots)))
        ),
        *(text[:i] + text[i + 1 :] for i in rng.sample(range(len(text)), min(3, len(text)))),
    ]


def test_the_host_pattern_is_the_server_s_rule_for_ascii_text():
    rng = random.Random(42)
    pattern, list_pattern = re.compile(hosts.PATTERN), re.compile(hosts.LIST_PATTERN)
    longest = SCHEMAS["Host"]["maxLength"]
    assert SCHEMAS["Host"]["pattern"] == hosts.PATTERN and longest == hosts.MAX_TEXT_LENGTH
    assert SCHEMAS["HostList"]["pattern"] == hosts.LIST_PATTERN
    seeds = _addresses(rng) + _names(rng)
    cases = seeds + [mutant for seed in seeds for mutant in _mutants(rng, seed)]
    cases += ["", " ", ".", "..", "a..b", "-a", "a-", "[a.com]", "[01.2.3.4]", ":::", "1::2::3"]
    # maxLength counts a trailing dot, which the server drops: a name of 254 characters
    # without one is the single ASCII text the schema allows and the server refuses
    gap = [c for c in cases if len(c) == longest and not c.endswith(".")]
    assert gap and not any(_accepted(c) for c in gap)
    cases = [c for c in cases if c == c.strip() and c not in gap]
    valid = [c for c in cases if pattern.search(c) and len(c) <= longest]
    assert {c for c in cases if _accepted(c)} == set(valid)
    texts = [", ".join(rng.sample(cases, 3)) for _ in range(2000)] + [",,", " a.com ,, b.org "]
    disagree = [t for t in texts if bool(list_pattern.search(t)) != _listed(t)]
    assert not disagree, disagree[:20]


def test_a_host_in_another_script_matches_when_idna_allows_it():
    """Beyond ASCII the pattern is a superset: whatever the server takes, it matches."""
    for name in ("bücher.de", "ΕΛΛΑΔΑ.gr", "例え.テスト", "straße.de", "xn--bcher-kva.de"):
        assert _accepted(name) and re.search(hosts.PATTERN, name), name


# (document, schema, field) -> the generated component its value must be
FIELDS = {
    **{("analytics", name, "timezone"): "TimeZone" for name in ("WebsiteCreate", "WebsiteUpdate")},
    **{("analytics", name, "timezone"): "TimeZone" for name in ("Query", "FunnelQuery")},
    ("analytics", "GoalCreate", "currency"): "Currency",
    ("analytics", "EventForm", "revenue[currency]"): "Currency",
    **{
        (api, name, "projects"): "Host"
        for api in openapi.APIS
        for name in ("WebhookCreateForm", "WebhookUpdateForm", "KeyCreateForm")
    },
}


def _refs(node: object) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if "$ref" in node else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


@pytest.mark.parametrize(("api", "schema", "field"), FIELDS, ids="-".join)
def test_each_field_with_such_a_rule_is_stated_by_its_generated_schema(api, schema, field):
    stated = DOCUMENTS[api]["components"]["schemas"][schema]["properties"][field]
    assert FIELDS[api, schema, field] in _refs(stated)
    if FIELDS[api, schema, field] == "Host":  # and as comma-separated text, by HostList
        assert "HostList" in _refs(stated)


def test_an_audit_s_start_url_is_http_or_https_as_the_url_rule_says():
    """The pattern states the scheme; a host that is no host stays a listed 422."""
    from sitelens.records.inputs import web_url

    url = DOCUMENTS["seo"]["components"]["schemas"]["AuditCreate"]["properties"]["url"]
    pattern = re.compile(url["pattern"])
    for sent in ("https://example.com/", "HTTP://Example.com/a?b", "ftp://example.com/"):
        try:
            web_url(sent)
        except FieldError:
            assert not pattern.search(sent), sent
        else:
            assert pattern.search(sent), sent
    for refused in ("example.com", "https://", "javascript:alert(1)", "mailto:a@example.com"):
        assert not pattern.search(refused)
        with pytest.raises(FieldError):
            web_url(refused)
