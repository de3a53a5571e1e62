"""SEO reports: fetching a page safely and analysing it."""
