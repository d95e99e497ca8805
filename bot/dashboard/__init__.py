"""The web side's read-only views of the tasks: the dashboard and the figures for /metrics."""
