"""The raw-event warehouse: one row per counted hit, in columnar files partitioned by
website and day, and the query model that answers Plausible-style questions over it.

`schema` names the columns (one list for the Parquet files, the Glue table and the local
DuckDB views), `query` validates a Stats API v2 request (`dimensions` names what it may
ask for, `filters` and `periods` check its filters and dates), `sql` renders it, through
SQLGlot, to the SQL of the engine that runs it (DuckDB locally, Athena deployed).
"""
