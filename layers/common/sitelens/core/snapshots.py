"""Lambda SnapStart (docs/mcp.md, "Cold start"): what a function restored from a snapshot
must make again, since every environment restored from one snapshot starts with the same
memory.

`random`'s generator is the one thing of that memory that must differ: botocore's and
urllib3's retry jitter, `data.transactions`' backoff and OpenTelemetry's ids draw from it,
and environments with the same state would retry in step. uuid4, `secrets` and os.urandom
read the kernel's entropy at each call and stay unique; boto3 reconnects and refreshes its
credentials by itself; nothing is cached at init that a request wrote.
"""

from __future__ import annotations

import importlib
import random

# The runtime hooks' library: in Lambda's Python runtimes (3.12 on), not on PyPI's path here.
HOOKS_MODULE = "snapshot_restore_py"


def reseed() -> None:
    """A new seed for `random`'s generator, from the kernel's entropy."""
    random.seed()


def register() -> bool:
    """Run `reseed` in each environment restored from a snapshot; False where there are no
    runtime hooks (outside Lambda, where every process already seeds its own)."""
    try:
        hooks = importlib.import_module(HOOKS_MODULE)
    except ImportError:
        return False
    hooks.register_after_restore(reseed)
    return True
