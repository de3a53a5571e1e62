"""Analytics: collecting hits (`tracking`, `hits`, `visitors`, the tracking `script`),
counting them (`aggregation`, `cleanup`) and reading statistics (`stats`, `inputs`).

Storage is `sitelens.data.stats` and `.queues`; websites are read through
`sitelens.data.websites`, never through the websites domain.
"""
