"""Sealed crawl secrets without KMS (make serve, tests): AES-GCM under a key derived from
the signing keyring (its active key; any key in its overlap unseals). The KMS side is
tests/integration/audits/test_audit_settings.py."""

from __future__ import annotations

import base64
import time
from types import SimpleNamespace

import pytest

from sitelens.core import config
from sitelens.tokens import sealing, signing_keys

SECRET = '{"headers":{"X-Staging":"let-me-in"},"basic_auth":"ann:hunter22","cookie":null}'


@pytest.fixture
def local(monkeypatch):
    monkeypatch.delenv("SITELENS_SEAL_KEY_ID", raising=False)
    monkeypatch.setenv("SITELENS_SIGNING_KEYS", "a local secret")
    config.reset()
    signing_keys.forget()
    yield
    config.reset()
    signing_keys.forget()


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
    monkeypatch.setenv("SITELENS_SIGNING_KEYS", "another secret")
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


def test_without_a_key_or_a_local_keyring_nothing_is_sealed(local, monkeypatch):
    monkeypatch.setenv("SITELENS_SIGNING_KEYS", "")
    config.reset()
    with pytest.raises(config.ConfigError, match="SITELENS_SIGNING_KEYS"):
        sealing.seal(SECRET)


def test_a_rotation_keeps_sealed_secrets_for_the_overlap_only(local, monkeypatch):
    token = sealing.seal(SECRET)
    rotated = signing_keys.Keyring.parse("a local secret").rotated(0, 100)
    monkeypatch.setenv("SITELENS_SIGNING_KEYS", rotated.text())
    config.reset()
    monkeypatch.setattr(
        signing_keys, "time", SimpleNamespace(time=lambda: 99, monotonic=time.monotonic)
    )
    assert sealing.unseal(token) == SECRET  # the previous key, in its overlap
    assert sealing.unseal(sealing.seal(SECRET)) == SECRET  # sealed with the new one
    assert sealing.seal(SECRET) != token
    monkeypatch.setattr(
        signing_keys, "time", SimpleNamespace(time=lambda: 100, monotonic=time.monotonic)
    )
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(token)


def test_the_local_key_is_the_one_derived_before_keyrings():
    """So make serve's audits keep their crawl secrets across the upgrade: HKDF-SHA256 of the
    old secret with the info "sitelens:sealed", as `sealing` derived it before."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    old = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=sealing.PURPOSE.encode())
    derived = signing_keys.derive("a local secret", signing_keys.Purpose.SEALED)
    assert derived == old.derive(b"a local secret")
