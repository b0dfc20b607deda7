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

"""``%certificate`` sections, one concern a file.

- ``pem``: a certificate's text read as OpenSSL reads a CA file (p11-kit for an
  anchor), into ``CertificateBlock``s; the bundles written back.
- ``authority``: what one certificate can do for a TLS server (a CA, valid now, trust
  settings that do not exclude server authentication).
- ``chains``: the chains OpenSSL builds through a CA bundle, and what each certificate of
  it is (root CA, intermediate CA) in a PKI admin's words.
- ``placement``: the ``--filename``, ``--dir`` and ``--type`` rules, and where a
  certificate may land.
- ``kickstart``: a ``%certificate`` as one validated value (``KickstartCertificate``).

``cryptography`` loads when a certificate is first parsed: the rules about names and
places, and the value itself, cost nothing to import.
"""
