"""The share views, read without an API key as each record's privacy allows (the rules
are `sitelens.sharing`'s): one module per record kind, `websites` (by domain), `reports`
and `audits` (by share id), and `views`, what all do: JSON with a bearer token from the
unlock route, pages with a cookie their password form sets, each client address's limit.
"""
