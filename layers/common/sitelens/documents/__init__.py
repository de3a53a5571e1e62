"""Documents to send: an audit run's and a report's PDF (`audit_pdf`, `report_pdf`), laid
out by `layout` with the account's `brand`.

They read what `audits` and `reports` show and render it; no rule or storage lives here.
"""
