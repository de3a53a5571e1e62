"""What an unlock request may carry: the password, as a form or JSON field."""

from __future__ import annotations

from typing import Annotated

from sitelens.records.inputs import Input, text

# Longer than any password a record takes (128): a longer one is simply wrong (401), not
# refused as malformed, so the answer to a guess never depends on its length.
MAX_GUESS = 1024


class Unlock(Input):
    password: Annotated[str, text(MAX_GUESS, min_length=1)]
