"""The ``terminal`` fixture: the text UI in a real terminal (``lab.terminal``)."""

import pytest

from lab.terminal import TmuxTerminal


@pytest.fixture
def terminal(tmp_path):
    term = TmuxTerminal(tmp_path)
    yield term
    term.close()
