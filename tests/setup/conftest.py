from tests.fakes.github_fixtures import clock, fake_github

__all__ = ["clock", "fake_github"]
