"""Guest links: a read key limited to websites or projects doubles as its client's login
to the share views of what it reaches (`links`: made, listed and revoked through the keys
API; `sessions`: what a link's token opens). Which records a session opens is
`sharing.access.Guest`'s rule; the edge turns a session into a cookie."""
