"""Accounts, their API keys (with their scopes) and their rate limit: who a request is
from, what its key may do, and whether it may be made now. Used by the edge's auth, the
keys API and the CLI; knows nothing of HTTP (the edge turns a missing account into a 401)."""

from sitelens.accounts.keyring import (
    Grant,
    account_for_key,
    add_key,
    grant_for_key,
    list_keys,
    revoke_key,
)
from sitelens.accounts.keys import (
    KEY_PREFIX,
    Account,
    create_account,
    get_account,
    key_hash,
    new_key,
    set_contact,
)
from sitelens.accounts.limits import admit, admit_request

__all__ = [
    "KEY_PREFIX",
    "Account",
    "Grant",
    "account_for_key",
    "add_key",
    "admit",
    "admit_request",
    "create_account",
    "get_account",
    "grant_for_key",
    "key_hash",
    "list_keys",
    "new_key",
    "revoke_key",
    "set_contact",
]
