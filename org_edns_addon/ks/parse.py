"""Read a whole kickstart (with ``%include``) into a validated result.

pykickstart's own parser and handler do the reading, so every ordinary
command and section is understood exactly as ``ksvalidator`` understands it.
On top of it we keep what pykickstart forgets: which file and line every
section came from, so every problem can say ``FILE:LINE``. Problems are
collected, not raised: a user sees all of them in one run.
"""

import os
import re
import shlex
import warnings
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from pykickstart.constants import KS_SCRIPT_POST
from pykickstart.errors import KickstartError, KickstartWarning
from pykickstart.load import is_url
from pykickstart.parser import Certificate, KickstartParser, PutBackIterator
from pykickstart.sections import CertificateSection, Section
from pykickstart.version import makeVersion

from org_edns_addon import certificates as pem
from org_edns_addon.constants import (ADDON_SECTION_OPEN, CERT_TYPE_ANCHOR,
                                     MAX_FILE_NAME_BYTES, MAX_INCLUDE_DEPTH,
                                     MAX_KICKSTART_BYTES, SECTION_OPEN)
from org_edns_addon.ks.edns import EdnsData, EdnsSection, is_our_addon
from org_edns_addon.model import Problem, Severity


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
    # (file, line) of each body line, so a PEM line number maps back to the kickstart.
    body_places: List[Tuple[str, int]] = field(default_factory=list, repr=False)

    @property
    def filename(self):
        return self.data.filename

    @property
    def is_anchor(self):
        return self.data.type == CERT_TYPE_ANCHOR

    def where(self, line):
        """(file, line) in the kickstart of line LINE (0-based) of the certificate text."""
        if line is not None and 0 <= line < len(self.body_places):
            return self.body_places[line]
        return self.place.filename, self.place.lineno


@dataclass
class ParsedKickstart:
    """What a kickstart says about encrypted DNS, and every problem found."""
    filename: str
    handler: object
    edns: EdnsData
    edns_places: List[SectionPlace]
    certificates: List[KickstartCertificate]
    problems: List[Problem]
    # The text of the file itself as it was read (None if unreadable): what
    # rewrites start from, never a second read that may differ (a pipe, an edit).
    text: Optional[str] = None

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


class _FileLines(PutBackIterator):
    """pykickstart's line iterator, knowing its file and the number of the line last read.

    pykickstart's own line counters are local to its state machine and restart
    in an ``%include``d file; this one is the single source of ``FILE:LINE``.
    """

    def __init__(self, filename, text):
        super().__init__(text.splitlines(True) + [""])
        self.filename = filename
        self.lineno = 0

    def put(self, s):
        super().put(s)
        self.lineno -= 1

    def next(self):
        line = super().next()
        self.lineno += 1
        return line


class _TrackedCertificateSection(CertificateSection):
    """pykickstart's ``%certificate``, remembering file and line of each one."""
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self._place = None
        self._body_places = []

    def handleHeader(self, lineno, args):
        self._place = None
        self._body_places = []
        self._certificate.update({"cert": [], "filename": None, "dir": None, "type": None})
        filename, lineno = self._reader.position
        self._reader.check_header_comment()
        super().handleHeader(lineno, args)
        self._place = SectionPlace(filename, lineno, "%certificate")

    def handleLine(self, line):
        super().handleLine(line)
        # The "" that ends an %include'd file adds no line to the certificate text.
        if line:
            self._body_places.append(self._reader.position)

    def finalize(self):
        place = self._place
        if place is None:
            # The header was refused (and reported); do not keep a nameless certificate.
            self._certificate["cert"] = []
            return
        place.end_lineno = self._reader.position[1]
        before = len(self.handler.certificates)
        try:
            super().finalize()
        except KickstartError as error:
            self._reader.problems.add(Severity.ERROR, "%s; paste the CA certificate between "
                                      "the %%certificate line and %%end" % _message(error),
                                      place.filename, place.lineno)
            self._certificate["cert"] = []
            return
        for data in self.handler.certificates[before:]:
            self._reader.certificates.append(
                KickstartCertificate(data, place, body_places=self._body_places))


class _TrackedEdnsSection(EdnsSection):
    """``%edns``, with every line numbered by the reader (also across ``%include``)."""

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader

    def handleHeader(self, lineno, args):
        self._reader.open_edns(SECTION_OPEN)
        super().handleHeader(lineno, args)

    def handleLine(self, line):
        self._reader.edns_line(line)

    def finalize(self):
        self._reader.close_edns()
        super().finalize()


