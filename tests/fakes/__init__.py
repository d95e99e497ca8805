"""Fakes of the outside world, speaking the real wire formats (one place for all tests)."""
