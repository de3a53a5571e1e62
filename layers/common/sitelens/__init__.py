"""Sitelens: the shared layer of every Sitelens Lambda handler."""
