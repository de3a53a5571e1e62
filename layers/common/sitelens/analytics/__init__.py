"""Analytics: collecting hits (`tracking`, `hits`, `visitors`, the tracking `script`),
counting them (`aggregation`, `cleanup`) and reading statistics (`stats`, `inputs`).

Storage is in `sitelens.data`: `stats` (counters), `ledger` (the aggregator's deliveries),
`queues`, `warehouse`, `realtime` and `salts`; websites are read through
`sitelens.data.websites`, never through the websites domain.
"""
