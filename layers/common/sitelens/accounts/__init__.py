"""Accounts, their API keys and their rate limit: who a request is from, and whether it
may be made now. Used by the edge's auth and the CLI; knows nothing of HTTP (the edge turns
a missing account into a 401)."""

from sitelens.accounts.keys import (
    KEY_PREFIX,
    Account,
    account_for_key,
    add_key,
    create_account,
    get_account,
    key_hash,
    list_keys,
    new_key,
    revoke_key,
    set_contact,
)
from sitelens.accounts.limits import admit

__all__ = [
    "KEY_PREFIX",
    "Account",
    "account_for_key",
    "add_key",
    "admit",
    "create_account",
    "get_account",
    "key_hash",
    "list_keys",
    "new_key",
    "revoke_key",
    "set_contact",
]
