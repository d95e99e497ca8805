"""Which repository and issue a call is about."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IssueRef:
    owner: str
    repo: str
    number: int

    @classmethod
    def parse(cls, full_name: str, number: int) -> IssueRef:
        owner, sep, repo = full_name.partition("/")
        if not sep or not owner or not repo or "/" in repo:
            raise ValueError(f"not an owner/repo name: {full_name!r}")
        return cls(owner, repo, number)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def key(self) -> str:
        return f"{self.full_name.lower()}#{self.number}"
