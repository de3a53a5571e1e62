"""Imports of a website's history from Plausible, Google Analytics 4 and Umami: the job that
reads a file into Plausible's per-site daily `imported_*` tables (`jobs`, `formats`,
`events`), and the query API's `include.imports`, which adds them to native answers
(`queried`). Records and files live in `sitelens.data.imports`; docs/imports.md."""
