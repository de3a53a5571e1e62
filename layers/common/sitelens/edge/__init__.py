"""The HTTP edge: API Gateway events in, responses out; bearer-key auth; the 405 routes.

It parses and renders, and maps `sitelens.core.errors` to statuses; rules belong to the domain
areas and storage to `sitelens.data`.
"""
