"""The step engine: one step of a task (lease, inbox, agent call, effects, state)."""
