"""The trixie tree as a pytest fixture: built (once, cached) or skipped with the reason."""

import pytest

from lab.vmlab import trixie_tree


@pytest.fixture(scope="session")
def trixie():
    """The path of the trixie tree (lab/vmlab/trixie_tree.py); built on first use."""
    try:
        return trixie_tree.ensure_tree()
    except trixie_tree.TreeUnavailable as error:
        pytest.skip("no trixie tree (NetworkManager 1.52): %s" % error)
