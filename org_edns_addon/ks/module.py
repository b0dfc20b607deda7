"""The kickstart part the Anaconda module receives, as a checked ``ParsedKickstart``.

Anaconda's boss hands the module only the sections it claims. The module's
own parser (Anaconda's ``KickstartSpecificationParser``) fills pykickstart
data objects; here they become the same ``ParsedKickstart`` the command line
builds, so the same rules (``check_rules``) run on them and the same staging
input comes out of them.
"""

from pykickstart.errors import KickstartParseError
from pykickstart.sections import CertificateSection

from org_edns_addon.constants import ADDON_SECTION_OPEN, SECTION_OPEN
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.ks.parse import (KickstartCertificate, ParsedKickstart, SectionPlace,
                                     check_rules)

# Problems found in the module's part carry no file name: the boss adds the
# name of the file the section came from.
MODULE_PART = "<kickstart>"


class LineTrackingCertificateSection(CertificateSection):
    """pykickstart's ``%certificate``, noting on each ``Certificate`` its header line."""

    def handleHeader(self, lineno, args):
        self.header_lineno = lineno
        super().handleHeader(lineno, args)

    def finalize(self):
        before = len(self.handler.certificates)
        try:
            super().finalize()
        except KickstartParseError as error:
            if error.lineno is None:
                raise KickstartParseError(error.message, lineno=self.header_lineno) from None
            raise
        for certificate in self.handler.certificates[before:]:
            certificate.lineno = self.header_lineno


def parsed_kickstart(addon, section, certificates, now=None):
    """Check the ``%addon org_edns_addon`` data ADDON, the ``%edns`` data SECTION and
    the pykickstart ``Certificate`` objects CERTIFICATES together.

    Without either spelling of our section the result is unchecked and has no
    problems: then the certificates belong to Anaconda's Security module alone.
    """
    seen = [(data, spelling) for data, spelling in ((addon, ADDON_SECTION_OPEN),
                                                    (section, SECTION_OPEN))
            if data is not None and data.seen]
    edns = seen[0][0] if seen else EdnsData()
    places = [SectionPlace(MODULE_PART, data.header_lineno, spelling) for data, spelling in seen]
    tracked = [KickstartCertificate(certificate, SectionPlace(
        MODULE_PART, getattr(certificate, "lineno", None), "%certificate"))
        for certificate in certificates]
    result = ParsedKickstart(MODULE_PART, None, edns, places, tracked, [])
    if seen:
        check_rules(result, now)
    return result


def parsed_configuration(config, certificates, now=None):
    """A checked ``ParsedKickstart`` of CONFIG (an ``EdnsConfig`` set over D-Bus or
    read earlier) with the ``Certificate`` objects CERTIFICATES."""
    data = EdnsData()
    data.set_config(config)
    return parsed_kickstart(data, None, certificates, now)
