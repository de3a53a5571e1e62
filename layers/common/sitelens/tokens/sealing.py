"""Sealed secrets: what a background job needs back in plain text (an audit's crawl
headers, basic auth and cookie), encrypted where it is stored and never shown.

Deployed under CostProfile=standard, `SITELENS_SEAL_KEY_ID` names the stack's KMS key:
sealing is one `kms:Encrypt` and unsealing one `kms:Decrypt`, so only the functions granted
them can (the audits' create and update seal; update and the crawl worker unseal). Under
lean, `SITELENS_SEAL_KEY_PARAMETER` names a SecureString parameter holding a random 256-bit
key instead (made at the first seal, `data.secrets`; read once a container), and a token is
AES-256-GCM under it: IAM on the parameter decides who seals, as it does on the KMS key,
whose key policy leaves its use to IAM. Without either (make serve, tests) a token is
AES-256-GCM under the signing keyring's sealing key (`signing_keys`, derived by HKDF-SHA256
from the active key; the keyring given as a setting or a file), and unseals under the key
of any key still in its overlap.

A token names its kind, `kms1.<base64url ciphertext blob>`, `ssm1.` or `local1.<base64url
nonce, ciphertext and tag>`, and is unsealed only as that kind (a KMS token never under the
parameter's key, nor the other way); all are authenticated (a changed token does not
unseal: `BadSeal`) and bound to the purpose below, and none holds the plaintext.
"""

from __future__ import annotations

import base64
import binascii
import os
from functools import cache
from typing import Any

from sitelens.core.config import ConfigError, settings
from sitelens.data import secrets as stored_secrets
from sitelens.data.clients import client
from sitelens.data.items import error_code
from sitelens.tokens.signing_keys import Purpose, local_keys

MAX_PLAINTEXT_BYTES = 4096  # what one kms:Encrypt takes
KMS = "kms1"
SSM = "ssm1"  # AES-256-GCM under the key in the stack's parameter (CostProfile=lean)
LOCAL = "local1"  # AES-256-GCM under the signing keyring's sealing key (make serve, tests)
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
    if settings().seal_key_parameter:
        return _aes_seal(SSM, _made_parameter_key(), data)
    return _aes_seal(LOCAL, local_keys(Purpose.SEALED)[0], data)  # the active key's


def unseal(token: str) -> str:
    """The plaintext of a token `seal` made; BadSeal for any other."""
    kind, _, body = token.partition(".")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise BadSeal("not a sealed token") from None
    if kind == KMS:
        data = _kms_decrypt(raw)
    elif kind == SSM:
        data = _aes_open(raw, _parameter_keys())
    elif kind == LOCAL:
        data = _aes_open(raw, local_keys(Purpose.SEALED))
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


# The parameter's key by its name, read once a container: it never changes (there is no
# rotation: the tokens sealed under it would stop unsealing).
_held: dict[str, bytes] = {}


def _made_parameter_key() -> bytes:
    """The parameter's key, made first when the stack has none yet (the first seal)."""
    name = settings().seal_key_parameter
    if name not in _held:
        text = stored_secrets.kept_parameter_string(name, _new_key_text)
        _held[name] = _parameter_key(name, text)
    return _held[name]


def _parameter_keys() -> list[bytes]:
    """The parameter's key to unseal with; none when no parameter is named or it is gone
    (a token sealed where there is none does not unseal). Never makes one."""
    name = settings().seal_key_parameter
    if name and name not in _held:
        text = stored_secrets.parameter_string(name)
        if text is not None:
            _held[name] = _parameter_key(name, text)
    return [_held[name]] if name in _held else []


def forget() -> None:
    """Read the parameter's key again on next use (tests)."""
    _held.clear()


def _parameter_key(name: str, text: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise ConfigError(f"The seal key parameter {name} is not 64 hex digits (256 bits).")
    return key


def _new_key_text() -> str:
    return os.urandom(32).hex()


def _aes_seal(kind: str, key: bytes, data: bytes) -> str:
    nonce = os.urandom(_NONCE_BYTES)
    return f"{kind}.{_b64(nonce + _cipher(key).encrypt(nonce, data, PURPOSE.encode()))}"


def _aes_open(raw: bytes, keys: list[bytes]) -> bytes:
    """The plaintext under the first of `keys` that opens it; BadSeal for none."""
    from cryptography.exceptions import InvalidTag

    nonce, sealed = raw[:_NONCE_BYTES], raw[_NONCE_BYTES:]
    if len(nonce) < _NONCE_BYTES:
        raise BadSeal("not a sealed token")
    for key in keys:
        try:
            return bytes(_cipher(key).decrypt(nonce, sealed, PURPOSE.encode()))
        except InvalidTag:
            continue  # sealed under another key (of the keyring), or changed
    raise BadSeal("the token does not unseal")


@cache
def _cipher(key: bytes) -> Any:
    # Imported here: only AES-GCM's kinds need it (lean, make serve, tests), not KMS's.
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
