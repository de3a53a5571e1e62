"""Domains: proof that an account owns a website's domain (a DNS TXT record, a file or a
meta tag on the site) and what a proof does: a verified badge, or the domain's claim moved
to the prover after a grace period (docs/websites-domains.md). Not the websites' own
fields and rules (`sitelens.websites`), nor fetching (`sitelens.seo.fetch`, reused here).
"""
