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

"""The arguments of ``edns-addon``: one sub-command per job, each with its help text and
the libraries it needs (``dependencies``), and the argument types that refuse a bad value
as a usage error."""

import argparse
import math
import os
import sys

from org_edns_addon import __version__, dependencies
from org_edns_addon.cli.commands import (run_apply, run_boot_args, run_check, run_convert,
                                         run_overlay, run_tui, run_updates_img, run_validate)
from org_edns_addon.cli.process import EXIT_USAGE
from org_edns_addon.constants import (ADDON_NAME, CHECK_TIMEOUT_MAX_SECONDS,
                                      CHECK_TIMEOUT_SECONDS, PHASE_INSTALLER, PHASE_TARGET)
from org_edns_addon.i18n import _


def _positive_seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= CHECK_TIMEOUT_MAX_SECONDS:   # also refuses nan
        raise argparse.ArgumentTypeError(_("%r is not a number of seconds above 0 and at most "
                                         "%g") % (text, CHECK_TIMEOUT_MAX_SECONDS))
    return value


def _argv_text(text):
    """TEXT from the command line as UTF-8, also where the locale's encoding is not."""
    return os.fsencode(text).decode("utf-8", "surrogateescape")


def _path(text):
    if not text:
        raise argparse.ArgumentTypeError(_("the path is empty; give a file or directory name"))
    return text


def _query_name(text):
    from org_edns_addon.names import normalize_dns_name
    from org_edns_addon.problems import ModelError

    try:
        return normalize_dns_name(_argv_text(text), _("query name"))
    except ModelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_line_option(command):
    """--line=LINE: judge the kickstart for that installer line alone (lines.py)."""
    from org_edns_addon.lines import LINE_KEYS

    command.add_argument("--line", choices=LINE_KEYS, metavar="LINE",
                         help=_("judge the kickstart for this installer line alone (%s); "
                                "by default for every line") % "|".join(LINE_KEYS))


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and a one-line hint on usage errors."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, _("%s: error: %s\n") % (self.prog, message))


def build_parser():
    parser = _Parser(prog="edns-addon", description=(
        _("Encrypted DNS (DNS over TLS) for Anaconda installations: validate, convert, "
        "apply and package the %certificate and %addon org_edns_addon kickstart sections.")),
        epilog=_("Exit status: 0 success; 1 the input has errors, a check failed, or the "
                 "output was cut off (a closed pipe, a full disk); 2 a usage error, or a "
                 "library the command needs is missing or unusable (the sentence names the "
                 "package to install); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP), an apply "
                 "interrupted while writing having restored what it wrote. Every error is "
                 "a sentence naming the file, never a traceback."))
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    validate = commands.add_parser(
        "validate", help=_("check kickstarts; print FILE:LINE: error|warning: message"))
    validate.add_argument("kickstarts", nargs="+", metavar="KICKSTART")
    validate.add_argument("--json", action="store_true", help=_("print the findings as JSON"))
    _add_line_option(validate)
    validate.set_defaults(run=run_validate, needs=dependencies.READS_KICKSTART)

    convert = commands.add_parser(
        "convert", help=_("rewrite a top-level %%edns as %%addon org_edns_addon, "
        "leaving every other byte alone"))
    convert.add_argument("kickstart", metavar="KICKSTART")
    convert.add_argument("-o", "--output", metavar="OUT", type=_path,
                         help=_("write here (atomically) instead of standard output"))
    convert.set_defaults(run=run_convert, needs=dependencies.READS_KICKSTART)

    apply = commands.add_parser(
        "apply", help=_("write the encrypted DNS files of a phase below a root and run its "
        "actions (what the installer module does)"))
    apply.add_argument("kickstart", metavar="KICKSTART")
    apply.add_argument("--root", required=True, metavar="DIR", type=_path,
                       help=_("the root to write below (an existing directory)"))
    apply.add_argument("--phase", default=PHASE_TARGET,
                       choices=[PHASE_TARGET, PHASE_INSTALLER],
                       help=_("target: the installed system (default); installer: the "
                       "installer environment"))
    _add_line_option(apply)
    apply.set_defaults(run=run_apply, needs=dependencies.READS_KICKSTART)

    boot_args = commands.add_parser(
        "boot-args", help=_("print the kernel options (rd.net.dns=...) for DoT in an initramfs"))
    boot_args.add_argument("kickstart", metavar="KICKSTART")
    _add_line_option(boot_args)
    boot_args.set_defaults(run=run_boot_args, needs=dependencies.READS_KICKSTART)

    overlay = commands.add_parser(
        "overlay", help=_("write an initrd overlay (gzip'd cpio) with the kickstart, the "
        "certificates and the DoT configuration, and print how to boot with it"))
    overlay.add_argument("kickstart", metavar="KICKSTART")
    overlay.add_argument("-o", "--output", required=True, metavar="FILE", type=_path,
                         help=_("the overlay image to write, like overlay.img"))
    _add_line_option(overlay)
    overlay.set_defaults(run=run_overlay, needs=dependencies.READS_KICKSTART)

    updates = commands.add_parser(
        "updates-img", help=_("write an Anaconda updates image (gzip'd cpio) holding the addon "
        "and its D-Bus files"))
    updates.add_argument("-o", "--output", required=True, metavar="FILE", type=_path,
                         help=_("the image to write, like updates.img"))
    updates.set_defaults(run=run_updates_img, needs=dependencies.BUILDS_UPDATES_IMAGE)

    check = commands.add_parser(
        "check", help=_("before the install: reach, authenticate and query each DNS server "
        "of a kickstart; one line per server, exit 0 when all are ok"))
    check.add_argument("kickstart", metavar="KICKSTART")
    check.add_argument("--timeout", type=_positive_seconds, default=CHECK_TIMEOUT_SECONDS,
                       metavar="S",
                       help=_("seconds each server has to answer (default %(default)g)"))
    check.add_argument("--name", type=_query_name, metavar="QNAME",
                       help=_("the name to ask (default: the server's first routed domain, "
                       "else its TLS name; for a TLS name that is an address, localhost, "
                       "which every resolver answers itself)"))
    _add_line_option(check)
    check.set_defaults(run=run_check, needs=dependencies.CHECKS_SERVERS)

    tui = commands.add_parser(
        "tui", help=_("edit the encrypted DNS sections of a kickstart in a text UI"))
    tui.add_argument(   # (argparse %-formats a help text: %% for a literal %)
        "kickstart", nargs="?", metavar="KICKSTART",
        help=_("start from its %%certificate and %%addon {} sections").format(ADDON_NAME))
    tui.add_argument("-o", "--output", metavar="OUT", type=_path,
                     help=_("write here (atomically); default: KICKSTART itself"))
    tui.set_defaults(run=run_tui, needs=dependencies.TEXT_UI)
    return parser
