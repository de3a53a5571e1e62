"""Running Sitelens without AWS: the template's APIs and tables on this machine.

Development only: the layer's build (`layers/common/Makefile`) leaves `local/` and `cli.py`
out of what is shipped to Lambda, and nothing shipped imports them.
"""

# How often a local listener looks whether it is to stop: serve_forever's default, 0.5 s,
# was spent at every stop (of make serve, and of each test's local SQS).
STOP_POLL_SECONDS = 0.05
