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

"""The words a sentence uses for a setting: the kickstart's or the screens'.

A rule writes its sentence once. Where the sentence names a setting, it takes a
``Term`` as a value instead of writing the kickstart's syntax into the text:
``_("… is refused with %s …") % resolve_mode(mode)``. When the sentence is
formatted, the term says itself in the words of its reader:

- the kickstart's (``--resolve-mode=backup``, ``domain=``, ``%certificate
  --filename=ca.pem``) for whoever reads a kickstart: ``edns-addon validate``, the
  kickstart report, the D-Bus ``Validate()``, the log. This is the default;
- the controls' (the resolve mode “backup”, routed domains, the certificate ca.pem)
  for a person in front of a screen, where the settings are controls labelled
  "Resolve mode", "Routed domains", "CA certificates" and no kickstart is in sight.

Who reads is the context's ``audience`` (a ``contextvars`` variable, so each thread
and each task has its own): ``on_screen()`` (or ``@for_screens``) sets it around what
a user interface asks (``ui/editor.py``, the module's check for the spokes). Nothing
is re-parsed and no sentence is written twice: one source, two renderings.
"""

import contextlib
import contextvars
import enum
import functools

from org_edns_addon.i18n import N_, _


class Audience(enum.Enum):
    KICKSTART = "kickstart"
    SCREEN = "screen"


_AUDIENCE = contextvars.ContextVar("edns_audience", default=Audience.KICKSTART)


def audience():
    """Who reads the sentences formatted now (an ``Audience``)."""
    return _AUDIENCE.get()


@contextlib.contextmanager
def on_screen():
    """Format the sentences made inside in the screens' words."""
    token = _AUDIENCE.set(Audience.SCREEN)
    try:
        yield
    finally:
        _AUDIENCE.reset(token)


def for_screens(function):
    """FUNCTION, its sentences formatted in the screens' words (``on_screen``)."""
    @functools.wraps(function)
    def on_a_screen(*args, **kwargs):
        with on_screen():
            return function(*args, **kwargs)
    return on_a_screen


class Term:
    """A setting as a sentence names it: KICKSTART as the kickstart writes it (never
    translated), SCREEN as the screens say it (marked with ``N_``, translated when the
    sentence is formatted); VALUE, when given, fills the ``%s`` of either."""

    __slots__ = ("_kickstart", "_screen", "_value")

    def __init__(self, kickstart, screen, value=None):
        self._kickstart = kickstart
        self._screen = screen
        self._value = value

    def __call__(self, value):
        """This term with VALUE (``RESOLVE_MODE(mode.value)``)."""
        return Term(self._kickstart, self._screen, value)

    @property
    def takes_value(self):
        """Whether this term is said with a value: ``%s`` (or ``%(name)s``, a mapping)."""
        return "%s" in self._kickstart or "%(" in self._kickstart

    @property
    def kickstart(self):
        return self._fill(self._kickstart)

    @property
    def screen(self):
        return self._fill(_(self._screen)) if self._screen else ""

    def _fill(self, text):
        return text % self._value if self._value is not None else text

    def __str__(self):
        return self.screen if audience() is Audience.SCREEN else self.kickstart

    def __repr__(self):
        return "Term(%r)" % self.kickstart


# The terms, each once. TRANSLATORS: each of these names a setting inside a sentence
# (where the sentence has %s); %s in them is a value as the kickstart writes it.
RESOLVE_MODE = Term("--resolve-mode=%s", N_("the resolve mode “%s”"))
BACKEND = Term("--backend=%s", N_("the backend “%s”"))
ROUTED_DOMAINS = Term("domain=", N_("routed domains"))
ROUTED_DOMAIN = Term("domain=%s", N_("the routed domain %s"))
# The list of certificates that alone authenticate the servers, as a noun.
CA_LIST = Term("--ca", N_("the list of CA certificates selected for the DNS servers"))
# A parenthesis after a certificate's name saying that it is one of that list.
CA_MARK = Term(" (--ca)", "")
# The bundle they make, and the certificates a chain is followed through.
CA_BUNDLE = Term("the --ca bundle", N_("the bundle of the CA certificates selected for the "
                                       "DNS servers"))
