"""Read a whole kickstart (with ``%include``) into a validated result.

pykickstart's own parser and handler do the reading, so every ordinary
command and section is understood exactly as ``ksvalidator`` understands it.
On top of it we keep what pykickstart forgets: which file and line every
section came from, so every problem can say ``FILE:LINE``. Problems are
collected, not raised: a user sees all of them in one run.
"""

import os
import warnings
from dataclasses import dataclass, field
from typing import List, Optional

from pykickstart.errors import KickstartError, KickstartWarning
from pykickstart.load import is_url
from pykickstart.parser import Certificate, KickstartParser
from pykickstart.sections import CertificateSection, Section
from pykickstart.version import makeVersion

from org_edns_addon import certificates as pem
from org_edns_addon.constants import ADDON_NAME, CERT_TYPE_ANCHOR, SECTION_OPEN
from org_edns_addon.ks.edns import EdnsData, EdnsSection, is_our_addon
from org_edns_addon.model import Problem, Severity

# Larger input is not a kickstart; refusing it keeps memory and time bounded.
MAX_KICKSTART_BYTES = 16 * 1024 * 1024


@dataclass
class SectionPlace:
    """Where a section was read: file, header line, and the spelling used."""
    filename: str
    lineno: int
    spelling: str = ""
    end_lineno: Optional[int] = None


@dataclass
class KickstartCertificate:
    """A pykickstart ``Certificate`` with where it was read and its parsed PEM blocks."""
    data: object
    place: SectionPlace
    blocks: List[pem.PemCertificate] = field(default_factory=list)

    @property
    def filename(self):
        return self.data.filename

    @property
    def is_anchor(self):
        return self.data.type == CERT_TYPE_ANCHOR


@dataclass
class ParsedKickstart:
    """What a kickstart says about encrypted DNS, and every problem found."""
    filename: str
    handler: object
    edns: EdnsData
    edns_places: List[SectionPlace]
    certificates: List[KickstartCertificate]
    problems: List[Problem]

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

    def ca_bundle_certificates(self):
        """The certificates of the DoT CA bundle (``--ca`` order), or [] without ``--ca``."""
        by_name = {c.filename: c for c in self.certificates}
        return [cert for name in self.edns.ca_names if name in by_name
                for cert in by_name[name].blocks]


class _Problems:
    def __init__(self):
        self.items = []

    def add(self, severity, message, filename, lineno):
        self.items.append(Problem(severity, message, lineno, filename))


class _TrackedCertificateSection(CertificateSection):
    """pykickstart's ``%certificate``, remembering file and line of each one."""
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self._place = None

    def handleHeader(self, lineno, args):
        self._place = None
        self._certificate.update({"cert": [], "filename": None, "dir": None, "type": None})
        super().handleHeader(lineno, args)
        self._place = SectionPlace(self._reader.current_file, lineno, "%certificate")

    def finalize(self):
        place = self._place
        lines = len(self._certificate["cert"])
        if place is None:
            # The header was refused (and reported); do not keep a nameless certificate.
            self._certificate["cert"] = []
            return
        place.end_lineno = place.lineno + lines + 1
        before = len(self.handler.certificates)
        try:
            super().finalize()
        except KickstartError as error:
            self._reader.problems.add(Severity.ERROR, "%s; paste the CA certificate between "
                                      "the %%certificate line and %%end" % error.message,
                                      place.filename, place.lineno)
            self._certificate["cert"] = []
            return
        for data in self.handler.certificates[before:]:
            self._reader.certificates.append(KickstartCertificate(data, place))


class _TrackedEdnsSection(EdnsSection):
    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader

    def handleHeader(self, lineno, args):
        self._reader.open_edns(SECTION_OPEN, lineno)
        super().handleHeader(lineno, args)

    def handleLine(self, line):
        self._reader.guard_line(lambda: super(_TrackedEdnsSection, self).handleLine(line),
                                lambda: self.line_number)

    def finalize(self):
        self._reader.close_edns(self.line_number + 1)
        super().finalize()


