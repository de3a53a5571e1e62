"""Everything signed with the stack's secret: list cursors, share proofs, unsubscribe links
and keyed digests. `signing` alone reads the secret; nothing else holds it.
"""
