"""The signing keyring: keys with ids, one active, the ones before it verifying until their
overlap ends, and from each key one derived key per purpose (HKDF-SHA256, RFC 5869).

Kept as text, in the stack's secret (deployed, CostProfile=standard) or SecureString
parameter (lean: made at first use, `data.secrets`), make serve's `.sitelens-secret` file or
a setting (tests): either a bare secret, which is a keyring of one key with id "0" (what the
template generates, or the first use under lean, and the secret of stacks made before
keyrings), or JSON

    {"keys": [{"kid": "3f9a0c1e", "secret": "<64 hex>"},
              {"kid": "0", "secret": "...", "verifies_until": 1795000000}]}

whose first key is the active one: every token is signed with it and names it (`kid`). A
key after the first verifies until `verifies_until` (epoch seconds) and never after, even
while it is still listed; `rotated` drops it at the next rotation.

A container reads the keyring at most every `MAX_AGE_SECONDS`, so a rotation reaches every
warm one within that; a token naming a key it does not know makes it read again at once
(at most every `REREAD_SECONDS`), so a token signed with a new key verifies everywhere.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Any

from sitelens.core.config import DEPRECATED, PREFIX, ConfigError, settings
from sitelens.data import secrets as stored_secrets

# A rotation's default overlap: the longest a token signed for someone lasts (a guest link,
# 90 days), so that a routine rotation ends no token early; 0 for a key that leaked.
DEFAULT_OVERLAP_DAYS = 90
# One GetSecretValue (lean: GetParameter) per warm container an hour at most
# (docs/configuration.md, "Signing keys"): a new key verifies everywhere at once
# (REREAD_SECONDS), so this bounds only how long a key rotated out with no overlap (a leak)
# still signs and verifies in warm ones.
MAX_AGE_SECONDS = 3600.0
REREAD_SECONDS = 10.0  # an unknown kid re-reads no more often: forged kids cost little
FIRST_KID = "0"  # the id of a bare secret
KID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,16}")


class Purpose(StrEnum):
    """What a derived key is for: a token made with one never verifies for another."""

    CURSOR = "cursor"
    SHARE = "share"
    UNSUBSCRIBE = "unsubscribe"
    GUEST = "guest"
    DIGEST = "digest"
    SEALED = "sealed"  # make serve's sealing key (`tokens.sealing`), as it was derived before
    OAUTH = "oauth"  # the `state` of an OAuth consent (analytics.searchconsole.connections)


@cache
def derive(secret: str, purpose: Purpose) -> bytes:
    """RFC 5869 HKDF-SHA256 of `secret`, with no salt and `sitelens:<purpose>` as its info:
    32 bytes, one block of the expand step."""
    pseudorandom = hmac.new(b"\0" * 32, secret.encode(), hashlib.sha256).digest()
    info = f"sitelens:{purpose.value}".encode()
    return hmac.new(pseudorandom, info + b"\x01", hashlib.sha256).digest()


@dataclass(frozen=True)
class Key:
    kid: str
    secret: str = field(repr=False)
    verifies_until: int | None = None  # set when a newer key took its place

    def verifies(self, now: float) -> bool:
        """Whether tokens signed with it still verify: the active key's always, a previous
        key's until its overlap ends."""
        return self.verifies_until is None or now < self.verifies_until

    def derived(self, purpose: Purpose) -> bytes:
        return derive(self.secret, purpose)


