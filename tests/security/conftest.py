from tests.fakes.github_fixtures import clients, clock, credentials, fake_github, tasks

__all__ = ["clients", "clock", "credentials", "fake_github", "tasks"]
