"""Benchmarks against peers (`make bench`): cold start, warm overhead, reads, SEO, ingestion."""
