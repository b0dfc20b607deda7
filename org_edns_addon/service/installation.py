"""The module's task: stage the encrypted DNS configuration below a root.

One task class for both phases, as Anaconda's certificate import does: the
installer environment (root ``/``) and the installed system
(``conf.target.system_root``). ``run()`` only calls the pure staging function.
"""

from pyanaconda.modules.common.task import Task

from org_edns_addon.module_state import stage_parsed_kickstart


class StageEncryptedDnsTask(Task):
    """Write the encrypted DNS configuration below ROOT for PHASE and run its actions."""

    def __init__(self, parsed, phase, root, import_certificates=True, runner=None):
        """PARSED is the checked ``ParsedKickstart`` of the module's state, PHASE a
        ``staging.Phase``; with IMPORT_CERTIFICATES False, Anaconda's Security
        module writes the ``%certificate`` files and only the DoT bundle and the
        dracut items are staged from them."""
        super().__init__()
        self._parsed = parsed
        self._phase = phase
        self._root = root
        self._import_certificates = import_certificates
        self._runner = runner

    @property
    def name(self):
        return "Configure encrypted DNS (%s)" % self._phase.value

    def run(self):
        """Stage; return the ``ApplyReport`` (what was written and run)."""
        return stage_parsed_kickstart(self._parsed, self._phase, self._root,
                                      import_certificates=self._import_certificates,
                                      runner=self._runner)
