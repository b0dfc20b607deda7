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

"""How the module answers D-Bus calls: dasbus's object handler, with four changes.

Both the stand-alone service (``dbus.standalone``) and the Anaconda module
(``service/edns.py``) publish the interface with ``EdnsObjectHandler``:

- **No memory kept per call.** PyGObject's ``register_object`` is GLib's
  ``g_dbus_connection_register_object_with_closures()``, which hands the call's
  ``GDBusMethodInvocation`` to the closure with a reference that only the reply
  may consume; PyGObject's ``return_value()`` adds a reference of its own instead,
  so every call leaked its invocation and message, about 2 kB (dasbus issue #80;
  its PR #81 drops that reference after the call). Here the object is
  registered with ``register_object_with_closures2()`` where GLib has it (2.84 and
  later: bindings own their reference), and otherwise with the original function,
  dropping the transferred reference once the reply is sent.
- **Values too large are refused unread.** dasbus turns every value of a call
  into Python objects before the method sees it: for 100 000 servers that took
  longer than a client waits. The published object's ``check_call()``, if it
  has one, sees the call's ``GLib.Variant`` first and may refuse it.
- **A refusal is one short line.** dasbus logs every failed call as a warning
  with a traceback and replies with the whole message; a ``DBusError`` (a value
  refused, a check already running) is logged without a traceback, and every
  error reply and log line is cut to ``MAX_DBUS_ERROR_CHARS``.
- **Replies computed off the main loop.** A method may return ``ReplyLater``:
  its function runs in a worker thread, and the reply (or the error) is sent from
  the main loop when it is done, so one slow call never blocks the others.
"""

import logging
import queue
import threading
from functools import partial

from dasbus.error import DBusError
from dasbus.server.handler import GLibServer, ServerObjectHandler
from dasbus.specification import DBusSpecificationError
from gi.module import get_introspection_module
from gi.repository import Gio, GLib

from org_edns_addon.constants import MAX_DBUS_ERROR_CHARS
from org_edns_addon.echo import escaped, shortened

log = logging.getLogger(__name__)

# Without PyGObject's overrides: its 3.49.0-3.50.1 releases (only) wrap register_object
# to drop the reference themselves; calling GLib's function directly keeps one rule here.
_GIO = get_introspection_module("Gio")
_GOBJECT = get_introspection_module("GObject")
_HAS_CLOSURES2 = hasattr(Gio.DBusConnection, "register_object_with_closures2")
# GLib 2.82.3 alone made the old function consume the reference itself (reverted in 2.82.4).
_OLD_CLOSURES_CONSUME = (GLib.MAJOR_VERSION, GLib.MINOR_VERSION, GLib.MICRO_VERSION) == \
    (2, 82, 3)
RELEASES_TRANSFERRED_REFERENCE = not _HAS_CLOSURES2 and not _OLD_CLOSURES_CONSUME


