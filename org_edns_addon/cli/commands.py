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

"""The commands of ``edns-addon``, one function each: read the kickstart, run the
library, print what came of it, and return the exit code (``process.EXIT_*``).

Each command imports what it needs when it runs: pykickstart, cryptography, dnspython
and the staging code cost tens of milliseconds each to import, and `check` and
`validate` are run by scripts and installer test VMs in loops.
"""

import os
import sys

from org_edns_addon.cli.process import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK,
                                        interrupts_raised, usage_error)
from org_edns_addon.fileio import check_output, error_text, write_atomically
from org_edns_addon.i18n import P_, _


def _errors(count):
    return P_("%d error", "%d errors", count) % count


def _warnings(count):
    return P_("%d warning", "%d warnings", count) % count


def _problem_json(problem):
    return {"file": problem.filename, "line": problem.lineno,
            "severity": problem.severity.value, "message": problem.message}


def _judged_lines(args):
    """The installer lines a kickstart is judged for: the one --line names, else all."""
    from org_edns_addon.lines import LINES, line_named

    line = getattr(args, "line", None)
    return (line_named(line),) if line else LINES


def run_validate(args):
    from org_edns_addon.ks.reader import parse_kickstart

    lines = _judged_lines(args)
    results = [parse_kickstart(path, lines=lines) for path in args.kickstarts]
    errors = sum(r.error_count for r in results)
    warnings = sum(r.warning_count for r in results)
    if args.json:
        import json

        print(json.dumps({
            "files": [r.filename for r in results],
            "errors": errors,
            "warnings": warnings,
            "problems": [_problem_json(p) for r in results for p in r.problems],
            # Counted in "errors" and "warnings", not listed in "problems".
            "omitted": sum(r.omitted_errors + r.omitted_warnings for r in results),
        }, indent=2))
    else:
        for result in results:
            for problem in result.problems:
                print(problem)
            if result.omitted_errors or result.omitted_warnings:
                omitted = result.omitted_errors + result.omitted_warnings
                print(P_("%s: ... and %d more problem (%s, %s) not listed; fix those above and "
                         "run again",
                         "%s: ... and %d more problems (%s, %s) not listed; fix those above and "
                         "run again", omitted)
                      % (result.filename, omitted, _errors(result.omitted_errors),
                         _warnings(result.omitted_warnings)))
        what = ", ".join(r.filename for r in results) if len(results) == 1 else \
            P_("%d file", "%d files", len(results)) % len(results)
        print("%s: %s, %s" % (what, _errors(errors), _warnings(warnings)))
    return EXIT_FAILED if errors else EXIT_OK


def run_convert(args):
    from org_edns_addon.ks.convert import ConvertError, convert_kickstart

    try:
        converted = convert_kickstart(args.kickstart, args.output)
    except ConvertError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print(_("%s: not converted: %s") % (args.kickstart, error.message), file=sys.stderr)
        return EXIT_FAILED
    if args.output is None:
        # Bytes, so the output is the input byte for byte whatever the terminal's encoding.
        sys.stdout.flush()
        sys.stdout.buffer.write(converted.data)
    else:
        print(P_("%s: wrote %s (%d section rewritten as %%addon org_edns_addon)",
                 "%s: wrote %s (%d sections rewritten as %%addon org_edns_addon)",
                 converted.count) % (args.kickstart, args.output, converted.count),
              file=sys.stderr)
    return EXIT_OK


def _staging_input(args, refusal, converted=False):
    """The staging input of the kickstart ARGS.kickstart (judged for the lines of
    ``--line``), or None after printing REFUSAL and why: its errors, or each part it needs
    that is in a file missing here.

    CONVERTED: what is built holds the kickstart as ``convert`` rewrites it (the overlay),
    so the errors the rewrite fixes are none."""
    from org_edns_addon.ks.reader import parse_kickstart

    path = args.kickstart
    parsed = parse_kickstart(path, lines=_judged_lines(args))
    ignored = ()
    if converted:
        from org_edns_addon.ks.convert import fixed_by_conversion
        ignored = fixed_by_conversion(parsed)
    for problem in parsed.errors:
        if problem not in ignored:
            print(problem, file=sys.stderr)
    parts = () if any(p not in ignored for p in parsed.errors) else parsed.unread_parts()
    for filename, lineno, sentence in parts:
        if lineno is None:
            print(_("%s: error: %s") % (filename, sentence), file=sys.stderr)
        else:
            print(_("%s:%d: error: %s") % (filename, lineno, sentence), file=sys.stderr)
    if parts:
        print(_("%s: %s: these parts of the kickstart are needed now, and they are in files "
                "that do not exist here") % (path, refusal), file=sys.stderr)
        return parsed, None
    try:
        return parsed, parsed.staging_input(ignored)
    except ValueError as error:
        print("%s: %s: %s" % (path, refusal, error), file=sys.stderr)
        return parsed, None


