"""Signed, expiring tokens: bound to their purpose, refused when tampered or expired."""

import pytest

from sitelens import signing


@pytest.fixture(autouse=True)
def _secret(aws_env):
    return aws_env


def test_a_token_gives_back_its_data_for_its_purpose():
    token = signing.sign({"id": 12}, "share:website:12", expires_at=4_000_000_000)
    assert signing.verify(token, "share:website:12") == {"id": 12}


@pytest.mark.parametrize("purpose", ["share:website:13", "share:report:12", ""])
def test_a_token_for_another_purpose_is_refused(purpose):
    token = signing.sign({"id": 12}, "share:website:12", expires_at=4_000_000_000)
    with pytest.raises(signing.BadToken):
        signing.verify(token, purpose)


def test_an_expired_token_is_refused():
    token = signing.sign({}, "p", expires_at=1_000)
    assert signing.verify(token, "p", now=999) == {}
    with pytest.raises(signing.BadToken):
        signing.verify(token, "p", now=1_000)


@pytest.mark.parametrize("token", ["", "x", "a.b.c", "e30.AAAA", "!!.!!"])
def test_malformed_tokens_are_refused(token):
    with pytest.raises(signing.BadToken):
        signing.verify(token, "p")


def test_a_tampered_payload_is_refused():
    token = signing.sign({"id": 1}, "p", expires_at=4_000_000_000)
    payload, signature = token.split(".")
    forged = signing._b64(signing._unb64(payload).replace(b'"id":1', b'"id":2'))
    with pytest.raises(signing.BadToken):
        signing.verify(f"{forged}.{signature}", "p")