class WorkQueue:
    """One worker thread that runs functions one after another, in the order given.

    A daemon thread: a service ending on a signal does not wait for the work.
    """

    def __init__(self, name):
        self._name = name
        self._queue = queue.SimpleQueue()
        self._thread = None

    def submit(self, function):
        """Run FUNCTION() in the worker thread after the functions submitted before."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
            self._thread.start()
        self._queue.put(function)

    def _work(self):
        while True:
            self._queue.get()()


class ReplyLater:
    """What a D-Bus method returns to answer later, without blocking the main loop.

    FUNCTION(*ARGS) runs in a worker thread (one of its own, or in the ``WorkQueue``
    WORK_QUEUE); then, in the main loop, THEN(result), if given, turns its result into the
    reply. An exception of either is the error reply. FINISHED(), if given, is called
    in the main loop before the reply is sent, whatever the outcome.
    """

    def __init__(self, function, *args, then=None, finished=None, work_queue=None):
        self._function = function
        self._args = args
        self._then = then
        self._finished = finished
        self._work_queue = work_queue

    def start(self, reply):
        """Start the work; REPLY(result, error) is called in the main loop when it is done
        (error is None on success)."""
        def work():
            try:
                outcome = (self._function(*self._args), None)
            except Exception as error:  # noqa: BLE001 (sent back as the reply)
                outcome = (None, error)
            GLib.idle_add(deliver, *outcome)

        def deliver(result, error):
            try:
                if self._finished:
                    self._finished()
                if error is None and self._then:
                    result = self._then(result)
            except Exception as then_error:  # noqa: BLE001 (sent back as the reply)
                result, error = None, then_error
            reply(result, error)
            return GLib.SOURCE_REMOVE

        if self._work_queue is not None:
            self._work_queue.submit(work)
        else:
            threading.Thread(target=work, name="edns-reply-later", daemon=True).start()


class _ReleasingGLibServer(GLibServer):
    """dasbus's GLib server, registering objects so that no call's invocation is kept."""

    @classmethod
    def register_object(cls, connection, object_path, object_xml, callback, callback_args=()):
        node_info = Gio.DBusNodeInfo.new_for_xml(object_xml)
        if not node_info.interfaces:
            raise DBusSpecificationError("No DBus interfaces for registration.")
        method_call = partial(cls._object_callback, user_data=(callback, callback_args))
        if _HAS_CLOSURES2:
            register = connection.register_object_with_closures2
        else:
            register = partial(_GIO.DBusConnection.register_object, connection)
        registrations = [register(object_path, interface_info, method_call, None, None)
                         for interface_info in node_info.interfaces]
        return partial(cls._unregister_object, connection, registrations)

    @classmethod
    def _release(cls, invocation):
        """Drop the reference GLib transferred with INVOCATION, once it is answered."""
        if RELEASES_TRANSFERRED_REFERENCE:
            _GOBJECT.Object.unref(invocation)

    @classmethod
    def set_call_error(cls, invocation, error_name, error_message):
        super().set_call_error(invocation, error_name, error_message)
        cls._release(invocation)

    @classmethod
    def set_call_reply(cls, invocation, out_type, out_value):
        # When the value does not fit OUT_TYPE this raises before replying, and dasbus
        # replies with the error instead (set_call_error).
        super().set_call_reply(invocation, out_type, out_value)
        cls._release(invocation)


class EdnsObjectHandler(ServerObjectHandler):
    """dasbus's ``ServerObjectHandler`` with the changes the module docstring lists; give
    it as ``server_factory`` to ``publish_object``."""

    def __init__(self, message_bus, object_path, obj, error_mapper=None, **kwargs):
        kwargs.setdefault("server", _ReleasingGLibServer)
        super().__init__(message_bus, object_path, obj, error_mapper=error_mapper, **kwargs)

    def _method_callback(self, invocation, interface_name, method_name, parameters):
        check_call = getattr(self._object, "check_call", None)
        if check_call is not None:
            try:
                check_call(interface_name, method_name, parameters)
            except Exception as error:  # noqa: BLE001 (sent back as the reply)
                self._handle_method_error(invocation, interface_name, method_name, error)
                return
        super()._method_callback(invocation, interface_name, method_name, parameters)

    def _handle_method_result(self, invocation, method_spec, method_reply):
        if isinstance(method_reply, ReplyLater):
            method_reply.start(lambda result, error: self._send_later(
                invocation, method_spec, result, error))
            return
        super()._handle_method_result(invocation, method_spec, method_reply)

    def _send_later(self, invocation, method_spec, result, error):
        if error is None:
            try:
                super()._handle_method_result(invocation, method_spec, result)
                return
            except Exception as reply_error:  # noqa: BLE001 (sent back as an error)
                error = reply_error
        self._handle_method_error(invocation, method_spec.interface_name, method_spec.name,
                                  error)

    def _handle_method_error(self, invocation, interface_name, method_name, error):
        # Escaped before it is cut: no newline, CR or ESC of a value reaches the reply or
        # the log line raw.
        message = shortened(escaped(str(error)), MAX_DBUS_ERROR_CHARS)
        if isinstance(error, DBusError):
            log.info("Refused %s.%s: %s", interface_name, method_name, message)
        else:
            log.warning("The call %s.%s has failed with an exception:", interface_name,
                        method_name, exc_info=error)
        self._server.set_call_error(invocation, self._error_mapper.get_error_name(type(error)),
                                    message)
