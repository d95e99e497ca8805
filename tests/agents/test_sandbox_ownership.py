"""A root worker lends its checkout to the sandbox's user for one command, and takes it back.

Only as root (CI runs the suite as root): the user ``sandbox.run_as`` owns the checkout's
contents while a command runs; afterwards root owns everything again, set-user-ID bits
are gone, and nothing outside the checkout changed hands, through a symbolic or a hard
link. The checkout's top directory stays root's throughout, so a worker killed mid-command
leaves a checkout that git (which refuses a work tree another user owns) still accepts.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import git, needs_bwrap
from workers.agents.sandbox import Sandbox
from workers.agents.sandbox.ownership import Owner, lent

pytestmark = [
    needs_bwrap,
    pytest.mark.skipif(os.geteuid() != 0, reason="lending happens when the worker is root"),
]
ROOT = Owner(0, 0)
NOBODY = Owner(65534, 65534)


def owners(tree: Path) -> set[int]:
    return {p.lstat().st_uid for p in tree.rglob("*") if ".git" not in p.parts}


def test_the_checkout_is_lent_for_a_command_and_taken_back(
    sandbox: Sandbox, checkout: Path
) -> None:
    mode = checkout.stat().st_mode
    result = sandbox.run("id -u; stat -c %u src; echo new > new.txt; mkdir d; touch d/f", checkout)
    assert result.output.split()[:2] == ["65534", "65534"]  # inside: the sandbox's user
    assert owners(checkout) == {0}
    assert checkout.stat().st_mode == mode and checkout.stat().st_uid == 0
    assert {p.stat().st_uid for p in (checkout / ".git").rglob("*")} == {0}


def test_while_lent_git_still_accepts_the_checkout(checkout: Path) -> None:
    """As a worker killed mid-command leaves it."""
    with lent([checkout], ROOT, NOBODY):
        assert owners(checkout) == {NOBODY.uid}
        assert checkout.stat().st_uid == 0
        assert git(checkout, "status", "--porcelain") == ""


def test_links_to_files_outside_never_change_hands(checkout: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("root's\n")
    (checkout / "symlink").symlink_to(outside)
    os.link(outside, checkout / "hardlink")
    with lent([checkout], ROOT, NOBODY):
        assert outside.stat().st_uid == 0
        assert (checkout / "symlink").lstat().st_uid == 0
    assert outside.stat().st_uid == 0


def test_a_set_user_id_bit_does_not_survive_the_hand_back(sandbox: Sandbox, checkout: Path) -> None:
    sandbox.run("cp /bin/true ./t && chmod 6755 ./t", checkout)
    made = (checkout / "t").stat()
    assert made.st_uid == 0 and not made.st_mode & 0o6000
    subprocess.run([str(checkout / "t")], check=True)  # still a working program
