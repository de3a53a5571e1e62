"""Webhooks: an account's endpoints, the events they are sent, and their deliveries,
signed per the Standard Webhooks scheme, queued with retries and sent through the report
fetcher's network guard. Knows nothing of HTTP requests (the edge) or of tables (`data`).
"""
