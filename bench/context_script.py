"""The scripted model turns of ``bench.context``: what each agent answers, per call.

The texts are sized like real ones: an issue of ~1.5 KB, a plan with three tasks, reviews
of ~1 KB with numbered items, judges of a few sentences, workers that read a file, write
one, run a command and report.
"""

from __future__ import annotations

from tests.fakes.anthropic import Reply, text, tool_use
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase, Role

ISSUE_TITLE = "Support `in` and a typed `get_int` on sections"
ISSUE_BODY = """\
IniConfig sections behave like read-only mappings, but two things are missing.

1. `"name" in config["section"]` does not work: SectionWrapper has no `__contains__`, so
   Python falls back to iterating, which works by accident and is slow on large sections.
   Please add `__contains__` (a missing section must answer False, not raise).
2. Reading integers is repetitive: `int(config.get("section", "port", "0"))` everywhere.
   Please add `SectionWrapper.get_int(key, default=None)` that converts with `int()` and
   raises ParseError with the line number when the value is not an integer.

Both need tests in `testing/`, and the README should show them. Keep the public API of
IniConfig otherwise unchanged; the library supports Python 3.8+, so no match statements
and no `X | Y` annotations evaluated at runtime.

Context: we parse ~200 small ini files at start-up in a CLI tool and these two helpers
would remove a lot of boilerplate. Happy to review a PR.

<!-- internal note: priority low -->
"""

PLAN = """\
Add two small helpers to `SectionWrapper` in `src/iniconfig/__init__.py`, with tests in
`testing/test_iniconfig.py` and an example in the README. No change to `IniConfig` itself,
no new dependency, Python 3.8 compatible (annotations stay strings under
`from __future__ import annotations`, which the module already uses).

### Task 1: `SectionWrapper.__contains__`
- `src/iniconfig/__init__.py`: add `__contains__(self, key: object) -> bool` after
  `__getitem__`. Look the key up in `self.config.sections.get(self.name, {})`, so a missing
  section answers False instead of raising `KeyError`; a non-string key answers False.
- `testing/test_iniconfig.py`: tests for a present key, a missing key, a key of a missing
  section, and a non-string key. Reuse the `config` fixture style of the existing tests
  (an `IniConfig("x", data=...)` built in the test).
- Run: `python -m pytest testing -q`.

### Task 2: `SectionWrapper.get_int`
- `src/iniconfig/__init__.py`: add `get_int(self, key: str, default: int | None = None)`
  returning `int | None`. Missing key: the default. Present key: `int(value)`; on
  `ValueError` raise `ParseError(self.config.path, lineno, message)` where `lineno` comes
  from `self.lineof(key)` and the message names the section, the key and the bad value.
  Catch `ValueError` only.
- Tests: a valid integer, a negative one, surrounding spaces, the default for a missing
  key, and a bad value (the error's `lineno` and message are checked).
- Type-check with the repository's mypy settings if mypy is available (`strict = true`).

### Task 3: documentation
- `README.rst`: a short example of both helpers in the usage section, and a line in
  `CHANGELOG` under a new unreleased heading.

Risks: `ParseError`'s constructor takes `(path, lineno, msg)` with a 0-based line number;
check `lineof()`'s base before using it. Out of scope: other typed getters (float, bool),
changes to the parser, and `IniConfig.get` conversions.
"""

REVIEWS = (
    """\
Overall the change goes in the right direction, but it is not done yet.

1. `get_int` converts with `int()` but catches every exception; catch ValueError only, so
   a TypeError from a bad default is not turned into a misleading ParseError.
2. The error message should name the section and the key as well as the line number.
3. There is no test for a missing section with `in`; add one next to the others.
4. The new helpers have no docstrings; the module documents every public method.
5. Scope: the change to `_parse.py` formatting is unrelated to the issue; revert it.
""",
    """\
Better: exceptions are handled correctly now and the missing-section test is there.

1. The error message still gives only the line number; name the section and the key.
2. The `_parse.py` formatting change is still in the diff; revert it.
3. The helpers still lack docstrings.
""",
    """\
Nearly there: the message and the scope are fixed, the tests pass.

1. `contains` and `get_int` have no docstrings; the module documents every public method.
""",
    """\
All earlier points are addressed, the tests pass and the diff stays within the issue.
No further changes needed.
""",
)

