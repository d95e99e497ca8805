"""What the harness's end-to-end tests give ``agentium eval``: a worker harness whose
sandbox also shows this interpreter (the offline setup's pytest, tests/interpreter.py),
and a scripted model that makes the reference fix."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from config.settings import Settings
from tests.e2e.model import ScriptedModel
from tests.e2e.multitask import TaskRouter
from tests.fakes.anthropic import FakeAnthropic, Reply, tool_uses
from tests.interpreter import offline_setup_command, python_paths
from workers.agents.prompts import Prompts
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import open_sandbox
from workers.eval.grade import patched_files
from workers.eval.instance import Instance, Suite
from workers.eval.run import Harness
from workers.eval.source import apply_patch, materialise
from workers.gitops.runner import Git
from workers.offline.scenario import ScriptStep
from workers.repoconfig import EffectiveConfig
from workers.runtime import anthropic_adapter

HARNESS = "tests.eval.support:harness"
SCENARIOS = Path(__file__).parent.parent / "scenarios"
# (instance, what the scripted worker does, the scenario the agents answer from)
PLAN = [("iniconfig-section-len", "fix", "issue-42-complex.yml"),
        ("iniconfig-utf8-bom", "notes", "issue-42-complex.yml"),
        ("iniconfig-inline-comments", "fix", "issue-22-simple.yml")]  # fmt: skip


def harness(settings: Settings) -> Harness:
    """The real agents (Anthropic adapter at ANTHROPIC_BASE_URL), as build_harness makes
    them, in a sandbox that can also read this interpreter's directories."""

    def runner_for(config: EffectiveConfig) -> AgentRunner:
        agents = config.agents
        sandbox = open_sandbox(
            agents.sandbox,
            unsafe=settings.agentium_unsafe_no_sandbox,
            hidden=[settings.data_dir.resolve()],
            readable=python_paths(agents.sandbox),
        )
        deps = AgentDeps(
            adapters={"anthropic": anthropic_adapter(settings, agents)},
            routing=config.routing,
            sandbox=sandbox,
            prompts=Prompts(),
            settings=agents,
            clock=time.monotonic,
        )
        return AgentRunner(deps)

    return Harness(settings, runner_for)


def reference_files(instance: Instance) -> dict[str, str]:
    """The files the reference fix changes, as they are after it."""
    with tempfile.TemporaryDirectory(prefix="agentium-reference-") as folder:
        place = Path(folder)
        (place / "home").mkdir()
        git = Git(place / "home")
        root = materialise(instance, place / "source", git)
        apply_patch(root, git, instance.patch, place / "fix.patch")
        return {name: (root / name).read_text() for name in patched_files(instance.patch)}


class FixingModel(ScriptedModel):
    """The scenario's answers; its first worker edit writes the reference fix."""

    def __init__(self, scenario: Path, files: dict[str, str]) -> None:
        super().__init__(scenario)
        self.files = files

    def edit(self, step: ScriptStep) -> Reply:
        if self.edits > 1:
            return super().edit(step)
        calls = [("write_file", {"path": p, "content": c}) for p, c in self.files.items()]
        return tool_uses(calls)


Plan = list[tuple[str, str, str]]  # (instance, "fix" or "notes", scenario file)


def scripted_suite(
    suite: Suite, llm: FakeAnthropic, folder: Path, plan: Plan = PLAN
) -> tuple[Path, TaskRouter]:
    """The plan's instances, set up offline, in a suite file; the fake answers each
    (instance N is issue #N in the prompts) from its scenario, with the reference fix
    ("fix") or notes that change no code ("notes")."""
    router = TaskRouter()
    lines = []
    for number, (name, kind, scenario) in enumerate(plan, start=1):
        found = next(i for i in suite.instances if i.instance_id == name)
        setup = offline_setup_command(plugins=False)
        instance = found.model_copy(update={"setup_command": setup})
        lines.append(instance.model_dump_json(by_alias=True))
        path = SCENARIOS / scenario
        fixing = kind == "fix"
        model = FixingModel(path, reference_files(instance)) if fixing else ScriptedModel(path)
        router.models[number] = model
    llm.push(*[router] * (100 * len(plan)))
    suite_file = folder / "corpus-repos-scripted.jsonl"
    suite_file.write_text("\n".join(lines) + "\n")
    return suite_file, router
