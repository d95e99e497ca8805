"""Git run by the bot outside the sandbox ignores whatever an agent left in the checkout.

An agent's commands may write anything in the checkout except its ``.git`` (read-only to
them, and refused by the file tools). What they leave must never run outside the sandbox,
least of all while git holds the installation token:

- ``SAFE_CONFIG`` goes on every git command line (and reaches the git processes it starts):
  no hooks (``core.hooksPath=/dev/null``), no fsmonitor, no credential helper, only the
  https, http and file transports, no recursion into submodules.
- :func:`drop_nested_repositories` removes every ``.git`` below the checkout's top before
  a commit: ``git add`` asks a nested repository for its status, which runs the clean
  filters, fsmonitor and hooks of that repository's own config, written by the agent.
- :func:`untrusted_keys` lists the keys of a checkout's own config beyond those a clone and
  the bot write (``include.*``, ``url.*.insteadOf``, ``http.*``, ``core.sshCommand``, ...).
  The controller refuses to hand git the token in a checkout whose config has any.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

SAFE_CONFIG: tuple[str, ...] = tuple(
    arg
    for setting in (
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "credential.helper=",
        "protocol.allow=never",
        "protocol.https.allow=always",
        "protocol.http.allow=always",
        "protocol.file.allow=user",
        "submodule.recurse=false",
        "fetch.recurseSubmodules=false",
        "push.recurseSubmodules=no",
        "diff.ignoreSubmodules=all",
        "status.submoduleSummary=false",
    )
    for arg in ("-c", setting)
)
TRUSTED_KEY = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks)"
    r"|extensions\.objectformat"
    r"|remote\.origin\.(url|fetch|tagopt|promisor|partialclonefilter)"
    r"|branch\.[^\s]+\.(remote|merge)"
    r"|user\.(name|email)"
    r"|agentium\.[a-z]+"
)


def untrusted_keys(names: str) -> list[str]:
    """The keys of ``git config --local --includes --name-only --list`` that neither a
    clone nor the bot writes."""
    keys = [line.strip() for line in names.splitlines() if line.strip()]
    return [key for key in keys if not TRUSTED_KEY.fullmatch(key.lower())]


def drop_nested_repositories(root: Path) -> list[Path]:
    """Remove every ``.git`` (directory or file) below ``root``'s top level; symbolic
    links are not followed. The removed paths, relative to ``root``."""
    dropped: list[Path] = []
    pending = [root]
    while pending:
        with os.scandir(pending.pop()) as scan:
            for entry in scan:
                path = Path(entry.path)
                if entry.name == ".git" and path.parent != root:
                    _remove(path, entry.is_dir(follow_symlinks=False))
                    dropped.append(path.relative_to(root))
                elif entry.is_dir(follow_symlinks=False) and path != root / ".git":
                    pending.append(path)
    return sorted(dropped)


def _remove(path: Path, is_dir: bool) -> None:
    if is_dir:
        shutil.rmtree(path)
    else:
        path.unlink()
