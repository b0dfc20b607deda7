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

"""Pre-flight check of DNS servers: reachable, authenticated, answering.

For each server of an ``EdnsConfig``: a TLS handshake that verifies the
certificate against the DoT CA bundle (or the system trust store, as the
installation would) with the server's TLS name as SNI and as the name to match,
then one DNS query, built and read with dnspython. Each result says either how
long the handshake and the answer took or, in words a user can act on, why it
failed. The CLI, the text UI and the D-Bus module all call
``check.check_staging_input``.

What a server can make a result say is bounded: every exception of a check is a
result with its reason, and text that comes from the network (certificate names,
error details) is escaped and cut (``printable``) before it enters a reason.
At most ``CHECK_MAX_PARALLEL`` servers are checked at once, all in one thread
(``loop.ProbeLoop``), each printed time its own.

dnspython and cryptography are imported only when a check runs, so importing
this package costs little in the installer's processes.

One concern a file: ``check`` (the entry points and the TLS context), ``loop`` (the one
loop), ``server`` (one server's probe: TCP, TLS over ``ssl.MemoryBIO``, the DNS query),
``reasons`` (the sentences of a refusal or a failure), ``result`` (``ServerCheck``,
``Outcome``, ``printable``).
"""
