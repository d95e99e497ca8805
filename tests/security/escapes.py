"""Escapes an attacker tries from inside the sandbox (``test_sandbox_escapes.py`` asserts).

Each probe is a shell command, run through the worker's own sandbox (``open_sandbox`` with
the runtime's hidden paths) in a world that holds what a worker's host holds: the bot's
``.env`` and key, its data directory (Redis data, another task's checkout), a home with git
credentials and an SSH key, a Unix socket, an abstract socket, a TCP listener on loopback,
and a secret in the worker's own environment. The tests run every probe as root (in their
own process) and as an unprivileged user (``python -m tests.security.escapes PROBE WORLD``
under ``setpriv``, which prints the result as JSON).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from workers.agents.sandbox import CommandResult, open_sandbox
from workers.agents.settings import SandboxLimits, SandboxSettings

SECRET_ENV = "AGENTIUM_PROBE_SECRET"
MARK = "agentium-probe-mark"
SECRET_FILES = (
    ".env",
    "app.pem",
    "home/.git-credentials",
    "home/.ssh/id_ed25519",
    "data/redis/dump.rdb",
    "data/workspaces/octo__other__1/notes.txt",
)
SETTINGS = SandboxSettings(
    timeout_seconds=60, limits=SandboxLimits(file_bytes=8 << 20, tmp_bytes=16 << 20)
)
CONNECT = """python3 - <<'EOF'
import socket
def attempt(family, address):
    try:
        socket.socket(family, socket.SOCK_STREAM).connect(address)
        print("CONNECTED", address)
    except OSError as error:
        print("refused", address, error)
attempt(socket.AF_UNIX, "{socket}")
attempt(socket.AF_UNIX, "\\0{abstract}")
attempt(socket.AF_INET, ("127.0.0.1", {port}))
EOF
ls /run /var/run 2>&1"""
PROBES = {
    "mounts": (
        "for m in / /usr /etc /tmp /proc /dev {checkout}/.git; do "
        "umount $m && echo ESCAPED umount $m; umount -l $m && echo ESCAPED lazy $m; done; "
        "for m in / /usr /etc {checkout}/.git; do "
        "mount -o remount,bind,rw $m && echo ESCAPED remount $m; done; "
        "mount -t tmpfs none /tmp && echo ESCAPED mount; mount --bind / /tmp && echo ESCAPED; "
        "unshare -Ur true && echo ESCAPED userns; unshare -m true && echo ESCAPED mntns; "
        "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status"
    ),
    "secrets": (
        "cat {files}; cat /proc/*/environ | tr '\\0' '\\n'; env; cat /etc/shadow; "
        "ls -la / /root /home {base} {base}/data {base}/home; find / -name '*.pem' -o -name .env"
    ),
    "writes": (
        "for d in / /usr /etc /var/tmp {base} {base}/data {checkout}/.git {checkout}/.git/hooks; "
        "do echo x > $d/escaped && echo ESCAPED $d; done; "
        "echo evil > .git/hooks/pre-push && echo ESCAPED hook; "
        "ln -s /bin/true .git/hooks/post-checkout && echo ESCAPED link; "
        "chmod 777 .git && echo ESCAPED chmod; echo inside > inside.txt"
    ),
    "setuid": "cp /bin/sh ./shell && chmod 4755 ./shell; ls -l ./shell",
    "sockets": CONNECT,
    "fork_bomb": ": {mark}; bomb() {{ bomb | bomb & }}; bomb; sleep 5; echo bomb-over",
    "memory": "python3 -c \"b = bytearray(2 * 1024 ** 3); print('ALLOCATED', len(b))\"",
    "file_size": "head -c 20000000 /dev/zero > big; ls -l big",
    "tmp_size": "for i in 1 2 3 4 5 6; do head -c 4000000 /dev/zero > /tmp/f$i || echo FULL; done",
    "daemon_timeout": (
        "setsid sh -c ': {mark}; while :; do date +%s%N > .alive; sleep 0.1; done' "
        ">/dev/null 2>&1 </dev/null & nohup sh -c ': {mark}; sleep 1000' >/dev/null 2>&1 & "
        "sleep 600"
    ),
    "daemon_exit": "setsid sh -c ': {mark}; sleep 1000' >/dev/null 2>&1 </dev/null & echo started",
}
TIMEOUTS = {"fork_bomb": 15.0, "daemon_timeout": 3.0}


@dataclass(frozen=True)
class World:
    base: str
    secrets: dict[str, str]  # path under base -> content
    env_secret: str
    socket: str
    abstract: str
    port: int

    @property
    def checkout(self) -> Path:
        return Path(self.base) / "data" / "workspaces" / "octo__hello__7"

    @property
    def hidden(self) -> tuple[Path, ...]:
        base = Path(self.base)
        return (base / "data", base / ".env", base / "app.pem")

    def command(self, probe: str) -> str:
        files = " ".join(str(Path(self.base) / name) for name in self.secrets)
        return PROBES[probe].format(
            checkout=self.checkout,
            base=self.base,
            files=files,
            mark=MARK,
            socket=self.socket,
            abstract=self.abstract,
            port=self.port,
        )


def make_world(
    base: Path, listening: tuple[int, str], owner: tuple[int, int] | None = None
) -> World:
    """Write the host's secrets and a checkout under ``base`` (where ``listeners`` put the
    Unix socket; the port and abstract socket are ``listening``); ``owner`` gets it all."""
    world = World(
        base=str(base),
        secrets={name: f"secret-{name}-{secrets.token_hex(8)}" for name in SECRET_FILES},
        env_secret=f"env-secret-{secrets.token_hex(8)}",
        socket=str(base / "agent.sock"),
        abstract=listening[1],
        port=listening[0],
    )
    for name, content in world.secrets.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        path.chmod(0o600)
    _checkout(world.checkout)
    if owner is not None:
        subprocess.run(["chown", "-R", f"{owner[0]}:{owner[1]}", str(base)], check=True)
    return world


def _checkout(path: Path) -> None:
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    path.mkdir(parents=True)
    (path / "README.md").write_text("hello\n")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)


def run_probe(probe: str, world: World) -> CommandResult:
    """The probe through the sandbox a worker builds, with the runtime's hidden paths."""
    sandbox = open_sandbox(SETTINGS, hidden=world.hidden)
    return sandbox.run(world.command(probe), world.checkout, timeout=TIMEOUTS.get(probe))


def main(argv: list[str]) -> int:
    probe, world_json = argv
    world = World(**json.loads(world_json))
    assert os.environ.get(SECRET_ENV) == world.env_secret  # the "worker" holds the secret
    print(json.dumps(asdict(run_probe(probe, world))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
