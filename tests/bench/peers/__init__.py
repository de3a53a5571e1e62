"""What a user would pick instead: the same websites routes on FastAPI + Mangum and on a
Powertools resolver, and the SEO checks on BeautifulSoup."""