class _AddonSection(Section):
    """``%addon``: ours goes to ``handler.edns``; other addons are not our business."""
    sectionOpen = "%addon"
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self._ours = False

    def handleHeader(self, lineno, args):
        super().handleHeader(lineno, args)
        self._ours = is_our_addon(args)
        if self._ours:
            self._reader.open_edns(ADDON_SECTION_OPEN)
            self.handler.edns.handle_header(args[2:], lineno)

    def handleLine(self, line):
        if self._ours:
            self._reader.edns_line(line)

    def finalize(self):
        super().finalize()
        if self._ours:
            self._reader.close_edns()
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
        self._sources = []
        self._reading = []
        self.kickstart_text = None

    # pykickstart calls setupSections() from __init__, before our attributes exist.
    def setupSections(self):
        super().setupSections()
        self.registerSection(_TrackedCertificateSection(self.handler, self, dataObj=Certificate))
        self.registerSection(_TrackedEdnsSection(self.handler, self))
        self.registerSection(_AddonSection(self.handler, self))

    @property
    def position(self):
        """(file, line) of the line being handled."""
        if not self._sources:
            return self.current_file, None
        source = self._sources[-1]
        return source.filename, source.lineno

    @property
    def current_file(self):
        """The file being read (the innermost ``%include``)."""
        return self._reading[-1] if self._reading else "<kickstart>"

    def add_problem(self, severity, message):
        """Record a problem at the line being handled."""
        self.problems.add(severity, message, *self.position)

    def check_header_comment(self):
        """Report a '#' glued to a word of the section header being read.

        pykickstart, and so Anaconda, splits header lines with shlex, where such
        a '#' starts a comment: ``--search=a#b --ca=x`` is read as ``--search=a``
        and --ca is silently lost.
        """
        if "#" not in self._line:
            return  # the common case, without two more (slow) shlex passes
        try:
            read = shlex.split(self._line, comments=True)
            written = shlex.split(self._line)
        except ValueError:
            return  # an unclosed quote; pykickstart reports it
        if read and read[-1] != written[len(read) - 1]:
            self.add_problem(Severity.ERROR, "the '#' in %r starts a comment, so this line is "
                             "read only up to %r; remove the '#' (a comment needs a space "
                             "before it)" % (written[len(read) - 1], read[-1]))

    def open_edns(self, spelling):
        self.check_header_comment()
        self.edns_places.append(SectionPlace(*self.position, spelling))

    def close_edns(self):
        self.edns_places[-1].end_lineno = self.position[1]

    def edns_line(self, line):
        """Hand a body line to ``handler.edns``; record its error and go on."""
        filename, lineno = self.position
        try:
            self.handler.edns.handle_line(line, lineno, filename)
        except KickstartError as error:
            self.add_problem(Severity.ERROR, _message(error))

    def _tryFunc(self, fn):
        # pykickstart's own handlers raise more than KickstartError on odd input
        # (ksvalidator reports those as "General error"); none may escape as a traceback.
        try:
            fn()
        except Exception as error:  # pylint: disable=broad-except
            self.errorsCount += 1
            self.add_problem(Severity.ERROR, _message(error))

    def readKickstartFromString(self, s, reset=True):
        if reset:
            self._reset()
        source = _FileLines(self.current_file, s)
        self._sources.append(source)
        try:
            self._stateMachine(source)
        except Exception as error:
            # Remember where it happened, innermost file first, before the stack unwinds.
            if not hasattr(error, "edns_place"):
                error.edns_place = (source.filename, source.lineno)
            raise
        finally:
            self._sources.pop()

    def readKickstart(self, f, reset=True):
        if not self._sources:
            self._read_file(f, reset)
            return
        # An %include: problems with the file itself belong to the %include line.
        if is_url(f):
            self.add_problem(Severity.WARNING, "%%include %s is a URL and is not followed "
                             "here; check that file separately" % f)
            return
        if not os.path.isabs(f):
            f = os.path.join(os.path.dirname(self.current_file), f)
        if os.path.realpath(f) in map(os.path.realpath, self._reading):
            self.add_problem(Severity.ERROR, "%%include %s includes a file that is already "
                             "being read; remove the loop" % f)
            return
        if len(self._reading) >= MAX_INCLUDE_DEPTH:
            self.add_problem(Severity.ERROR, "%%include %s is nested more than %d files deep; "
                             "include the files from fewer levels, or flatten the kickstart "
                             "(ksflatten)" % (f, MAX_INCLUDE_DEPTH))
            return
        try:
            self._read_file(f, reset)
        except KickstartReadError as error:
            missing = not os.path.lexists(f)
            self.add_problem(
                Severity.WARNING if missing else Severity.ERROR,
                "%%include %s: %s%s" % (f, error.message, "; if a %pre script writes it, "
                                        "check that file separately" if missing else ""))

    def _read_file(self, f, reset):
        text = read_kickstart_text(f)
        if not self._reading:
            self.kickstart_text = text
        self._reading.append(f)
        try:
            self.readKickstartFromString(text, reset=reset)
        finally:
            self._reading.pop()


