"""Where each key of a YAML document is: the line numbers that error messages cite."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import yaml

Key = tuple[str, ...]


@dataclass
class KeyLines:
    """Line (1-based) of every key and list item, and the keys written twice."""

    lines: dict[Key, int] = field(default_factory=dict)
    duplicates: list[tuple[Key, int]] = field(default_factory=list)

    def line_of(self, loc: Sequence[object]) -> int | None:
        """The line of ``loc``, or of its nearest ancestor that is in the file."""
        key = tuple(str(part) for part in loc)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get(())


def key_lines(root: yaml.Node) -> KeyLines:
    """Walk the composed document; an aliased node is visited once (no alias blow-up)."""
    found = KeyLines(lines={(): _line(root)})
    seen: set[int] = set()
    stack: list[tuple[Key, yaml.Node]] = [((), root)]
    while stack:
        where, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for key, child, line in _children(node):
            path = (*where, key)
            if path in found.lines:
                found.duplicates.append((path, line))
                continue
            found.lines[path] = line
            stack.append((path, child))
    return found


def _children(node: yaml.Node) -> list[tuple[str, yaml.Node, int]]:
    if isinstance(node, yaml.MappingNode):
        return [
            (str(k.value), v, _line(k)) for k, v in node.value if isinstance(k, yaml.ScalarNode)
        ]
    if isinstance(node, yaml.SequenceNode):
        return [(str(i), item, _line(item)) for i, item in enumerate(node.value)]
    return []


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
