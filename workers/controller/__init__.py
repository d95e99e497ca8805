"""The phase controller: a pure transition function over a task's workflow state.

Drive a task with :func:`workers.controller.transitions.step`; see the README
and the module docstrings for the rules.
"""
