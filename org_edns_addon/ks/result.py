"""What reading a kickstart gives: the section, the certificates and every problem."""

from dataclasses import dataclass, field
from typing import List, Optional

from org_edns_addon.certificates import CaCertificate
from org_edns_addon.constants import ADDON_SECTION_OPEN
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.model import Problem, SectionPlace, Severity, ValidationError


@dataclass
class ParsedKickstart:
    """What a kickstart says about encrypted DNS, and every problem found.

    ``certificates`` are the ``%certificate`` sections read without a problem;
    ``certificate_names`` every ``--filename`` given (so a ``--ca`` naming a
    refused certificate is not also called unknown). ``text`` is the file
    itself as it was read (None if unreadable): what rewrites start from,
    never a second read that may differ (a pipe, an edit).
    """
    filename: str
    edns: EdnsData
    edns_places: List[SectionPlace] = field(default_factory=list)
    certificates: List[CaCertificate] = field(default_factory=list)
    certificate_names: List[str] = field(default_factory=list)
    problems: List[Problem] = field(default_factory=list)
    text: Optional[str] = None
    handler: object = None

    @property
    def config(self):
        """The validated ``EdnsConfig``, or None without a section or with errors."""
        if not self.edns.seen or self.errors:
            return None
        return self.edns.to_config()

    @property
    def errors(self):
        return [p for p in self.problems if p.severity == Severity.ERROR]

    @property
    def warnings(self):
        return [p for p in self.problems if p.severity == Severity.WARNING]

    def staging_input(self):
        """The ``StagingInput`` of the kickstart. ``ValidationError`` if it has errors,
        ``ValueError`` if it has no encrypted DNS section."""
        from org_edns_addon.staging.plan import StagingInput
        if self.errors:
            raise ValidationError(self.errors, "%s has errors; fix them first" % self.filename)
        if self.config is None:
            raise ValueError("%s has no %s section; nothing to apply"
                             % (self.filename, ADDON_SECTION_OPEN))
        return StagingInput.of(self.config, self.certificates)
