"""pytest set-up of the interpreter's differential tests: `harness` is importable, and the
`stats` fixture counts the compared cases (printed at the end of the run)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

_COUNTS = {}


@pytest.fixture
def stats():
    def record(label, n):
        _COUNTS[label] = _COUNTS.get(label, 0) + n

    return record


def pytest_terminal_summary(terminalreporter):
    if _COUNTS:
        total = sum(_COUNTS.values())
        from harness import ELEMENTS

        terminalreporter.write_line(
            f"interpreter vs numpy: {total} cases ({ELEMENTS[0]} tensor elements) compared in {len(_COUNTS)} groups"
        )
