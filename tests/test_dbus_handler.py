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

"""How the module answers calls (dbus/handler.py), in both its forms (the ``service``
fixture: the stand-alone service and the Anaconda module): slow work runs beside the main
loop, so every other caller is answered meanwhile; a refusal is one short log line; and
no memory is kept per call.

Each test makes the calls for real over a private dbus-daemon: many callers, huge
values, a DNS server that never answers. Times are compared with each other (which
reply came first), never with a fixed limit.
"""

import pytest
from gi.repository import Gio, GLib

from lab import certs
from lab.bus import rss_kib, wait_for
from org_edns_addon.constants import DBUS_CHECK_TIMEOUT_MAX_SECONDS
from org_edns_addon.dbus.errors import CHECK_RUNNING_ERROR, INVALID_VALUE_ERROR, \
    InvalidValueError
from org_edns_addon.dbus.identifiers import EDNS
from tests.dbus_fixtures import (HUGE_VALUES, AsyncCalls, call_check_servers, configure,
                                 give_silent_server, remote_error)

BEGIN = "-----BEGIN CERTIFICATE-----\n"


def client_connection(bus_address):
    """A connection of its own to the bus (another client)."""
    return Gio.DBusConnection.new_for_address_sync(
        bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


@pytest.mark.root
def test_a_check_runs_beside_the_main_loop_one_at_a_time(lab_service, bus, silent_server):
    service = lab_service
    give_silent_server(service.proxy, silent_server)
    calls = AsyncCalls(bus.connection)
    # The longest check there is: it runs until the silent server goes away, which it
    # does only once every other call has been answered, however long they took.
    for number in range(20):
        call_check_servers(calls, number, DBUS_CHECK_TIMEOUT_MAX_SECONDS)
    calls.get_property("read", "Configuration")
    calls.wait(calls.sent - 1)
    wait_for(lambda: silent_server.accepted >= 1, what="the check to connect")
    silent_server.close()
    calls.wait()
    tags = calls.tags()
    checked = [(tag, reply) for tag, reply, error in calls.replies if error is None and
               tag != "read"]
    refused = [tag for tag, _reply, error in calls.replies
               if error is not None and remote_error(error) == CHECK_RUNNING_ERROR]
    [(first, (result,))] = checked
    # (What the probe calls a server that never answers is the probe's business.)
    assert [(check["port"], check["outcome"] != "ok") for check in result] == \
        [(silent_server.port, True)]
    assert sorted(refused + [first]) == list(range(20))
    assert "a check of the DNS servers is running already" in \
        [error for _, _, error in calls.replies if error is not None][0].message
    # The unrelated read came back while the check was still running.
    assert tags.index("read") < tags.index(first)
    assert silent_server.accepted == 1


def test_other_clients_are_answered_while_certificates_are_read(service, bus_address):
    adder, reader = client_connection(bus_address), client_connection(bus_address)
    adds, read = AsyncCalls(adder), AsyncCalls(reader)
    # Each call is as slow to read as 1 000 KiB can be: some 2 000 CA certificates, every
    # one parsed, then a BEGIN without END. (BEGIN lines alone are read about as fast as
    # the bus carries them, so the calls could all be answered before the read arrived.)
    pem = certs.make_ca("Bulk CA").pem
    bundle = "\n".join([pem] * ((1000 * 1024 - len(BEGIN)) // (len(pem) + 1))) + "\n" + BEGIN
    count = 16
    for number in range(count):
        adds.call(number, EDNS.interface_name, "AddCertificate",
                  GLib.Variant("(ss)", ("bulk%d.pem" % number, bundle)))
    adder.flush_sync(None)
    read.get_property("read", "Configuration")
    [(_, reply, error)] = read.wait()
    assert error is None and reply[0]["resolve-mode"] == "exclusive"
    # The read was answered before the adds were: they are read beside the main loop,
    # one after another, in the order they came.
    assert len(adds.replies) < count
    adds.wait()
    assert adds.tags() == list(range(count))
    assert all(remote_error(error) == INVALID_VALUE_ERROR for _, _, error in adds.replies)
    assert service.proxy.Certificates == []


def test_each_refusal_is_one_short_log_line_without_a_traceback(service, test_ca):
    refusals = 0
    for field, value, _start in HUGE_VALUES:
        with pytest.raises(InvalidValueError):
            configure(service.proxy, **{field: value})
        refusals += 1
    for text in ("x" * 10000000, BEGIN * 1000, test_ca.key_pem):
        with pytest.raises(InvalidValueError):
            service.proxy.AddCertificate("corp-ca.pem", text)
        refusals += 1
    # Logged before the reply is sent; the log is a file the module writes on its own.
    wait_for(lambda: len(service.refusals()) >= refusals, what="a log line per refusal")
    refused = service.refusals()
    assert len(refused) == refusals, service.log()
    assert "Traceback" not in service.log()
    assert max(len(line) for line in refused) < 400
    assert refused[0].startswith("Refused org.freedesktop.DBus.Properties.Set: the resolve "
                                 "mode 'xxxxx")


def configuration_variant(field, value):
    """A Configuration that sets FIELD to the string VALUE (the others as a fresh module)."""
    return GLib.Variant("a{sv}", {field: GLib.Variant("s", value)})


CALLS = 20000
WARM_UP = 4000
IN_FLIGHT = 200


def test_memory_stays_flat_over_20000_calls(service, bus):
    calls = AsyncCalls(bus.connection)
    # Every way a call ends: a property read, a write (and its signal), a refused write,
    # a method's reply; mostly the cheapest, so that 20 000 calls take seconds.
    def read(n):
        return calls.get_property(n, "Configuration")

    kinds = [read, read, read, read, read,
             lambda n: calls.set_property(n, "Configuration", configuration_variant(
                 "resolve-mode", ("exclusive", "prefer")[n % 2])),
             lambda n: calls.set_property(n, "Configuration",
                                          configuration_variant("backend", "bind")),
             lambda n: calls.call(n, EDNS.interface_name, "Validate")]

    def run(count):
        for number in range(count):
            kinds[number % len(kinds)](number)
            if calls.sent - len(calls.replies) >= IN_FLIGHT:
                calls.wait(calls.sent - IN_FLIGHT // 2)
        calls.wait(timeout=600)

    run(WARM_UP)    # caches, interned strings and allocator pools settle first
    before = rss_kib(service.pid)
    run(CALLS)
    grown = rss_kib(service.pid) - before
    errors = [error for _, _, error in calls.replies if error is not None]
    assert len(calls.replies) == WARM_UP + CALLS
    assert len(errors) == (WARM_UP + CALLS) // len(kinds)
    assert {remote_error(error) for error in errors} == {INVALID_VALUE_ERROR}
    # Without the handler each call kept its invocation, about 2.1 kB: 40 MB here. The
    # bound finds any leak from about 210 bytes a call.
    assert grown < 4 * 1024, "the module grew by %d KiB over %d calls" % (grown, CALLS)


# A name forged to break the reply and the log: ESC (a terminal sequence), a newline
# followed by what would read as a log line of its own, CR, a line separator, and enough
# letters that the whole is 1 024 characters, the most a name may have.
FORGED_LINE = "Refused forged: a line the caller wrote"
FORGED = "\x1b[31mca\n%s\r\u2028" % FORGED_LINE
FORGED_NAME = FORGED + "a" * (1024 - len(FORGED))


def _add_certificate_error(bus_address, filename, pem):
    """The D-Bus error message a caller of its own connection gets for AddCertificate."""
    caller = client_connection(bus_address)
    with pytest.raises(GLib.Error) as refused:
        caller.call_sync(EDNS.service_name, EDNS.object_path, EDNS.interface_name,
                         "AddCertificate", GLib.Variant("(ss)", (filename, pem)), None,
                         Gio.DBusCallFlags.NONE, -1, None)
    assert remote_error(refused.value) == INVALID_VALUE_ERROR
    prefix = "GDBus.Error:%s: " % INVALID_VALUE_ERROR
    assert refused.value.message.startswith(prefix)
    return refused.value.message[len(prefix):]


@pytest.mark.parametrize("pem", ["garbage", BEGIN], ids=["no PEM", "a BEGIN without END"])
def test_a_refused_name_is_escaped_and_cut_in_the_reply_and_in_one_log_line(service,
                                                                           bus_address, pem):
    message = _add_certificate_error(bus_address, FORGED_NAME, pem)
    assert not any(char in message for char in "\n\r\x1b\u2028"), repr(message)
    # At most 80 characters of the value (docs/module.md), then its length.
    assert message == ("the certificate file name '\\x1b[31mca\\n%s\\r\\u2028%s… (1024 "
                       "characters) holds a control character or a line separator; give it "
                       "without" % (FORGED_LINE, "a" * 20)), message
    assert "a" * 81 not in message
    wait_for(lambda: service.refusals(), what="the refusal's log line")
    log = service.log()
    assert [line for line in service.refusals() if "AddCertificate" in line] == \
        ["Refused %s.AddCertificate: %s" % (EDNS.interface_name, message)]
    assert not any(line.startswith(FORGED_LINE) for line in log.splitlines())
    assert "\x1b" not in log and "\r" not in log and "\u2028" not in log


def test_a_refused_pem_names_its_long_file_name_cut(service, bus_address):
    # A plain name (no control character) that the PEM reader's sentence quotes.
    name = "c" * 250 + ".pem"
    message = _add_certificate_error(bus_address, name, "garbage")
    assert message.startswith("the PEM text of '%s… (254 characters), line 1: " % ("c" * 79)), \
        message
    assert "c" * 81 not in message