@dataclass(frozen=True)
class Keyring:
    keys: tuple[Key, ...]

    @property
    def active(self) -> Key:
        return self.keys[0]

    def verifying(self, kid: str, now: float) -> Key | None:
        """The key named `kid` while its tokens verify, else None (unknown, or past its
        overlap)."""
        for key in self.keys:
            if key.kid == kid:
                return key if key in self.verifying_at(now) else None
        return None

    def verifying_at(self, now: float) -> list[Key]:
        """The keys whose tokens verify at `now`: the active one, then those in overlap."""
        return [self.active, *(key for key in self.keys[1:] if key.verifies(now))]

    def rotated(self, now: float, overlap_seconds: int) -> Keyring:
        """A new active key (32 random bytes); the one before verifies `overlap_seconds`
        more (0: no more), those before it until their own end; ended ones are dropped."""
        taken = {key.kid for key in self.keys}
        kid = secrets.token_hex(4)
        while kid in taken:
            kid = secrets.token_hex(4)
        previous = Key(self.active.kid, self.active.secret, int(now) + overlap_seconds)
        kept = [key for key in (previous, *self.keys[1:]) if key.verifies(now)]
        return Keyring((Key(kid, secrets.token_hex(32)), *kept))

    def text(self) -> str:
        """The keyring as it is kept (JSON, whatever it was read from)."""
        keys: list[dict[str, Any]] = []
        for key in self.keys:
            entry: dict[str, Any] = {"kid": key.kid, "secret": key.secret}
            if key.verifies_until is not None:
                entry["verifies_until"] = key.verifies_until
            keys.append(entry)
        return json.dumps({"keys": keys}, indent=1)

    def shown(self) -> list[dict[str, Any]]:
        """Each key as an operator may see it: never its secret."""
        return [
            {"kid": key.kid, "active": key is self.active, "verifies_until": key.verifies_until}
            for key in self.keys
        ]

    @classmethod
    def parse(cls, text: str) -> Keyring:
        """A keyring from its text (a bare secret, or JSON); ConfigError, naming no secret,
        when it is neither."""
        text = text.strip()
        if not text.startswith("{"):
            if not text:
                raise ConfigError("The signing keyring is empty.")
            return cls((Key(FIRST_KID, text),))
        try:
            entries = json.loads(text)["keys"]
            keys = tuple(_key(entry) for entry in entries)
        except (ValueError, KeyError, TypeError):
            keys = ()
        if not keys or len({key.kid for key in keys}) != len(keys):
            raise ConfigError("The signing keyring is not a bare secret or a list of keys.")
        return cls(keys)


def _key(entry: dict[str, Any]) -> Key:
    kid, secret, until = entry["kid"], entry["secret"], entry.get("verifies_until")
    if not isinstance(kid, str) or not KID_SHAPE.fullmatch(kid):
        raise ValueError("bad kid")
    if not isinstance(secret, str) or not secret or not isinstance(until, int | None):
        raise ValueError("bad key")
    return Key(kid, secret, until)


@dataclass(frozen=True)
class Source:
    """Where the keyring is kept: "value" (the setting itself), "file", "arn" (a secret's)
    or "parameter" (a SecureString parameter's name)."""

    kind: str
    where: str = field(repr=False)


def source() -> Source:
    """Where this container's keyring is kept, by its settings; the names used before
    keyrings (SITELENS_CURSOR_SECRET, SITELENS_CURSOR_SECRET_ARN) still count, with a
    warning. The first set wins, in this order: the keyring, its file, the secret's ARN, the
    parameter's name (a stack sets only one). ConfigError when none is set."""
    found = settings()
    if found.signing_keys:
        return Source("value", found.signing_keys)
    if found.signing_keys_file:
        return Source("file", found.signing_keys_file)
    if found.signing_keys_arn:
        return Source("arn", found.signing_keys_arn)
    if found.signing_keys_parameter:
        return Source("parameter", found.signing_keys_parameter)
    for name, kind in (("SIGNING_KEYS", "value"), ("SIGNING_KEYS_ARN", "arn")):
        if found.deprecated(name):
            _warn_deprecated(name)
            return Source(kind, found.deprecated(name))
    raise ConfigError(
        "Missing SITELENS_SIGNING_KEYS, SITELENS_SIGNING_KEYS_FILE, SITELENS_SIGNING_KEYS_ARN "
        "or SITELENS_SIGNING_KEYS_PARAMETER."
    )


