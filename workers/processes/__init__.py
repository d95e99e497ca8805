"""Processes: the `agentium` command, the supervisor, the RQ worker loop, embedded Redis."""
