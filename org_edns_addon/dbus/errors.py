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

"""The module's D-Bus errors, named below the interface's name as Anaconda's modules name
theirs: each is mapped to its name for the service and for every client
(``register_errors``), and a model error becomes one at the interface's edge."""

from contextlib import contextmanager

from dasbus.error import DBusError, ErrorRule
from dasbus.structure import DBusStructureError

from org_edns_addon.certificates.pem import CertificateError
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.problems import ModelError, ValidationError

INVALID_VALUE_ERROR = EDNS.interface_name + ".Error.InvalidValue"
INVALID_CONFIGURATION_ERROR = EDNS.interface_name + ".Error.InvalidConfiguration"
CHECK_RUNNING_ERROR = EDNS.interface_name + ".Error.CheckRunning"


class InvalidValueError(DBusError):
    """A value given over D-Bus is not valid; the message says why and how to fix it."""


class InvalidConfigurationError(DBusError):
    """The configuration has errors, so it cannot be used yet; the message lists them."""


class CheckRunningError(DBusError):
    """A pre-flight check is running already; only one runs at a time."""


def register_errors(error_mapper):
    """Map our exceptions to their D-Bus error names in ERROR_MAPPER (both ways)."""
    error_mapper.add_rule(ErrorRule(exception_type=InvalidValueError,
                                    error_name=INVALID_VALUE_ERROR))
    error_mapper.add_rule(ErrorRule(exception_type=InvalidConfigurationError,
                                    error_name=INVALID_CONFIGURATION_ERROR))
    error_mapper.add_rule(ErrorRule(exception_type=CheckRunningError,
                                    error_name=CHECK_RUNNING_ERROR))


@contextmanager
def refusing_invalid_values():
    """Turn a model error (or a malformed structure) into ``InvalidValueError``."""
    try:
        yield
    except (ModelError, CertificateError, DBusStructureError, TypeError) as error:
        raise InvalidValueError(str(error)) from None


@contextmanager
def refusing_invalid_configuration():
    """Turn a configuration with errors (``ValidationError``) into
    ``InvalidConfigurationError``."""
    try:
        yield
    except ValidationError as error:
        raise InvalidConfigurationError(str(error)) from None
