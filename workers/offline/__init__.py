"""Offline drivers of the controller: `agentium local`, `agentium simulate`, scenarios."""
