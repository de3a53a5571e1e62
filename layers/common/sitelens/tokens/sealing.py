"""Sealed secrets: what a background job needs back in plain text (an audit's crawl
headers, basic auth and cookie), encrypted where it is stored and never shown.

Deployed, `SITELENS_SEAL_KEY_ID` names the stack's KMS key: sealing is one `kms:Encrypt`
and unsealing one `kms:Decrypt`, so only the functions granted them can (the audits'
create and update seal; update and the crawl worker unseal). Without a key (make serve,
tests) a token is AES-256-GCM under the signing keyring's sealing key (`signing_keys`,
derived by HKDF-SHA256 from the active key; the keyring given as a setting or a file), and
unseals under the key of any key still in its overlap; the `cryptography` package it needs
is a development dependency, never loaded where a key is set.

A token names its kind, `kms1.<base64url ciphertext blob>` or `local1.<base64url nonce,
ciphertext and tag>`; both are authenticated (a changed token does not unseal: `BadSeal`)
and bound to the purpose below, and neither holds the plaintext.
"""

from __future__ import annotations

import base64
import binascii
import os
from functools import cache
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import error_code
from sitelens.tokens.signing_keys import Purpose, local_keys

MAX_PLAINTEXT_BYTES = 4096  # what one kms:Encrypt takes
KMS = "kms1"
LOCAL = "local1"
PURPOSE = "sitelens:sealed"  # KMS's encryption context and AES-GCM's associated data
_NONCE_BYTES = 12
_REFUSED_BY_KMS = frozenset(
    {"InvalidCiphertextException", "IncorrectKeyException", "InvalidKeyUsageException"}
)


class BadSeal(ValueError):
    """A token that is not one of ours: malformed, changed, or sealed under another key."""


def seal(plaintext: str) -> str:
    """`plaintext` (at most `MAX_PLAINTEXT_BYTES` of UTF-8) encrypted, as a token."""
    data = plaintext.encode()
    if len(data) > MAX_PLAINTEXT_BYTES:
        raise ValueError(f"at most {MAX_PLAINTEXT_BYTES} bytes can be sealed")
    key_id = settings().seal_key_id
    if key_id:
        answer = client("kms").encrypt(
            KeyId=key_id, Plaintext=data, EncryptionContext={"purpose": PURPOSE}
        )
        return f"{KMS}.{_b64(answer['CiphertextBlob'])}"
    nonce = os.urandom(_NONCE_BYTES)
    key = local_keys(Purpose.SEALED)[0]  # the active key's
    return f"{LOCAL}.{_b64(nonce + _cipher(key).encrypt(nonce, data, PURPOSE.encode()))}"


def unseal(token: str) -> str:
    """The plaintext of a token `seal` made; BadSeal for any other."""
    kind, _, body = token.partition(".")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise BadSeal("not a sealed token") from None
    if kind == KMS:
        data = _kms_decrypt(raw)
    elif kind == LOCAL:
        data = _local_decrypt(raw)
    else:
        raise BadSeal("not a sealed token")
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise BadSeal("not a sealed token") from None


def _kms_decrypt(blob: bytes) -> bytes:
    key_id = settings().seal_key_id
    if not key_id:
        raise BadSeal("a KMS token, and no KMS key is set")
    try:
        answer = client("kms").decrypt(
            KeyId=key_id, CiphertextBlob=blob, EncryptionContext={"purpose": PURPOSE}
        )
    except Exception as err:  # botocore's ClientError; throttling and the like propagate
        if error_code(err) in _REFUSED_BY_KMS:
            raise BadSeal("the token does not unseal") from None
        raise
    return bytes(answer["Plaintext"])


def _local_decrypt(raw: bytes) -> bytes:
    from cryptography.exceptions import InvalidTag

    nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
    if len(nonce) < _NONCE_BYTES:
        raise BadSeal("not a sealed token")
    for key in local_keys(Purpose.SEALED):
        try:
            return bytes(_cipher(key).decrypt(nonce, sealed, PURPOSE.encode()))
        except InvalidTag:
            continue  # sealed under another key of the keyring, or changed
    raise BadSeal("the token does not unseal")


@cache
def _cipher(key: bytes) -> Any:
    # Imported here: only the local mode needs it (make serve, tests).
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
