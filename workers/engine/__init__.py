"""The step engine: one step of a task (lock, inbox, agent call, effects, state)."""