@cache
def _warn_deprecated(name: str) -> None:
    from sitelens.core.log import logger  # only here: most containers never warn

    old, new = PREFIX + DEPRECATED[name], PREFIX + name
    logger.warning(f"{old} is deprecated: rename it {new}.", extra={"setting": old, "use": new})


def read(where: Source) -> Keyring:
    """The keyring kept at `where`, read now."""
    if where.kind == "file":
        return Keyring.parse(stored_secrets.file_string(where.where))
    if where.kind == "arn":
        return Keyring.parse(stored_secrets.secret_string(where.where))
    if where.kind == "parameter":
        return Keyring.parse(stored_secrets.kept_parameter_string(where.where, first_secret))
    return Keyring.parse(where.where)


def first_secret() -> str:
    """A new keyring's text, as the template's secret is generated: a bare secret (so a
    keyring of one key, id "0"), of 256 random bits."""
    return secrets.token_hex(32)


def write(where: Source, keyring: Keyring) -> None:
    """Keep `keyring` at `where`; ConfigError for a setting's value, which cannot change."""
    if where.kind == "file":
        stored_secrets.put_file_string(where.where, keyring.text())
    elif where.kind == "arn":
        stored_secrets.put_secret_string(where.where, keyring.text())
    elif where.kind == "parameter":
        stored_secrets.put_parameter_string(where.where, keyring.text())
    else:
        raise ConfigError("A keyring given as SITELENS_SIGNING_KEYS is changed where it is set.")
    forget()


_held: dict[Source, tuple[float, Keyring]] = {}  # the container's keyring, when it was read


def current(fresh_after: float = MAX_AGE_SECONDS) -> Keyring:
    """This container's keyring, read again when it is older than `fresh_after` seconds."""
    where = source()
    held = _held.get(where)
    now = time.monotonic()
    if held is None or now - held[0] >= fresh_after:
        held = (now, read(where))
        _held.clear()
        _held[where] = held
    return held[1]


def signing_key(purpose: Purpose) -> tuple[str, bytes]:
    """The active key's id and its key for `purpose`."""
    active = current().active
    return active.kid, active.derived(purpose)


def verifying_key(kid: str, purpose: Purpose, now: float | None = None) -> bytes | None:
    """The key for `purpose` of the key named `kid`, while tokens signed with it verify;
    None for a kid unknown (after reading the keyring again) or past its overlap."""
    moment = time.time() if now is None else now
    keyring = current()
    if not any(key.kid == kid for key in keyring.keys):
        keyring = current(fresh_after=REREAD_SECONDS)
    key = keyring.verifying(kid, moment)
    return None if key is None else key.derived(purpose)


def local_keys(purpose: Purpose) -> list[bytes]:
    """The key for `purpose` of every key whose tokens verify, the active one first, for
    make serve and the tests only: from a keyring given as a setting or a file, read now,
    never from Secrets Manager or SSM (deployed, sealing has a key of its own, and the
    functions that seal are not granted the keyring)."""
    found = settings()
    if found.signing_keys:  # in `source`'s order, without its ARN
        text = found.signing_keys
    elif found.signing_keys_file:
        text = stored_secrets.file_string(found.signing_keys_file)
    elif found.deprecated("SIGNING_KEYS"):
        text = found.deprecated("SIGNING_KEYS")
    else:
        raise ConfigError(
            "Sealing needs SITELENS_SEAL_KEY_ID, or SITELENS_SIGNING_KEYS(_FILE) locally."
        )
    return [key.derived(purpose) for key in Keyring.parse(text).verifying_at(time.time())]


def rotate(overlap_seconds: int, now: float | None = None) -> Keyring:
    """Make a new active key where the keyring is kept; the previous one verifies
    `overlap_seconds` more. The keyring after."""
    where = source()
    keyring = read(where).rotated(time.time() if now is None else now, overlap_seconds)
    write(where, keyring)
    return keyring


def forget() -> None:
    """Read the keyring again on next use (tests, and after a rotation here)."""
    _held.clear()