class _AddonSection(Section):
    """``%addon``: ours goes to ``handler.edns``; other addons are not our business."""
    sectionOpen = "%addon"
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self._ours = False
        self.line_number = None

    def handleHeader(self, lineno, args):
        super().handleHeader(lineno, args)
        self._ours = is_our_addon(args)
        self.line_number = lineno
        if self._ours:
            self._reader.open_edns("%addon " + ADDON_NAME, lineno)
            self.handler.edns.handle_header(args[2:], lineno)

    def handleLine(self, line):
        self.line_number += 1
        if self._ours:
            lineno = self.line_number
            self._reader.guard_line(lambda: self.handler.edns.handle_line(line, lineno),
                                    lambda: lineno)

    def finalize(self):
        super().finalize()
        if self._ours:
            self._reader.close_edns(self.line_number + 1)
            self.handler.edns.handle_end()
        self._ours = False


class KickstartReader(KickstartParser):
    """pykickstart's parser with file tracking and collected (not raised) problems."""

    def __init__(self, handler):
        super().__init__(handler, followIncludes=True, errorsAreFatal=False,
                         missingIncludeIsFatal=True, unknownSectionIsFatal=True)
        self.problems = _Problems()
        self.certificates = []
        self.edns_places = []
        self._files = []
        self._fail_place = None

    # pykickstart calls setupSections() from __init__, before our attributes exist.
    def setupSections(self):
        super().setupSections()
        self.registerSection(_TrackedCertificateSection(self.handler, self, dataObj=Certificate))
        self.registerSection(_TrackedEdnsSection(self.handler, self))
        self.registerSection(_AddonSection(self.handler, self))

    @property
    def current_file(self):
        return self._files[-1] if self._files else "<kickstart>"

    def open_edns(self, spelling, lineno):
        self.edns_places.append(SectionPlace(self.current_file, lineno, spelling))

    def close_edns(self, end_lineno):
        self.edns_places[-1].end_lineno = end_lineno

    def guard_line(self, handle, lineno):
        """Run a body-line handler; record its error and go on with the next line."""
        try:
            handle()
        except KickstartError as error:
            self.problems.add(Severity.ERROR, error.message, self.current_file,
                              error.lineno if error.lineno is not None else lineno())

    def _tryFunc(self, fn):
        try:
            fn()
        except KickstartError as error:
            self.errorsCount += 1
            self.problems.add(Severity.ERROR, _message(error), self.current_file, error.lineno)

    def readKickstart(self, f, reset=True):
        if reset:
            self._reset()
        if is_url(f):
            self.problems.add(Severity.WARNING, "%%include %s is a URL and is not followed "
                              "here; check that file separately" % f,
                              self.current_file, None)
            return
        if not os.path.isabs(f) and self._files:
            f = os.path.join(os.path.dirname(self._files[-1]), f)
        if f in self._files:
            raise KickstartError("%%include %s includes itself" % f)
        text = read_kickstart_text(f)
        self._files.append(f)
        try:
            self.readKickstartFromString(text, reset=False)
        except KickstartError as error:
            if getattr(error, "edns_file", None) is None:
                error.edns_file = f
            raise
        finally:
            self._files.pop()


def _message(error):
    return error.message if error.message else str(error)


