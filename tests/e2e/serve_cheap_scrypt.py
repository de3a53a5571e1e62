"""`make serve`'s program as the e2e tests start it: the same module run as `__main__`, with
passwords hashed at scrypt's cost of 2^10 instead of OWASP's 2^17, as tests/conftest.py's
`cheap_scrypt` does in process (each hash keeps its cost, so checking a password is the
same). The contract fuzzing sets dozens of share passwords; at full cost, half a second of
CPU each, they were a third of the server's time. tests/integration/test_websites.py keeps
a test of the full cost."""

import runpy

from sitelens.records import privacy

privacy._N = 2**10
runpy.run_module("sitelens.local.server", run_name="__main__", alter_sys=True)