KICKSTART_CERTIFICATES = Term("the kickstart's certificates", N_("the CA certificates here"))
# What signs a server's certificate that those certificates authenticate.
CA_OF_BUNDLE = Term("a CA of the kickstart's --ca bundle",
                    N_("one of the CA certificates selected for the DNS servers"))
SEARCH = Term("--search", N_("the list of search domains"))
CA_NAME = Term("--ca=%s", N_("the selected certificate %s"))
CERTIFICATE = Term("%%certificate --filename=%s", N_("the certificate %s"))
CERTIFICATE_SECTION = Term("%certificate", N_("certificate"))
CERTIFICATE_SECTIONS = Term("%certificate sections", N_("certificates"))
CERTIFICATE_FILE_NAME = Term("%certificate --filename", N_("certificate of that name"))
CA_NAMES = Term("--ca=%s", N_("the selected certificates %s"))
# "… to say so": that the certificate is one of those that authenticate the servers.
SELECT_IT = Term("name it in --ca", N_("select it for the DNS servers"))
ANCHOR = Term("a %certificate --type=anchor", N_("an anchor certificate"))
FILE_NAME = Term("--filename=%s", N_("the file name %s"))
DIRECTORY = Term("--dir", N_("its directory"))
DIRECTORY_NOUN = Term("--dir", N_("directory"))
FILE_NAME_NOUN = Term("--filename", N_("file name"))
DIRECTORY_OR_FILE_NAME = Term("--dir or --filename", N_("directory or file name"))
FILE_NAME_OR_DIRECTORY = Term("--filename or --dir", N_("file name or directory"))
TYPE_NOUN = Term("--type", N_("type"))
DIRECTORY_VALUE = Term("--dir=%s", N_("the directory %s"))
DIRECTORY_AND_FILE_NAME = Term("--dir and --filename", N_("its directory and file name"))
CERTIFICATE_TYPE = Term("--type=%s", N_("the certificate type %s"))
SEARCH_VALUE = Term("--search=%s", N_("the search domains %s"))
IN_SEARCH = Term("in --search", N_("among the search domains"))
# Search domains a connection has of its own, besides those of DHCP.
CONNECTION_SEARCH = Term("a network --ipv4-dns-search", N_("those set for a connection"))
SELECT_THEM = Term("name the certificates in --ca",
                   N_("select the certificates for the DNS servers"))
# Advice for whoever validates a kickstart without knowing which line installs it; an
# installer knows its own line.
OR_VALIDATE_FOR_A_LINE = Term(", or validate with --line=LINE for a line whose "
                              "NetworkManager is 1.54 or later if only such lines install "
                              "this kickstart", "")
# What a server is added as: a line of the section's body, or a server in a list.
SERVER_LINE = Term("a line", N_("a server"))
TLS_NAME_SUFFIX = Term("#NAME", N_("its TLS name after '#'"))
# How to write a server named by a host name, HOST, instead: FIXED is its line with ADDR.
HOST_NAME_FIX = Term("write %(fixed)s, with ADDR the address of %(host)s",
                     N_("write the IP address of %(host)s in its place, and the TLS name "
                        "after '#'"))
DOT_SERVER_FORM = Term("dns+tls://ADDR#NAME", N_("a DoT server with its TLS name"))


def resolve_mode(mode):
    """The resolve mode MODE (a ``model.ResolveMode`` or its value) as a term."""
    return RESOLVE_MODE(getattr(mode, "value", mode))


def backend(value):
    """The backend VALUE (a ``model.Backend`` or its value) as a term."""
    return BACKEND(getattr(value, "value", value))
