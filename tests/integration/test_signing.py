"""Signed, expiring tokens: bound to their purpose, refused when tampered or expired."""

import hashlib
import hmac

import pytest

from sitelens.tokens import signing


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


def test_tokens_keep_their_shapes_so_issued_ones_still_verify():
    """Both shapes are the ones issued before cursors and tokens shared a module."""
    key = signing.secret()
    payload = b'{"d":{"id":1},"e":4000000000}'
    mac = hmac.new(key, b"p\0" + payload, hashlib.sha256).digest()[:20]
    token = f"{signing._b64(payload)}.{signing._b64(mac)}"
    assert signing.sign({"id": 1}, "p", expires_at=4_000_000_000) == token
    assert signing.verify(token, "p") == {"id": 1}

    payload = b'{"p":{"key":1},"f":true}'
    mac = hmac.new(key, payload + b"\0binding", hashlib.sha256).digest()[:16]
    cursor = f"{signing._b64(payload)}.{signing._b64(mac)}"
    assert signing.encode_cursor({"key": 1}, True, "binding") == cursor
    assert signing.decode_cursor(cursor, "binding") == ({"key": 1}, True)
