"""The module's task: stage the encrypted DNS configuration below a root.

One task class for both phases, as Anaconda's certificate import does: the
installer environment (root ``/``) and the installed system
(``conf.target.system_root``). ``run()`` only calls the pure staging function.
"""

from pyanaconda.modules.common.task import Task

from org_edns_addon.module_state import stage_parsed_kickstart


class StageEncryptedDnsTask(Task):
    """Write the encrypted DNS configuration below ROOT for PHASE and run its actions."""

    def __init__(self, parsed, phase, root, written_certificates=None, runner=None):
        """PARSED is the checked ``ParsedKickstart`` of the module's state, PHASE a
        ``staging.Phase``; WRITTEN_CERTIFICATES the ``--filename``s of the
        ``%certificate`` sections to write (None: all), as the others are written by
        Anaconda's Security module: of those only the DoT bundle is staged."""
        super().__init__()
        self._parsed = parsed
        self._phase = phase
        self._root = root
        self._written_certificates = written_certificates
        self._runner = runner

    @property
    def name(self):
        return "Configure encrypted DNS (%s)" % self._phase.value

    def run(self):
        """Stage; return the ``ApplyReport`` (what was written and run)."""
        return stage_parsed_kickstart(self._parsed, self._phase, self._root,
                                      written_certificates=self._written_certificates,
                                      runner=self._runner)
