"""The dashboard's HTML: what it lists, the task page, escaping, paging, the fragments."""

from __future__ import annotations

import re

import redis
from markupsafe import escape
from starlette.testclient import TestClient

from tests.dashboard.conftest import TOKEN, MakeClient
from tests.dashboard.stored import (
    HOSTILE_EXCERPT,
    HOSTILE_TITLE,
    finished,
    record,
    store,
    store_examples,
)
from tests.support import SECRET
from workers.agents.environment import EnvironmentOutcome
from workers.github.marks import TaskMarks


def rows(html: str) -> list[str]:
    return re.findall(r"<tr class=\"task[^\"]*\" data-task=\"([^\"]+)\"", html)


def test_the_list_shows_each_task_newest_first(
    redis_client: redis.Redis, local: TestClient
) -> None:
    store_examples(redis_client)
    page = local.get("/tasks")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert rows(html) == ["octo-org/gadgets#7", "octo-org/widgets#31", "octo-org/widgets#22"]
    active = html.split('data-task="octo-org/gadgets#7"')[1].split("</tr>")[0]
    for shown in (
        "Octo-Org/Gadgets", 'href="/tasks/Octo-Org/Gadgets/7"', "#7",
        'href="https://github.com/Octo-Org/Gadgets/issues/7"', "IMPLEMENT", "2/5", "COMPLEX",
        "ITERATE", 'href="https://github.com/Octo-Org/Gadgets/pull/9"', "$1.25", "5m", "active",
    ):  # fmt: skip
        assert shown in active, shown
    nomerge = html.split('data-task="octo-org/widgets#22"')[1].split("</tr>")[0]
    assert "COMPLETE" in nomerge and "NOMERGE" in nomerge and "3h" in nomerge
    blocked = html.split('data-task="octo-org/widgets#31"')[1].split("</tr>")[0]
    assert "BLOCKED" in blocked and "$" in blocked


def test_untrusted_text_is_escaped(redis_client: redis.Redis, local: TestClient) -> None:
    store_examples(redis_client)
    listing, task = local.get("/tasks").text, local.get("/tasks/octo-org/gadgets/7").text
    for html in (listing, task):
        assert HOSTILE_TITLE not in html and "<script>alert" not in html
        assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold" in html
    assert HOSTILE_EXCERPT not in task and "&lt;img src=x onerror=alert(1)&gt;" in task


def test_the_task_page_shows_the_timeline_and_links(
    redis_client: redis.Redis, local: TestClient
) -> None:
    store_examples(redis_client)
    state = finished("issue-22-simple")
    page = local.get("/tasks/octo-org/widgets/22")
    assert page.status_code == 200
    html = page.text
    steps = re.findall(r'<li class="step role-(\w+)">', html)
    assert steps == [step.role.value for step in state.history]
    for step in state.history:
        assert escape(step.summary) in html
    assert "iteration 2/2" in html and "ITERATE" in html and "ADVANCE" in html
    assert "2025-01-01 00:01:00 UTC" in html
    assert 'href="https://github.com/octo-org/widgets/pull/150"' in html
    assert 'href="https://github.com/octo-org/widgets/pull/150#issuecomment-901"' in html
    assert 'href="https://github.com/octo-org/widgets/issues/22#issuecomment-801"' in html
    assert "max_iterations" in html and "NOMERGE" in html and "0123456789ab" in html
    assert "Add a --verbose flag" in html


def test_the_task_page_shows_spend_by_model(redis_client: redis.Redis, local: TestClient) -> None:
    store_examples(redis_client)
    html = local.get("/tasks/Octo-Org/Gadgets/7").text  # any case, like GitHub
    assert "claude-sonnet" in html and "claude-opus" in html and "12,000" in html
    assert "$1.25" in html and "$0.75" in html


def test_unknown_task_is_404(local: TestClient) -> None:
    page = local.get("/tasks/nobody/nothing/1")
    assert page.status_code == 404 and "No task for nobody/nothing#1" in page.text


def test_only_web_links_are_rendered(redis_client: redis.Redis, local: TestClient) -> None:
    store(redis_client, record("a/b", 1, finished("nothing-to-do")))
    TaskMarks(redis_client, "a/b#1").set("pr:url", "javascript:alert(1)")
    TaskMarks(redis_client, "a/b#1").set("comment:1:status", "5 javascript:alert(1)")
    assert "javascript:" not in local.get("/tasks/a/b/1").text