def run_apply(args):
    """Stage the kickstart's PHASE below ROOT.

    ROOT is a live host's / when it resolves to this process's / (``os.path.realpath``
    gives "/": ``--root /``, or a path that leads there by symlinks), the running system
    its actions already restart and reload: a person's machine. Only there does apply
    keep its record, its journal and its syncs (``staging.record.HostRecord``), so that
    the next apply puts back what this one wrote. Any other root is a tree being built,
    written as the installer writes its target: nothing of apply's own is left in it.
    """
    from org_edns_addon.staging import StagingError
    from org_edns_addon.staging.actions import is_running_system
    from org_edns_addon.staging.apply import ApplyInterrupted, stage
    from org_edns_addon.staging.plan import Phase
    from org_edns_addon.staging.record import HostRecord

    _parsed, data = _staging_input(args, _("not applied"))
    if data is None:
        return EXIT_FAILED
    root = os.path.abspath(args.root)
    record = HostRecord() if is_running_system(root) else None
    # Interrupts raise, so that the message says what the root holds; until it is
    # printed, a second one is ignored.
    with interrupts_raised():
        try:
            report = stage(data, Phase(args.phase), root, record=record)
        except ApplyInterrupted as interrupted:
            print(_("edns-addon apply: interrupted; %s") % interrupted, file=sys.stderr)
            return EXIT_INTERRUPTED
        except StagingError as error:
            print(_("%s: not applied: %s") % (args.kickstart, error), file=sys.stderr)
            return EXIT_FAILED
        try:
            print(_("%s: %s phase below %s") % (args.kickstart, args.phase, root))
            print(report)
            sys.stdout.flush()
        except KeyboardInterrupt:
            print(_("edns-addon apply: interrupted; the files are written and the actions ran "
                  "(the list of them was cut short)"), file=sys.stderr)
            return EXIT_INTERRUPTED
    return EXIT_OK


def addon_in_installer_note():
    """How the addon itself reaches the installer: boot options and an overlay configure
    the initramfs, but only an installer that has the addon reads its section."""
    return _("the installer must also have the addon, or it ignores the %addon "
             "org_edns_addon section and the installed system gets no encrypted DNS: add "
             "inst.updates=URL-OF-updates.img (edns-addon updates-img writes it), or use an "
             "installer image with the edns-anaconda-addon package")


def run_boot_args(args):
    from org_edns_addon import initrd

    _parsed, data = _staging_input(args, _("no boot options"))
    if data is None:
        return EXIT_FAILED
    try:
        options, warning = initrd.boot_args(data.config)
    except initrd.BootOptionsError as error:
        print(_("%s: no boot options: %s") % (args.kickstart, error), file=sys.stderr)
        return EXIT_FAILED
    print(" ".join(map(str, options)))
    if warning:
        print(_("%s: warning: %s") % (args.kickstart, warning), file=sys.stderr)
    if data.config.routed_domains():
        print(_("%s: note: boot options carry only the servers for all names; the routed "
              "domains (%s) reach the initramfs only through the overlay "
              "(edns-addon overlay), and the installer through the kickstart")
              % (args.kickstart, ", ".join(data.config.routed_domains())), file=sys.stderr)
    print(_("%s: note: %s") % (args.kickstart, addon_in_installer_note()), file=sys.stderr)
    return EXIT_OK


