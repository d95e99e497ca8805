"""The README's `.github/agentium.yml` example is valid and means what the README says."""

import re
from pathlib import Path

from workers.controller.phases import Path as WorkPath
from workers.controller.phases import Phase
from workers.repoconfig import load_repo_config_defaults, parse_repo_config

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_readme_example_parses() -> None:
    section = README.split("## Configuration per repository", 1)[1]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example, "no yaml example in the section"
    config = parse_repo_config(example.group(1), load_repo_config_defaults())
    assert config.trigger_label == "ai-task"
    assert config.limits.max_iterations(WorkPath.SIMPLE, Phase.IMPLEMENT) == 3
    assert config.limits.max_iterations(WorkPath.COMPLEX, Phase.PLAN) == 2
    assert config.test_command == "make test"
    assert config.setup_command == "pip install -r requirements-dev.txt"
    assert config.network_for_setup is True
    assert config.budget.max_dollars == 15
