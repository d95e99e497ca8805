"""Prompt templates in ``config/prompts/``, rendered with undefined variables as errors.

The signal formats the templates show come from :mod:`workers.controller.signals` (the
same constants the parser uses), passed in as variables; a template never spells them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

import config
from workers.controller import signals
from workers.controller.phases import ASSESSOR_VERDICTS, JUDGE_VERDICTS

DEFAULT_DIRECTORY = Path(config.__file__).parent / "prompts"


def signal_formats() -> dict[str, str]:
    """The format instructions every template may use."""
    return {
        "verdict_instruction": signals.verdict_instruction(JUDGE_VERDICTS),
        "assessment_instruction": signals.verdict_instruction(ASSESSOR_VERDICTS),
        "status_instruction": signals.status_instruction(),
        "memory_instruction": signals.memory_instruction(),
        "doctor_instruction": signals.doctor_instruction(),
        "scope_cut_instruction": signals.scope_cut_instruction(),
    }


class Prompts:
    """Renders ``<name>.md``; a missing variable raises ``jinja2.UndefinedError``."""

    def __init__(self, directory: Path = DEFAULT_DIRECTORY) -> None:
        self.environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader(directory),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,  # noqa: S701 (markdown prompts for a model, not HTML)
        )
        self.formats = signal_formats()

    def compile_all(self) -> list[str]:
        """Compile every template now; a template that does not compile raises here.

        A worker does this once before it forks a work-horse per job, so no job compiles
        a template again (and a broken prompt stops the worker at start, not a task)."""
        names = self.environment.list_templates(filter_func=lambda name: name.endswith(".md"))
        for name in names:
            self.environment.get_template(name)
        return names

    def render(self, name: str, **values: Any) -> str:
        template = self.environment.get_template(f"{name}.md")
        return template.render(**self.formats, **values).strip() + "\n"
