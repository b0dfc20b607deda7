# Copyright (C) 2026 The org_edns_addon authors
#
# This program is free software: you can redistribute it and/or modify it under
# the terms of the GNU General Public License as published by the Free Software
# Foundation, either version 2 of the License, or (at your option) any later
# version. It is distributed in the hope that it will be useful, but WITHOUT ANY
# WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A
# PARTICULAR PURPOSE. See the GNU General Public License (the file COPYING).
#
# SPDX-License-Identifier: GPL-2.0-or-later

"""A ``%certificate`` section as one validated value (``KickstartCertificate``).

It is built once, at an edge (the kickstart reader, the module's ``AddCertificate``, the
text UI), from its file name, directory, type and PEM text; everything after that
(rules, staging, the pre-flight check, the overlay, D-Bus) uses the value and its parsed
blocks and never reads the PEM text again.
"""

from dataclasses import dataclass, field
from typing import Optional, Tuple

from org_edns_addon.certificates.pem import (CertificateBlock, CertificateError, PassedOver,
                                             canonical_pem, read_pem)
from org_edns_addon.certificates.placement import (is_anchor_place, landing_directory,
                                                   landing_problem, placement_problems)
from org_edns_addon.i18n import _


@dataclass(frozen=True)
class KickstartCertificate:
    """Any one ``%certificate``, a CA or not: where it goes, its PEM text and its parsed
    blocks.

    ``pem`` is the body as pykickstart keeps it (no final newline) and as
    Anaconda's Security module writes it; ``added`` is True for a certificate
    added in the installer (``AddCertificate``, the text UI) rather than read
    from the kickstart. ``origin`` (a ``SectionPlace``) and ``body_places``
    (the kickstart FILE, LINE of each body line) only say where it was read;
    ``passed_over`` are the blocks of the text OpenSSL never reads (``PassedOver``).
    """
    filename: str
    pem: str = field(repr=False)
    blocks: Tuple[CertificateBlock, ...] = field(repr=False)
    directory: Optional[str] = None
    cert_type: Optional[str] = None
    added: bool = False
    origin: Optional[object] = field(default=None, compare=False, repr=False)
    body_places: Tuple[Tuple[str, int], ...] = field(default=(), compare=False, repr=False)
    passed_over: Tuple[PassedOver, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_section(cls, filename, pem, directory=None, cert_type=None, added=False):
        """Check and parse a certificate given outside a kickstart (D-Bus, text UI), kept
        as its blocks print themselves (nothing but PEM reaches a file: a block OpenSSL
        never reads is left out, and ``passed_over`` keeps its line of the text given);
        raises ``CertificateError`` with the first problem."""
        problems = placement_problems(filename, directory, cert_type)
        if problems:
            raise CertificateError(problems[0])
        read = read_pem(pem)
        cert = cls(filename, canonical_pem(read.blocks), read.blocks, directory, cert_type,
                   added, passed_over=read.passed_over)
        problem = landing_problem(cert.path)
        if problem:
            raise CertificateError(problem)
        return cert

    @property
    def is_anchor(self):
        """A system trust anchor: a certificate placed in the anchors directory, by
        ``--type=anchor`` or (where pykickstart has no ``--type``, as on EL9) by a ``--dir``
        that is that directory, the way anchors were placed before ``--type``. Every anchor
        gets ``update-ca-trust extract`` and joins the DoT trust without ``--ca``."""
        return is_anchor_place(self.directory, self.cert_type)

    @property
    def path(self):
        """Where the file goes below a root: the ``--type`` place, else ``--dir``, as
        Anaconda's Security module places it (``certificates/installation.py``)."""
        return landing_directory(self.directory, self.cert_type).rstrip("/") + "/" + self.filename

    def file_content(self):
        """The bytes of the file: the body and one newline, as Anaconda writes it."""
        return (self.pem + "\n").encode("utf-8")

    def where(self, line):
        """(file, line) in the kickstart of line LINE (0-based) of the body."""
        if line is not None and 0 <= line < len(self.body_places):
            return self.body_places[line]
        if self.origin is None:
            return None, None
        return self.origin.filename, self.origin.lineno

    def describe(self):
        """One line: the subject(s) and until when the certificate is valid."""
        return "; ".join(_("%s, valid until %s") % (block.subject,
                                                 block.not_after.strftime("%Y-%m-%d"))
                         for block in self.blocks)

    def kickstart_data(self):
        """This certificate as pykickstart's ``Certificate`` (for generated kickstarts)."""
        from pykickstart.parser import Certificate
        return Certificate(cert=self.pem, filename=self.filename, dir=self.directory,
                           type=self.cert_type)

    def kickstart_section(self):
        """This certificate as a ``%certificate`` section (options quoted only where a
        shell-like split needs it, as pykickstart reads them)."""
        import shlex
        options = ["--filename=%s" % self.filename]
        if self.directory:
            options.append("--dir=%s" % self.directory)
        if self.cert_type:
            options.append("--type=%s" % self.cert_type)
        return "%%certificate %s\n%s\n%%end\n" % (" ".join(map(shlex.quote, options)),
                                                  self.pem)
