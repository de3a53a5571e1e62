"""Signed, expiring tokens and cursors: each names its key, is signed with its purpose's key
(HKDF of the keyring's key), and is refused when tampered, expired, made for another purpose
or signed with a key that is unknown or no longer verifies."""

import hashlib
import hmac
import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from sitelens.core import config
from sitelens.tokens import signing, signing_keys
from sitelens.tokens.signing_keys import Purpose

FAR = 4_000_000_000  # an expiry in 2096


@pytest.fixture(autouse=True)
def _secret(aws_env):
    return aws_env


def _payload(token: str) -> dict:
    return json.loads(signing._unb64(token.split(".")[0]))


def test_a_token_gives_back_its_data_for_its_purpose():
    token = signing.sign({"id": 12}, "share:website:12", expires_at=FAR)
    assert signing.verify(token, "share:website:12") == {"id": 12}
    assert _payload(token)["k"] == signing_keys.FIRST_KID  # the key that signed it


@pytest.mark.parametrize(
    "purpose", ["share:website:13", "share:report:12", "share", "guest", "unsubscribe", ""]
)
def test_a_token_for_another_purpose_is_refused(purpose):
    token = signing.sign({"id": 12}, "share:website:12", expires_at=FAR)
    with pytest.raises(signing.BadToken):
        signing.verify(token, purpose)


def test_a_purpose_without_a_key_signs_nothing():
    with pytest.raises(ValueError, match="no key"):
        signing.sign({}, "cursor", expires_at=FAR)


def test_an_expired_token_is_refused():
    token = signing.sign({}, "guest", expires_at=1_000)
    assert signing.verify(token, "guest", now=999) == {}
    with pytest.raises(signing.BadToken):
        signing.verify(token, "guest", now=1_000)


@pytest.mark.parametrize("token", ["", "x", "a.b.c", "e30.AAAA", "!!.!!", "W10.AAAA", "MQ.AAAA"])
def test_malformed_tokens_are_refused(token):
    with pytest.raises(signing.BadToken):
        signing.verify(token, "guest")


def test_a_tampered_payload_or_key_id_is_refused():
    token = signing.sign({"id": 1}, "guest", expires_at=FAR)
    payload, signature = token.split(".")
    for old, new in ((b'"id":1', b'"id":2'), (b'"k":"0"', b'"k":"1"'), (b'"k":"0"', b'"k":0')):
        forged = signing._b64(signing._unb64(payload).replace(old, new))
        with pytest.raises(signing.BadToken):
            signing.verify(f"{forged}.{signature}", "guest")


def test_purposes_have_keys_of_their_own_derived_by_rfc_5869():
    secret = "test-signing-key"  # tests/conftest.py's keyring: one bare key
    derived = {purpose: signing_keys.derive(secret, purpose) for purpose in Purpose}
    assert len(set(derived.values())) == len(Purpose)
    for purpose, key in derived.items():
        info = f"sitelens:{purpose.value}".encode()
        expected = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info)
        assert key == expected.derive(secret.encode())


def test_each_shape_is_signed_with_its_purpose_s_key_never_the_secret_itself():
    """The shapes the documents give, with the key id in the payload."""
    payload = b'{"k":"0","d":{"id":1},"e":4000000000}'
    guest = signing_keys.derive("test-signing-key", Purpose.GUEST)
    mac = hmac.new(guest, b"guest\0" + payload, hashlib.sha256).digest()[:20]
    token = f"{signing._b64(payload)}.{signing._b64(mac)}"
    assert signing.sign({"id": 1}, "guest", expires_at=FAR) == token
    assert signing.verify(token, "guest") == {"id": 1}
    # the same message signed with another purpose's key, or the keyring's secret, is refused
    for key in (signing_keys.derive("test-signing-key", Purpose.UNSUBSCRIBE), b"test-signing-key"):
        mac = hmac.new(key, b"guest\0" + payload, hashlib.sha256).digest()[:20]
        with pytest.raises(signing.BadToken):
            signing.verify(f"{signing._b64(payload)}.{signing._b64(mac)}", "guest")

    payload = b'{"k":"0","p":{"key":1},"f":true}'
    cursors = signing_keys.derive("test-signing-key", Purpose.CURSOR)
    mac = hmac.new(cursors, payload + b"\0binding", hashlib.sha256).digest()[:16]
    cursor = f"{signing._b64(payload)}.{signing._b64(mac)}"
    assert signing.encode_cursor({"key": 1}, True, "binding") == cursor
    assert signing.cursor_shaped(cursor)
    assert signing.decode_cursor(cursor, "binding") == ({"key": 1}, True)


def test_tokens_signed_before_keyrings_are_refused():
    """No key id: the migration note (docs/configuration.md) says they stop verifying."""
    payload = b'{"d":{"id":1},"e":4000000000}'
    mac = hmac.new(b"test-signing-key", b"guest\0" + payload, hashlib.sha256).digest()[:20]
    with pytest.raises(signing.BadToken):
        signing.verify(f"{signing._b64(payload)}.{signing._b64(mac)}", "guest")


def test_digests_are_keyed_with_their_own_key():
    key = signing_keys.derive("test-signing-key", Purpose.DIGEST)
    expected = hmac.new(key, b"203.0.113.9", hashlib.sha256).hexdigest()[:16]
    assert signing.digest("203.0.113.9") == expected


def test_the_deprecated_setting_is_read_as_the_first_key(monkeypatch, caplog):
    token = signing.sign({"id": 1}, "guest", expires_at=FAR)
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    monkeypatch.setenv("SITELENS_CURSOR_SECRET", "test-signing-key")
    config.reset()
    signing_keys._warn_deprecated.cache_clear()
    assert signing.verify(token, "guest") == {"id": 1}
    logged = caplog.text
    assert "SITELENS_CURSOR_SECRET is deprecated" in logged and "test-signing-key" not in logged
    assert config.require_all()  # and it is enough for a cold start
