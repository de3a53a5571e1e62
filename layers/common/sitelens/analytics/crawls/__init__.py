"""Crawlers seen in server access logs (docs/crawlers.md): the logs' formats
(`accesslogs`), which crawler a line is and whether it is who it claims (`crawlers`,
`verification`), an upload turned into crawl rows (`uploads`) and the pulls of a
customer's S3 prefix (`pulls`). The rows' table and its queries are `warehouse.crawls`."""
