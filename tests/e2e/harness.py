"""The whole bot with real processes against fake GitHub and Anthropic servers.

Redis (embedded), the web process and worker processes run as `make run` runs them; the
fake GitHub (REST, GraphQL and git over HTTP, holding a real repository) and the fake
Anthropic server (answering from a scenario file) run in this process. A signed
`issues.labeled` delivery starts the task; `timeline()` reads back what a person would
see on GitHub. Used by the end-to-end tests and by `make demo`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from rq import Queue
from rq.registry import FailedJobRegistry

from tests.e2e.environments import OFFLINE_SETTINGS, SETTINGS, share_environments
from tests.e2e.model import ScriptedModel
from tests.e2e.multitask import issue_of
from tests.e2e.taskstate import describe, last_error
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.github import FakeGitHub
from tests.fakes.keys import app_key_pair
from tests.support import delivery_headers, encode, payload
from workers.github.clock import SystemClock
from workers.processes.embedded_redis import EmbeddedRedis, free_port, port_open
from workers.processes.lifeline import die_with_parent
from workers.tasks.inbox import InboxItem
from workers.tasks.record import TaskRecord, TaskStatus, task_key
from workers.tasks.store import TaskStore

ROOT = Path(__file__).parent.parent.parent
INICONFIG = ROOT / "tests" / "corpus" / "repos" / "iniconfig.tar.gz"
SECRET = "e2e-webhook-secret"
APP_ID, SLUG, INSTALLATION = 4242, "agentium", 77
REPO, MAINTAINER = "octo/iniconfig", "maintainer"
LLM_KEY = "e2e-anthropic-key"
QUEUE = "agentium-e2e"


def iniconfig_files() -> dict[str, str]:
    """The small real repository the bot works on, as path -> text."""
    files: dict[str, str] = {}
    with tarfile.open(INICONFIG) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                files[member.name.partition("/")[2]] = handle.read().decode("utf-8", "replace")
    return files


@dataclass
class Harness:
    root: Path
    workers: int = 1
    redis_server: EmbeddedRedis | None = None
    github: FakeGitHub | None = None
    llm: FakeAnthropic | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    port: int = 0
    extra_files: dict[str, str] = field(default_factory=dict)  # added to the repository
    settings: dict[str, str] = field(default_factory=dict)  # more environment, every process
    settings_file: str | None = OFFLINE_SETTINGS  # the repository's SETTINGS, unless extra_files
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=10))  # deliveries

    # starting and stopping

    def start(self) -> Harness:
        if self.http.is_closed:  # started again after a stop
            self.http = httpx.Client(timeout=10)
        self.redis_server = EmbeddedRedis(data_dir=self.root / "redis").start()
        keys = app_key_pair()
        self.github = FakeGitHub(
            app_id=APP_ID, public_key_pem=keys.public_pem, clock=SystemClock(), root=self.root
        ).start()
        self.github.add_installation(INSTALLATION)
        settings = {SETTINGS: self.settings_file} if self.settings_file else {}
        self.github.add_repo(REPO, files=iniconfig_files() | settings | self.extra_files)
        share_environments(self.root / "data")
        self.github.set_role(REPO, MAINTAINER, "admin")
        self.llm = FakeAnthropic(api_key=LLM_KEY).start()
        self.llm.task_of = issue_of  # requests in flight are counted per issue
        self.port = free_port()
        self.start_process("web", ["web"])
        for index in range(self.workers):
            self.start_worker(f"worker{index}")
        wait_until(lambda: port_open(self.port), 20, "the web process to listen")
        return self

    def env(self) -> dict[str, str]:
        assert self.redis_server and self.github and self.llm
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "HOME", "TMPDIR")}
        return (
            keep
            | {
                "PYTHONPATH": str(ROOT),
                "REDIS_URL": self.redis_server.url,
                "WEBHOOK_SECRET": SECRET,
                "APP_ID": str(APP_ID),  # APP_SLUG unset: the workers ask the fake GitHub
                "PRIVATE_KEY": app_key_pair().private_pem.replace("\n", "\\n"),
                "GITHUB_API_URL": self.github.url,
                "GITHUB_WRITE_INTERVAL_S": "0.05",
                "ANTHROPIC_API_KEY": LLM_KEY,
                "ANTHROPIC_BASE_URL": self.llm.base_url,
                "PORT": str(self.port),
                "DATA_DIR": str(self.root / "data"),
                "QUEUE_NAME": QUEUE,
            }
            | self.settings
        )

    def start_process(
        self, name: str, args: list[str], env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        log = (self.root / f"{name}.log").open("ab")
        process = self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "workers.processes.cli", *args],
            cwd=self.root, env=self.env() | (env or {}), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: kill() takes its work-horse too
            preexec_fn=die_with_parent(),  # no worker outlives a killed test run
        )  # fmt: skip
        return process

    def start_worker(self, name: str) -> None:
        self.start_process(name, ["worker"])

    def kill(self, name: str) -> None:
        """SIGKILL a process and all its descendants (a worker and its work-horse, which
        RQ puts in a process group of its own), all at once, as a machine dying would."""
        process = self.processes.pop(name)
        for pid in [process.pid, *descendants(process.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()
        for server in (self.llm, self.github, self.redis_server):
            if server is not None:
                server.stop()
        self.http.close()

    def __enter__(self) -> Harness:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # driving a task

    def script(self, scenario: Path, subtask_delay_s: float = 0.0) -> ScriptedModel:
        assert self.llm is not None
        model = ScriptedModel(scenario, subtask_delay_s)
        self.llm.script.clear()  # answers left from an earlier task
        self.llm.push(*[model] * 400)
        return model

    def open_issue(self, number: int, title: str, body: str) -> None:
        assert self.github is not None
        self.github.add_issue(REPO, number, title, body)

    def label(
        self, number: int, label: str = "agentium", user: str = MAINTAINER, action: str = "labeled"
    ) -> httpx.Response:
        data = payload("issues", "labeled")
        data["action"] = action
        data["label"]["name"] = label
        data["sender"] = {**data["sender"], "login": user, "type": "User"}
        return self.deliver("issues", self._about(data, number))

    def review(
        self, number: int, pr: int, body: str, state: str = "changes_requested"
    ) -> httpx.Response:
        data = payload("pull_request_review", "submitted")
        data["review"] = {**data["review"], "body": body, "state": state, "id": 9001}
        data["pull_request"] = {**data["pull_request"], "number": pr}
        data["sender"] = {**data["sender"], "login": MAINTAINER, "type": "User"}
        data = self._about({**data, "issue": {}}, number)
        del data["issue"]
        return self.deliver("pull_request_review", data)

    def comment(self, number: int, body: str, user: str = MAINTAINER) -> httpx.Response:
        data = payload("issue_comment", "created.1")
        data["comment"] = {**data["comment"], "body": body, "id": int(time.time() * 1000)}
        data["sender"] = {**data["sender"], "login": user, "type": "User"}
        return self.deliver("issue_comment", self._about(data, number))

    def _about(self, data: dict[str, Any], number: int) -> dict[str, Any]:
        assert self.github is not None
        issue = self.github.repo(REPO).issues[number]
        data["issue"] = {**data["issue"], "number": number, "title": issue["title"],
                         "body": issue["body"], "labels": [], "pull_request": None}  # fmt: skip
        repository = {"full_name": REPO, "name": "iniconfig", "default_branch": "main"}
        data["repository"] = {**data["repository"], **repository}
        data["installation"] = {"id": INSTALLATION, "node_id": "MDIz"}
        return data

    def deliver(self, event: str, data: dict[str, Any]) -> httpx.Response:
        body = encode(data)
        headers = delivery_headers(event, body, secret=SECRET, delivery=str(uuid.uuid4()))
        url = f"http://127.0.0.1:{self.port}/api/github/webhooks"
        return self.http.post(url, content=body, headers=headers)

    @contextlib.contextmanager
    def _client(self) -> Iterator[redis.Redis]:
        assert self.redis_server is not None
        client = redis.Redis.from_url(self.redis_server.url)
        try:
            yield client
        finally:
            client.close()

    @contextlib.contextmanager
    def _store(self) -> Iterator[TaskStore]:
        with self._client() as client:
            yield TaskStore(client)

    def record(self, number: int) -> TaskRecord | None:
        with self._store() as store:
            return store.get(task_key(REPO, number))

    def inbox(self, number: int) -> list[InboxItem]:
        """What waits for the task's next step (commands, cancels, reviews)."""
        with self._store() as store:
            return store.inbox(task_key(REPO, number))

    def wait_finished(self, number: int, timeout: float = 120) -> TaskRecord:
        def finished(record: TaskRecord) -> bool:
            return record.status is not TaskStatus.ACTIVE or record.workflow.paused is not None

        return self.wait_for(number, finished, timeout, "to finish")

    def wait_for(
        self, number: int, test: Callable[[TaskRecord], bool], timeout: float, what: str
    ) -> TaskRecord:
        def holds() -> bool:
            record = self.record(number)
            return record is not None and test(record)

        def explain() -> str:
            return f"{self.task_state(number)}\n{self.logs()}"

        wait_until(holds, timeout, f"task #{number} {what}", explain)
        record = self.record(number)
        assert record is not None
        return record

    def task_state(self, number: int) -> str:
        """Where the task stands in Redis (tests/e2e/taskstate.py)."""
        with self._client() as client:
            return describe(client, QUEUE, task_key(REPO, number))

    def failed_jobs(self) -> list[str]:
        """Every RQ job that failed (its id and the last line of its error)."""
        with self._client() as client:
            queue = Queue(QUEUE, connection=client)
            found = []
            for job_id in FailedJobRegistry(queue=queue).get_job_ids():
                job = queue.fetch_job(job_id)
                found.append(f"{job_id}: {last_error(job) if job is not None else '?'}")
            return found

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}"
            for p in sorted(self.root.glob("*.log"))
        )

    def timeline(self, number: int) -> list[str]:
        """What a person sees on GitHub: comments on the issue and the PR, in order."""
        assert self.github is not None
        repo = self.github.repo(REPO)
        entries = []
        for comment in sorted(repo.comments.values(), key=lambda c: c.id):
            where = "issue" if comment.number == number else f"PR #{comment.number}"
            entries.append(f"[{where}] {comment.author}: {_first_line(comment.body)}")
        return entries


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, read from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def _first_line(body: str) -> str:
    lines = [line for line in body.splitlines() if line.strip() and not line.startswith("<!--")]
    return lines[0][:120] if lines else ""


def wait_until(
    predicate: Callable[[], bool],
    timeout: float,
    what: str,
    explain: Callable[[], str] | None = None,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    detail = f"\n{explain()}" if explain else ""
    raise TimeoutError(f"timed out waiting for {what}{detail}")


def dump(value: object) -> str:
    return json.dumps(value, indent=2, default=str)