class KickstartReadError(Exception):
    """The file cannot be read as a kickstart at all; the message says why."""

    def __init__(self, message, filename, lineno=None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno


def read_kickstart_text(path):
    """Read PATH as kickstart text; raise KickstartReadError with a sentence if it is not."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_KICKSTART_BYTES + 1)
    except OSError as error:
        raise KickstartReadError("cannot read the file: %s" % (error.strerror or error), path) \
            from None
    if len(data) > MAX_KICKSTART_BYTES:
        raise KickstartReadError("the file is larger than %d MiB; that is not a kickstart"
                                 % (MAX_KICKSTART_BYTES // (1024 * 1024)), path)
    if b"\0" in data:
        lineno = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise KickstartReadError("the file holds NUL bytes; it is binary, not a kickstart",
                                 path, lineno)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        lineno = data.count(b"\n", 0, error.start) + 1
        raise KickstartReadError("the file is not UTF-8 text (byte 0x%02x); save it as UTF-8"
                                 % data[error.start], path, lineno) from None


def make_handler():
    """A pykickstart handler of the newest syntax, with ``handler.edns``."""
    handler = makeVersion()
    handler.edns = EdnsData()
    return handler


def parse_kickstart(path, now=None):
    """Read the kickstart at PATH (following ``%include``) and check every rule."""
    handler = make_handler()
    reader = KickstartReader(handler)
    problems = reader.problems
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reader.readKickstart(path)
        except KickstartReadError as error:
            problems.add(Severity.ERROR, error.message, error.filename, error.lineno)
        except KickstartError as error:
            problems.add(Severity.ERROR, _message(error),
                         getattr(error, "edns_file", None) or path, error.lineno)
    for warning in caught:
        if issubclass(warning.category, KickstartWarning):
            problems.add(Severity.WARNING, str(warning.message), path, None)
    result = ParsedKickstart(path, handler, handler.edns, reader.edns_places,
                             reader.certificates, problems.items)
    check_rules(result, now)
    return result


def check_rules(result, now=None):
    """Add the cross-section rules of ARCHITECTURE.md to RESULT.problems."""
    def add(severity, message, place, lineno=None):
        result.problems.append(Problem(severity, message,
                                       lineno if lineno is not None else place.lineno,
                                       place.filename))

    places = result.edns_places
    for place in places[1:]:
        if place.spelling != places[0].spelling:
            message = ("both %s and %s are given; they are two spellings of the same "
                       "section, keep only %%addon %s" % (places[0].spelling, place.spelling,
                                                          ADDON_NAME))
        else:
            message = "a second %s section; only one may appear" % place.spelling
        add(Severity.ERROR, message + " (first on %s:%d)" % (places[0].filename,
                                                             places[0].lineno), place)
    for place in places:
        if place.spelling == SECTION_OPEN:
            add(Severity.WARNING, "stock Anaconda rejects a top-level %%edns (\"Unknown "
                "kickstart section\"); run 'edns-addon convert %s' to rewrite it as "
                "%%addon %s" % (place.filename, ADDON_NAME), place)

    _check_certificates(result, now, add)

    if not result.edns.seen:
        if not places:
            result.problems.append(Problem(
                Severity.WARNING, "no %%addon %s section; encrypted DNS is not configured"
                % ADDON_NAME, None, result.filename))
        return
    head = places[0]
    for problem in result.edns.to_config().problems():
        add(problem.severity, problem.message, head, problem.lineno)


def _check_certificates(result, now, add):
    names = {}
    for cert in result.certificates:
        place = cert.place
        if cert.filename in names:
            first = names[cert.filename].place
            add(Severity.ERROR, "a second %%certificate --filename=%s (first on %s:%d); give "
                "each certificate its own file name" % (cert.filename, first.filename,
                                                         first.lineno), place)
        else:
            names[cert.filename] = cert
        if os.sep in cert.filename or cert.filename in (".", ".."):
            add(Severity.ERROR, "--filename=%s must be a plain file name, without '/'"
                % cert.filename, place)
        if cert.data.dir is not None and not os.path.isabs(cert.data.dir):
            add(Severity.ERROR, "--dir=%s must be an absolute path, like /etc/pki/dns/"
                % cert.data.dir, place)
        if cert.data.type is not None and cert.data.type != CERT_TYPE_ANCHOR:
            add(Severity.ERROR, "--type=%s is unknown; the only type is %s"
                % (cert.data.type, CERT_TYPE_ANCHOR), place)
        try:
            cert.blocks = pem.load_pem_certificates(cert.data.cert)
        except pem.CertificateError as error:
            add(Severity.ERROR, error.message, place, _body_line(place, error.line))

    ca_names = result.edns.ca_names if result.edns.seen else ()
    head = result.edns_places[0] if result.edns_places else None
    for name in ca_names:
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            add(Severity.ERROR, "--ca=%s names no %%certificate --filename (known: %s); add "
                "that %%certificate or fix the name" % (name, known), head)
    trust = set(ca_names) if ca_names else {c.filename for c in result.certificates
                                            if c.is_anchor}
    for cert in result.certificates:
        for block in cert.blocks:
            lineno = _body_line(cert.place, block.line)
            if cert.filename in trust or cert.is_anchor:
                problem = pem.ca_problem(block) or pem.validity_problem(block, now)
                severity = Severity.ERROR
            else:
                problem = pem.validity_problem(block, now)
                severity = Severity.WARNING
            if problem:
                add(severity, problem, cert.place, lineno)


def _body_line(place, line):
    if place.lineno is None:    # a certificate that was not read from a kickstart file
        return None
    return place.lineno + 1 + (line or 0)