JUDGES = (
    "The error handling in get_int is wrong (it swallows TypeError) and tests are missing "
    "for a missing section.\nAGENTIUM_EVAL: ITERATE catch ValueError only; test a missing "
    "section",
    "Exceptions are fixed but the error message lacks the section and key, and the "
    "unrelated formatting change is still there.\nAGENTIUM_EVAL: ITERATE name section and "
    "key in the error; revert _parse.py",
    "Close: only docstrings are missing now, and they are required by the module's "
    "conventions.\nAGENTIUM_EVAL: ITERATE add docstrings to both helpers",
    "All points are addressed and the tests pass.\nAGENTIUM_EVAL: ADVANCE ready for docs",
)


DOCTOR = (
    "The judge asks for different things each time: the work progresses.\n"
    "AGENTIUM_DOCTOR: retry_with_fix answer every review item and run the tests before you finish"
)

HELPERS = '''"""Typed helpers for sections (revision {k})."""

from __future__ import annotations

from typing import Mapping, Optional


def contains(section: Mapping[str, str], key: object) -> bool:
    """Whether ``key`` is a name in ``section`` (non-string keys are never names)."""
    return isinstance(key, str) and key in section


def to_int(value: str, default: Optional[int] = None) -> Optional[int]:
    """``value`` as an integer; ValueError (caught by the caller) when it is not one."""
    return default if value == "" else int(value)
'''


def _worker(effect: RunAgent, k: int) -> list[Reply]:
    if effect.phase is Phase.PLAN:
        return [
            tool_use("list_files", {"path": ".", "depth": 2}),
            tool_use("read_file", {"path": "src/iniconfig/__init__.py", "end_line": 60}),
            text(PLAN + "\nAGENTIUM_MEMORY: KEY_FACT tests run with pytest from testing/"),
        ]
    target = "README.rst" if effect.phase is Phase.DOCS else "src/iniconfig/__init__.py"
    added = "src/iniconfig/_helpers.py" if effect.phase is Phase.IMPLEMENT else "NEWS.rst"
    content = HELPERS.format(k=k)
    return [
        tool_use("read_file", {"path": target, "start_line": 30, "end_line": 90}),
        tool_use("write_file", {"path": added, "content": content}),
        tool_use("run_command", {"command": "python -c 'import sys; print(sys.version)'"}),
        text(
            f"Step {k}: wrote {added}; checked with python. Feedback items: 1 addressed, "
            f"2 addressed, 3 partial (one test left).\nAGENTIUM_MEMORY: FILE_MODIFIED {added}"
        ),
    ]


def replies(effect: RunAgent, k: int) -> list[Reply]:
    """The answers of the ``k``-th agent run of the benchmark, for ``effect``."""
    if effect.role is Role.WORKER:
        return _worker(effect, k)
    if effect.role is Role.ASSESSOR:
        return [
            text("Two methods in one class plus docs, but several tests.\nAGENTIUM_EVAL: COMPLEX")
        ]
    if effect.role is Role.REVIEWER:
        return [text(REVIEWS[min(effect.iteration, len(REVIEWS)) - 1])]
    if effect.wave is not None:
        return [text("The wave does what its tasks ask.\nAGENTIUM_EVAL: ADVANCE next wave")]
    if effect.role is Role.DOCTOR:  # the recovery ladder, after two failed iterations
        return [text(DOCTOR)]
    if effect.role is Role.REPLANNER:
        return [text("Revise the helpers first, then the callers.")]
    if effect.phase is Phase.IMPLEMENT:
        return [text(JUDGES[min(effect.iteration, len(JUDGES)) - 1])]
    return [text("Good enough.\nAGENTIUM_EVAL: ADVANCE done")]
