"""Sealed crawl secrets without KMS (make serve, tests): AES-GCM under a key derived from
the local secret. The KMS side is tests/integration/audits/test_audit_settings.py."""

from __future__ import annotations

import base64

import pytest

from sitelens.core import config
from sitelens.tokens import sealing

SECRET = '{"headers":{"X-Staging":"let-me-in"},"basic_auth":"ann:hunter22","cookie":null}'


@pytest.fixture
def local(monkeypatch):
    monkeypatch.delenv("SITELENS_SEAL_KEY_ID", raising=False)
    monkeypatch.setenv("SITELENS_CURSOR_SECRET", "a local secret")
    config.reset()
    yield
    config.reset()


def test_a_round_trip(local):
    token = sealing.seal(SECRET)
    assert token.startswith("local1.")
    assert sealing.unseal(token) == SECRET


def test_the_token_holds_no_plaintext(local):
    token = sealing.seal(SECRET)
    decoded = base64.urlsafe_b64decode(token.split(".", 1)[1] + "==")
    for part in ("let-me-in", "hunter22", "X-Staging"):
        assert part not in token and part.encode() not in decoded
    assert sealing.seal(SECRET) != token  # a fresh nonce each time


@pytest.mark.parametrize("where", [7, 12, 30, -2])  # the nonce, the ciphertext, the tag
def test_a_changed_token_does_not_unseal(local, where):
    token = sealing.seal(SECRET)
    at = where % len(token)
    changed = token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(changed)


@pytest.mark.parametrize("token", ["", "local1.", "local1.abc", "other.AAAA", "kms2.AAAA", "x"])
def test_what_is_not_a_token_does_not_unseal(local, token):
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(token)


def test_another_secret_does_not_unseal(local, monkeypatch):
    token = sealing.seal(SECRET)
    monkeypatch.setenv("SITELENS_CURSOR_SECRET", "another secret")
    config.reset()
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(token)


def test_a_kms_token_without_a_key_does_not_unseal(local):
    with pytest.raises(sealing.BadSeal):
        sealing.unseal("kms1.AQIDBAUG")


def test_at_most_one_kms_encryption_is_sealed(local):
    assert sealing.unseal(sealing.seal("a" * sealing.MAX_PLAINTEXT_BYTES))
    with pytest.raises(ValueError, match="4096"):
        sealing.seal("a" * (sealing.MAX_PLAINTEXT_BYTES + 1))


def test_without_a_key_or_a_local_secret_nothing_is_sealed(local, monkeypatch):
    monkeypatch.setenv("SITELENS_CURSOR_SECRET", "")
    config.reset()
    with pytest.raises(config.ConfigError, match="SITELENS_SEAL_KEY_ID"):
        sealing.seal(SECRET)