def _message(error):
    if isinstance(error, KickstartError):
        return str(error.message) if error.message else str(error)
    return str(error) or type(error).__name__


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

    def show_warning(message, category, *_args, **_kwargs):
        # pykickstart warns (deprecated commands, duplicates) while it reads a line.
        if issubclass(category, KickstartWarning):
            reader.add_problem(Severity.WARNING, str(message))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show_warning
        outcome = _read_all(reader, path)
        result = ParsedKickstart(path, handler, handler.edns, reader.edns_places,
                                 reader.certificates, reader.problems.items,
                                 reader.kickstart_text)
        if outcome != _UNREADABLE:
            check_rules(result, now, read_to_end=outcome == _READ_TO_END)
    result.problems.sort(key=_reading_order(result.problems))
    return result


def _reading_order(problems):
    """Sort key: files in the order they were first named, then by line."""
    files = {}
    for problem in problems:
        files.setdefault(problem.filename, len(files))
    return lambda problem: (files[problem.filename], problem.lineno or 0)


_READ_TO_END, _STOPPED, _UNREADABLE = "read to end", "stopped", "unreadable"


def _read_all(reader, path):
    """Run READER over PATH; say whether it read to the end, stopped, or could not start."""
    try:
        reader.readKickstart(path)
    except KickstartReadError as error:
        reader.problems.add(Severity.ERROR, error.message, error.filename, error.lineno)
        return _UNREADABLE
    except Exception as error:  # pylint: disable=broad-except
        # pykickstart stops reading here (an unterminated section, an unclosed
        # quote); report it where it happened, like ksvalidator, without a traceback.
        filename, lineno = getattr(error, "edns_place", (path, None))
        if isinstance(error, KickstartError) and error.lineno:
            lineno = error.lineno
        reader.problems.add(Severity.ERROR, "%s; the rest of the file is not checked"
                            % _message(error).rstrip("."), filename, lineno)
        return _STOPPED
    return _READ_TO_END


def check_rules(result, now=None, read_to_end=True):
    """Add the cross-section rules of ARCHITECTURE.md to RESULT.problems.

    READ_TO_END False: reading stopped early, so a missing section proves nothing.
    """
    def add(severity, message, place, where=None):
        filename, lineno = where or (place.filename, place.lineno)
        result.problems.append(Problem(severity, message, lineno, filename))

    places = result.edns_places
    for place in places[1:]:
        if place.spelling != places[0].spelling:
            message = ("both %s and %s are given; they are two spellings of the same "
                       "section, keep only %s" % (places[0].spelling, place.spelling,
                                                  ADDON_SECTION_OPEN))
        else:
            message = "a second %s section; only one may appear" % place.spelling
        add(Severity.ERROR, message + " (first on %s:%d)" % (places[0].filename,
                                                             places[0].lineno), place)
    for place in places:
        if place.spelling == SECTION_OPEN:
            add(Severity.WARNING, "stock Anaconda rejects a top-level %%edns (\"Unknown "
                "kickstart section\"); run 'edns-addon convert %s' to rewrite it as "
                "%s" % (place.filename, ADDON_SECTION_OPEN), place)

    _check_certificates(result, now, add)

    if not result.edns.seen:
        if not places and read_to_end:
            result.problems.append(Problem(
                Severity.WARNING, "no %s section; encrypted DNS is not configured"
                % ADDON_SECTION_OPEN, None, result.filename))
        return
    head = places[0]
    for problem in result.edns.to_config().problems(
            head.lineno, all_servers_read=not result.edns.refused_lines):
        add(problem.severity, problem.message, head,
            (problem.filename or head.filename, problem.lineno or head.lineno))
    _check_freeipa_dns_over_tls(result, add, head)