def test_pages_of_fifty(redis_client: redis.Redis, local: TestClient) -> None:
    state = finished("nothing-to-do")
    store(redis_client, *(record("a/b", n, state) for n in range(1, 52)))
    first = local.get("/tasks").text
    assert len(rows(first)) == 50 and rows(first)[0] == "a/b#51" and "page 1 of 2" in first
    assert 'href="/tasks?page=2"' in first
    second = local.get("/tasks?page=2").text
    assert rows(second) == ["a/b#1"] and 'href="/tasks?page=1"' in second
    assert rows(local.get("/tasks?page=99").text) == ["a/b#1"]  # past the end: the last page
    assert len(rows(local.get("/tasks?page=-3").text)) == 50


def test_fragments_hold_only_the_part_that_refreshes(
    redis_client: redis.Redis, local: TestClient
) -> None:
    store_examples(redis_client)
    body = local.get("/tasks?fragment=1").text
    assert "<html" not in body and "<table" not in body and len(rows(body)) == 3
    task = local.get("/tasks/octo-org/widgets/22?fragment=1").text
    assert "<html" not in task and "Timeline" in task


def test_empty_list_says_so(local: TestClient) -> None:
    assert "No tasks yet" in local.get("/tasks").text


def test_the_page_loads_its_script_and_style_from_here(local: TestClient) -> None:
    page = local.get("/tasks")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    scripts = re.findall(r'<(?:script src|link rel="stylesheet" href)="([^"]+)"', page.text)
    assert scripts and all(s.startswith("/dashboard/static/") for s in scripts)
    script = local.get("/dashboard/static/dashboard.js")
    assert script.status_code == 200 and "fragment" in script.text and "5000" in script.text
    assert local.get("/dashboard/static/dashboard.css").status_code == 200
    assert local.get("/dashboard/static/secrets.txt").status_code == 404


def test_no_secret_is_shown(redis_client: redis.Redis, make_client: MakeClient) -> None:
    store_examples(redis_client)
    client = make_client(token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for path in ("/tasks", "/tasks/octo-org/widgets/22", "/metrics"):
        text = client.get(path, headers=auth).text
        assert TOKEN not in text and SECRET not in text


def test_the_task_page_shows_the_environment_step(
    redis_client: redis.Redis, local: TestClient
) -> None:
    failed = EnvironmentOutcome(
        ok=False, command="python -m pip install -e '.[test]'", source="detected: python",
        seconds=12.34, exit_code=1, tail="ERROR: <b>No matching distribution</b>",
        network=True, kinds=("python",),
    )  # fmt: skip
    good = failed.model_copy(update={"ok": True, "cached": True, "exit_code": 0, "tail": ""})
    store(
        redis_client,
        record("a/b", 1, finished("nothing-to-do"), environment=failed),
        record("a/b", 2, finished("nothing-to-do"), environment=good),
        record("a/b", 3, finished("nothing-to-do")),
    )
    html = local.get("/tasks/a/b/1").text
    assert "failed (exit code 1) in 12.3 s" in html
    assert "python -m pip install -e &#39;.[test]&#39;" in html and "detected: python" in html
    assert "ERROR: &lt;b&gt;No matching distribution&lt;/b&gt;" in html  # escaped
    page = local.get("/tasks/a/b/2").text
    assert "ok in 12.3 s" in page and "from the worker's cache" in page
    assert "The end of its log" not in page
    assert "<dt>Environment</dt>" not in local.get("/tasks/a/b/3").text


def test_the_task_page_shows_the_recovery_ladder(
    redis_client: redis.Redis, local: TestClient
) -> None:
    store(
        redis_client,
        record("a/b", 4, finished("scope-reduced")),
        record("a/b", 5, finished("nothing-to-do")),
    )
    html = local.get("/tasks/a/b/4").text
    section = html.split("<h2>Recovery</h2>")[1].split("<h2>")[0]
    assert "Goal anchor:" in section and "import and export contacts as vCard." in section
    steps = section.split('<ol class="recovery">')[1].split("</ol>")[0]
    assert re.findall(r"<code>(\w+)</code>", steps) == [
        "escalate_model",
        "replan",
        "reduce_scope",
    ]
    assert "0 of 10 doctor calls" in section and "1 of 5 replans" in section
    assert "worker escalated in IMPLEMENT" in section
    assert "Left out (scope reduced): photos in exported vCards" in section
    assert "<h2>Recovery</h2>" not in local.get("/tasks/a/b/5").text
