"""Search Console, joined (docs/search-console.md): a website's connection to a property,
Google's OAuth 2.0 and Search Console APIs spoken as documented, and the daily import of
`searchAnalytics.query` rows into the warehouse's per-site table."""
