"""Benchmarks: `python -m bench.receiver` measures the webhook receiver over real HTTP."""
