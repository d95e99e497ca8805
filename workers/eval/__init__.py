"""``agentium eval``: the whole loop on a suite of tasks, graded by tests the agents never see.

``instance`` (a task, and the SWE-bench JSONL reader), ``source`` (its repository at the
base commit), ``grade`` (hidden tests on the task's branch), ``run`` (one instance: local
mode's controller, agents, sandbox and environment step), ``record`` (what one run gave,
and the suite's summary), ``report`` (the table, the summary, ``compare``), ``jobs`` (the
RQ job), ``pool`` (Redis and the workers), ``cli`` (the command).
"""