_IPA_CLIENT_INSTALL = re.compile(r"(^|[\s;&|(/])ipa-client-install(\s|$)")
_DNS_OVER_TLS = re.compile(r"(^|\s)--dns-over-tls(\s|=|$)")


def _runs_freeipa_dns_over_tls(script):
    """Whether the shell SCRIPT runs ``ipa-client-install ... --dns-over-tls``."""
    lines = script.replace("\\\n", " ").splitlines()
    return any(_IPA_CLIENT_INSTALL.search(line) and _DNS_OVER_TLS.search(line)
               for line in lines if not line.lstrip().startswith("#"))


def _check_freeipa_dns_over_tls(result, add, head):
    """Warn when a %post enrolls the installed system with FreeIPA's own DoT forwarder.

    Anaconda runs %post after the addons' installation tasks
    (pyanaconda/modules/boss/installation.py), and FreeIPA's client then takes
    DNS over (ipaclient/install/client.py, client_dns): it moves away every other
    file in /etc/unbound/conf.d/, disables dnsconfd and sets NetworkManager
    dns=none in a conf.d file read after ours.
    """
    # A result made from the module's state, without a handler, has no scripts.
    for script in getattr(result.handler, "scripts", ()):
        if script.type == KS_SCRIPT_POST and _runs_freeipa_dns_over_tls(script.script):
            add(Severity.WARNING, "the %%post script on line %d of its file runs "
                "ipa-client-install --dns-over-tls, and FreeIPA's client then takes DNS "
                "over on the installed system: it moves away every other file in "
                "/etc/unbound/conf.d/, disables dnsconfd and sets NetworkManager dns=none, "
                "so the installed system asks only the IPA server and these servers serve "
                "the installation alone; if that is not meant, drop --dns-over-tls or "
                "this section" % script.lineno, head)
            return


def _too_long(name):
    return len(name.encode("utf-8")) > MAX_FILE_NAME_BYTES


def _check_certificate_dir(directory, place, add):
    """Report a --dir that could not be a directory below a root."""
    if not os.path.isabs(directory):
        add(Severity.ERROR, "--dir=%s must be an absolute path, like /etc/pki/dns/"
            % directory, place)
    elif ".." in directory.split("/"):
        add(Severity.ERROR, "--dir=%s must not contain '..'; give the directory itself, like "
            "/etc/pki/dns/" % directory, place)
    elif any(_too_long(part) for part in directory.split("/")):
        add(Severity.ERROR, "--dir=%s has a directory name longer than %d bytes; choose "
            "shorter names" % (directory, MAX_FILE_NAME_BYTES), place)


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
        if os.sep in cert.filename or cert.filename in ("", ".", ".."):
            add(Severity.ERROR, "--filename=%s must be a plain file name, without '/'"
                % cert.filename, place)
        elif _too_long(cert.filename):
            add(Severity.ERROR, "--filename=%s is longer than a file name may be (%d bytes); "
                "choose a shorter name" % (cert.filename, MAX_FILE_NAME_BYTES), place)
        if cert.data.dir is not None:
            _check_certificate_dir(cert.data.dir, place, add)
        if cert.data.type is not None and cert.data.type != CERT_TYPE_ANCHOR:
            add(Severity.ERROR, "--type=%s is unknown; the only type is %s"
                % (cert.data.type, CERT_TYPE_ANCHOR), place)
        try:
            cert.blocks = pem.load_pem_certificates(cert.data.cert)
        except pem.CertificateError as error:
            add(Severity.ERROR, error.message, place, cert.where(error.line))

    ca_names = result.edns.ca_names if result.edns.seen else ()
    head = result.edns_places[0] if result.edns_places else None
    for name in dict.fromkeys(ca_names):
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            add(Severity.ERROR, "--ca=%s names no %%certificate --filename (known: %s); add "
                "that %%certificate or fix the name" % (name, known), head)
    for cert in result.certificates:
        # What authenticates DNS servers must be a CA; anything else only gets a
        # warning when it is out of date.
        authenticates = cert.filename in ca_names or cert.is_anchor
        for block in cert.blocks:
            if authenticates:
                problem = pem.ca_problem(block) or pem.validity_problem(block, now)
            else:
                problem = pem.validity_problem(block, now)
            if problem:
                add(Severity.ERROR if authenticates else Severity.WARNING, problem,
                    cert.place, cert.where(block.line))
