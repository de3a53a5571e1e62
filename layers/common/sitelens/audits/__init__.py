"""Site audits: a whole site crawled, its pages checked one by one and across each other.

`inputs` (what a request may carry), `urls` (normalising, scope and dedupe rules),
`records` (the API's operations), `crawler` (the queue worker's steps: start, fetch,
analyse), `politeness` (each host's pace across every crawl), `externals` (external links
under their own host's robots.txt), `fairshare` (each account's share of the workers),
`facts` (what a page tells the checks), `sitemaps`, and `checks` (the cross-page checks,
pure functions over stored facts). Storage is `sitelens.data.audits`, the paces
`sitelens.data.slots`.
"""
