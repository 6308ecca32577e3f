"""Autograd Playground web service (FastAPI)."""
