"""What the domain areas' records share: the base of input models, pages of lists with
their cursors, and privacy modes with password hashes.

Rules of one area belong to that area (`websites`, `reports`, ...); AWS calls to `data`.
"""
