"""Running Sitelens without AWS: the template's APIs and tables on this machine."""
