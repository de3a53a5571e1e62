"""Sitelens: the shared layer of every Sitelens Lambda handler."""

import gc

# A cold start imports tens of thousands of objects that live as long as the container;
# collecting them over and over during init costs about 40 ms. Collection is off until
# the first invocation ends (`initialized`), which freezes them out of later collections.
gc.disable()


def initialized() -> None:
    """End of the first invocation: resume garbage collection, sparing the init's objects."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
