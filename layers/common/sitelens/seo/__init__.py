"""SEO: fetching a page safely (`fetch`), checking it (`checks`) and scoring the checks
(`analysis`). Knows nothing of reports' storage or HTTP answers; `reports` builds on it."""
