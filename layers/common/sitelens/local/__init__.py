"""Running Sitelens without AWS: the template's APIs and tables on this machine.

Development only: the layer's build (`layers/common/Makefile`) leaves `local/` and `cli.py`
out of what is shipped to Lambda, and nothing shipped imports them.
"""
