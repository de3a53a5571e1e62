"""Site audits: a whole site crawled, its pages checked one by one and across each other.

`inputs` (what a request may carry), `urls` (normalising, scope and dedupe rules),
`records` (the API's operations), `crawler` (the queue worker's steps: start, fetch,
analyse), `facts` (what a page tells the checks), `sitemaps`, and `checks` (the cross-page
checks, pure functions over stored facts). Storage is `sitelens.data.audits`.
"""
