"""The basics every package uses: errors, settings, time, time zones, currencies, the
logger, hosts and metrics.

Nothing here imports the rest of `sitelens` or talks to AWS; rules of a domain area do not
belong here.
"""