def _is_same_file(one, other):
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def run_overlay(args):
    from org_edns_addon import initrd
    from org_edns_addon.staging import StagingError

    if _is_same_file(args.output, args.kickstart):
        return usage_error("overlay", _("-o %s is the kickstart itself; name the image to "
                            "write, like -o overlay.img") % args.output)
    parsed, data = _staging_input(args, _("no overlay written"), converted=True)
    if data is None:
        return EXIT_FAILED
    try:
        boot_options = initrd.overlay_boot_options(data.config)
        warning = initrd.check_command_line(boot_options)
        plan = initrd.overlay_plan(parsed)
        image = initrd.overlay_image(plan)
    except (initrd.OverlayError, StagingError, OSError) as error:
        print(_("%s: no overlay written: %s") % (args.kickstart, error_text(error)),
              file=sys.stderr)
        return EXIT_FAILED
    try:
        # The image holds the whole kickstart (root password, %post secrets): only its
        # owner reads it, whatever the umask and the kickstart's own mode.
        write_atomically(args.output, image, initrd.IMAGE_MODE, follow_symlink=False)
    except OSError as error:
        print(_("%s: cannot write %s: %s") % (args.kickstart, args.output, error_text(error)),
              file=sys.stderr)
        return EXIT_FAILED
    for item in initrd.read_later(parsed):
        print(_("%s:%d: note: the installer reads %%include %s later, after the %%pre scripts "
                "that write it; the overlay holds this line as it is, and nothing of that "
                "file is checked here") % (item.include.filename, item.include.lineno,
                                           item.include.target), file=sys.stderr)
    name = os.path.basename(args.output)
    print(_("%s: wrote %s (%d bytes): %s") % (args.kickstart, args.output, len(image), ", ".join(
        planned.path for planned in plan.files)))
    print()
    print(_("Boot the installer with these options:"))
    print("  " + " ".join(map(str, boot_options)))
    if warning:
        print(_("%s: warning: %s") % (args.kickstart, warning), file=sys.stderr)
    print()
    print(_("Load the overlay as a second initrd, after the installer's:"))
    print(_("  GRUB:   initrd /images/pxeboot/initrd.img /images/pxeboot/%s") % name)
    print(_("  PXE:    initrd=initrd.img,%s") % name)
    print(_("or append it to the installer's initrd (the kernel unpacks both, in order):"))
    print(_("  cat initrd.img %s > initrd-edns.img") % name)
    print()
    print(_("%s: note: %s") % (args.kickstart, addon_in_installer_note()))
    return EXIT_OK


def run_updates_img(args):
    from org_edns_addon import packaging

    try:
        image = packaging.updates_image()
    except (packaging.PackagingError, OSError) as error:
        print(_("no updates image written: %s") % error_text(error), file=sys.stderr)
        return EXIT_FAILED
    try:
        write_atomically(args.output, image, 0o644, follow_symlink=False)
    except OSError as error:
        print(_("cannot write %s: %s") % (args.output, error_text(error)), file=sys.stderr)
        return EXIT_FAILED
    print(_("wrote %s (%d bytes); boot the installer with inst.updates=URL-OF-%s")
          % (args.output, len(image), os.path.basename(args.output)))
    for note in packaging.carried_notes():
        print(_("%s: note: %s") % (args.output, note), file=sys.stderr)
    return EXIT_OK


def run_check(args):
    from org_edns_addon.probe.check import check_staging_input

    _parsed, data = _staging_input(args, _("not checked"))
    if data is None:
        return EXIT_FAILED
    checks = check_staging_input(data, args.name, args.timeout)
    for check in checks:
        print(check.describe())
    return EXIT_OK if all(check.ok for check in checks) else EXIT_FAILED


def run_tui(args):
    output = args.output or args.kickstart
    if output is None:
        return usage_error("tui", _("give KICKSTART to edit, or -o OUT to write a new one"))
    if args.kickstart is not None and not os.path.lexists(args.kickstart):
        return usage_error("tui", _("%s does not exist; to write a new kickstart there, run "
                            "edns-addon tui -o %s") % (args.kickstart, args.kickstart))
    # Said before the editing starts, not when saving at its end.
    directory = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output) or not os.path.isdir(directory):
        return usage_error("tui", _("cannot write %s: %s; give the path of a file in an "
                            "existing directory") % (output, _("it is a directory")
                                                    if os.path.isdir(output) else
                                                    _("%s is not a directory") % directory))
    try:
        # A symbolic link is refused now too (saving refuses it again: save_kickstart).
        check_output(output)
    except OSError as error:
        print(_("cannot write %s: %s") % (output, error_text(error)), file=sys.stderr)
        return EXIT_FAILED
    if sys.stdin is None or not sys.stdin.isatty():   # None: descriptor 0 is closed
        return usage_error("tui", _("the text UI needs a terminal on standard input"))
    # Imported here: simpleline is needed by this command only.
    from org_edns_addon.tui.app import TerminalGone, run_standalone
    from org_edns_addon.tui.kickstart_file import KickstartFileError
    try:
        with interrupts_raised():   # the screens end cleanly, the terminal restored
            saved = run_standalone(args.kickstart, output)
    except TerminalGone:
        # Closed under the session (or Ctrl-D): nothing written, and nobody to tell.
        return EXIT_INTERRUPTED
    except KickstartFileError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print(_("%s: not edited: %s") % (args.kickstart, error.message), file=sys.stderr)
        return EXIT_FAILED
    if not saved:
        print(_("nothing written"), file=sys.stderr)
        return EXIT_FAILED
    print(_("wrote %s") % output, file=sys.stderr)
    return EXIT_OK
