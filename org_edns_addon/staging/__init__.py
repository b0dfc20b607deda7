"""From a validated configuration to files and actions below a root.

``plan`` turns a ``StagingInput`` into the files and actions of one phase,
from the renderers of what each peer reads (``networkmanager``, ``unbound``,
``dracut``); ``apply`` writes a plan below a root, atomically and with a
roll-back; ``actions`` runs what comes after the files (units, trust store,
NetworkManager reload). Every module trusts input validated at the edge.
"""


class StagingError(Exception):
    """Staging cannot go on; the message is a sentence for users."""
