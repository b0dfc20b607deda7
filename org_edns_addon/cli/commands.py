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

"""The ``edns-addon`` command line: argument parsing and printing only.

Exit codes: 0 success, 1 the input has errors (or a check failed, or the
output could not be delivered), 2 usage (or a library the command needs is
missing: the sentence names the package to install), 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP, or the text UI's terminal closed or at its end; an apply
interrupted while writing first restores what it wrote, and says what the root
holds).
No traceback for bad input: every user error is a sentence naming the file.
"""

# Ctrl-C, SIGTERM and SIGHUP are held back from the first line of a run until main()
# has its handlers in place: one that came during start-up ends the run with exit
# code 130 and a sentence, never with a traceback. (As a program only: `python3 -m
# org_edns_addon.cli`, or the `edns-addon` script, which imports this module before
# it calls main(); any other importer gets its KeyboardInterrupt back.) A Ctrl-C before
# they are held (Python's own SIGINT handler is there already) ends the run the same
# way; one before this line is Python's own. os.write and os._exit: nothing else is
# imported yet.
try:
    import os
    import sys
    _AS_PROGRAM = __name__ == "__main__" or \
        os.path.basename((getattr(sys, "argv", None) or [""])[0]) == "edns-addon"
    import signal
    _INTERRUPTS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    _INHERITED_MASK = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS) \
        if _AS_PROGRAM else None
except KeyboardInterrupt:
    import os
    import sys
    if __name__ != "__main__" and \
            os.path.basename((getattr(sys, "argv", None) or [""])[0]) != "edns-addon":
        raise
    os.write(2, b"edns-addon: interrupted\n")
    os._exit(130)

# The rest only after the signals are held.
import argparse
import contextlib
import io
import math

from org_edns_addon import __version__, dependencies
from org_edns_addon.constants import (ADDON_NAME, CHECK_TIMEOUT_MAX_SECONDS,
                                      CHECK_TIMEOUT_SECONDS, PHASE_INSTALLER, PHASE_TARGET)
from org_edns_addon.fileio import write_atomically
from org_edns_addon.i18n import P_, _

# Each command imports what it needs when it runs: pykickstart, cryptography,
# dnspython and the staging code cost tens of milliseconds each to import, and
# `check` and `validate` are run by scripts and installer test VMs in loops.

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130   # 128 + SIGINT, what shells report for Ctrl-C


def _sentence(error):
    """ERROR's message; for an OSError its text alone, without "[Errno N]"."""
    return getattr(error, "strerror", None) or str(error)


def _errors(count):
    return P_("%d error", "%d errors", count) % count


def _warnings(count):
    return P_("%d warning", "%d warnings", count) % count


def _problem_json(problem):
    return {"file": problem.filename, "line": problem.lineno,
            "severity": problem.severity.value, "message": problem.message}


def run_validate(args):
    from org_edns_addon.ks.reader import parse_kickstart

    results = [parse_kickstart(path) for path in args.kickstarts]
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
        sys.stdout.buffer.write(converted.text.encode("utf-8"))
    else:
        print(P_("%s: wrote %s (%d section rewritten as %%addon org_edns_addon)",
                 "%s: wrote %s (%d sections rewritten as %%addon org_edns_addon)",
                 converted.count) % (args.kickstart, args.output, converted.count),
              file=sys.stderr)
    return EXIT_OK


def _staging_input(path, refusal):
    """The staging input of the kickstart at PATH, or None after printing REFUSAL and why."""
    from org_edns_addon.ks.reader import parse_kickstart

    parsed = parse_kickstart(path)
    for problem in parsed.errors:
        print(problem, file=sys.stderr)
    try:
        return parsed, parsed.staging_input()
    except ValueError as error:
        print("%s: %s: %s" % (path, refusal, error), file=sys.stderr)
        return parsed, None


def run_apply(args):
    from org_edns_addon.staging import StagingError
    from org_edns_addon.staging.apply import ApplyInterrupted, stage
    from org_edns_addon.staging.plan import Phase

    _parsed, data = _staging_input(args.kickstart, _("not applied"))
    if data is None:
        return EXIT_FAILED
    root = os.path.abspath(args.root)
    # Interrupts raise, so that the message says what the root holds; until it is
    # printed, a second one is ignored.
    with _interrupts_raised():
        try:
            report = stage(data, Phase(args.phase), root)
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


def run_boot_args(args):
    from org_edns_addon import initrd

    _parsed, data = _staging_input(args.kickstart, _("no boot options"))
    if data is None:
        return EXIT_FAILED
    try:
        options, warning = initrd.boot_args(data.config)
    except initrd.BootOptionsError as error:
        print(_("%s: no boot options: %s") % (args.kickstart, error), file=sys.stderr)
        return EXIT_FAILED
    print(" ".join(options))
    if warning:
        print(_("%s: warning: %s") % (args.kickstart, warning), file=sys.stderr)
    if data.config.routed_domains():
        print(_("%s: note: boot options carry only the servers for all names; the routed "
              "domains (%s) reach the initramfs only through the overlay "
              "(edns-addon overlay), and the installer through the kickstart")
              % (args.kickstart, ", ".join(data.config.routed_domains())), file=sys.stderr)
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
        return _usage_error("overlay", _("-o %s is the kickstart itself; name the image to "
                            "write, like -o overlay.img") % args.output)
    parsed, data = _staging_input(args.kickstart, _("no overlay written"))
    if data is None:
        return EXIT_FAILED
    try:
        boot_options = initrd.overlay_boot_options(data.config)
        warning = initrd.check_command_line(boot_options)
        plan = initrd.overlay_plan(parsed)
        image = initrd.overlay_image(plan)
    except (initrd.OverlayError, StagingError, OSError) as error:
        print(_("%s: no overlay written: %s") % (args.kickstart, _sentence(error)),
              file=sys.stderr)
        return EXIT_FAILED
    try:
        # The image holds the whole kickstart (root password, %post secrets): only its
        # owner reads it, whatever the umask and the kickstart's own mode.
        write_atomically(args.output, image, initrd.IMAGE_MODE)
    except OSError as error:
        print(_("%s: cannot write %s: %s") % (args.kickstart, args.output, _sentence(error)),
              file=sys.stderr)
        return EXIT_FAILED
    name = os.path.basename(args.output)
    print(_("%s: wrote %s (%d bytes): %s") % (args.kickstart, args.output, len(image), ", ".join(
        planned.path for planned in plan.files)))
    print()
    print(_("Boot the installer with these options:"))
    print("  " + " ".join(boot_options))
    if warning:
        print(_("%s: warning: %s") % (args.kickstart, warning), file=sys.stderr)
    print()
    print(_("Load the overlay as a second initrd, after the installer's:"))
    print(_("  GRUB:   initrd /images/pxeboot/initrd.img /images/pxeboot/%s") % name)
    print(_("  PXE:    initrd=initrd.img,%s") % name)
    print(_("or append it to the installer's initrd (the kernel unpacks both, in order):"))
    print(_("  cat initrd.img %s > initrd-edns.img") % name)
    return EXIT_OK


def run_updates_img(args):
    from org_edns_addon import packaging

    try:
        image = packaging.updates_image()
    except (packaging.PackagingError, OSError) as error:
        print(_("no updates image written: %s") % _sentence(error), file=sys.stderr)
        return EXIT_FAILED
    try:
        write_atomically(args.output, image, 0o644)
    except OSError as error:
        print(_("cannot write %s: %s") % (args.output, _sentence(error)), file=sys.stderr)
        return EXIT_FAILED
    print(_("wrote %s (%d bytes); boot the installer with inst.updates=URL-OF-%s")
          % (args.output, len(image), os.path.basename(args.output)))
    for note in packaging.carried_notes():
        print(_("%s: note: %s") % (args.output, note), file=sys.stderr)
    return EXIT_OK


def run_check(args):
    from org_edns_addon.probe import check_staging_input

    _parsed, data = _staging_input(args.kickstart, _("not checked"))
    if data is None:
        return EXIT_FAILED
    checks = check_staging_input(data, args.name, args.timeout)
    for check in checks:
        print(check.describe())
    return EXIT_OK if all(check.ok for check in checks) else EXIT_FAILED


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
    from org_edns_addon.model import ModelError, normalize_dns_name

    try:
        return normalize_dns_name(_argv_text(text), _("query name"))
    except ModelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run_tui(args):
    output = args.output or args.kickstart
    if output is None:
        return _usage_error("tui", _("give KICKSTART to edit, or -o OUT to write a new one"))
    if args.kickstart is not None and not os.path.lexists(args.kickstart):
        return _usage_error("tui", _("%s does not exist; to write a new kickstart there, run "
                            "edns-addon tui -o %s") % (args.kickstart, args.kickstart))
    # Said before the editing starts, not when saving at its end.
    directory = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output) or not os.path.isdir(directory):
        return _usage_error("tui", _("cannot write %s: %s; give the path of a file in an "
                            "existing directory") % (output, _("it is a directory")
                                                    if os.path.isdir(output) else
                                                    _("%s is not a directory") % directory))
    if sys.stdin is None or not sys.stdin.isatty():   # None: descriptor 0 is closed
        return _usage_error("tui", _("the text UI needs a terminal on standard input"))
    # Imported here: simpleline is needed by this command only.
    from org_edns_addon.tui.app import TerminalGone, run_standalone
    from org_edns_addon.tui.kickstart_file import KickstartFileError
    try:
        with _interrupts_raised():   # the screens end cleanly, the terminal restored
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


def _usage_error(command, message):
    print(_("edns-addon %s: error: %s") % (command, message), file=sys.stderr)
    return EXIT_USAGE


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and a one-line hint on usage errors."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, _("%s: error: %s\n") % (self.prog, message))


def build_parser():
    parser = _Parser(prog="edns-addon", description=(
        _("Encrypted DNS (DNS over TLS) for Anaconda installations: validate, convert, "
        "apply and package the %certificate and %addon org_edns_addon kickstart sections.")))
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    validate = commands.add_parser(
        "validate", help=_("check kickstarts; print FILE:LINE: error|warning: message"))
    validate.add_argument("kickstarts", nargs="+", metavar="KICKSTART")
    validate.add_argument("--json", action="store_true", help=_("print the findings as JSON"))
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
    apply.set_defaults(run=run_apply, needs=dependencies.READS_KICKSTART)

    boot_args = commands.add_parser(
        "boot-args", help=_("print the kernel options (rd.net.dns=...) for DoT in an initramfs"))
    boot_args.add_argument("kickstart", metavar="KICKSTART")
    boot_args.set_defaults(run=run_boot_args, needs=dependencies.READS_KICKSTART)

    overlay = commands.add_parser(
        "overlay", help=_("write an initrd overlay (gzip'd cpio) with the kickstart, the "
        "certificates and the DoT configuration, and print how to boot with it"))
    overlay.add_argument("kickstart", metavar="KICKSTART")
    overlay.add_argument("-o", "--output", required=True, metavar="FILE", type=_path,
                         help=_("the overlay image to write, like overlay.img"))
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
                       "else its TLS name)"))
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


class _Interrupts:
    """How Ctrl-C, SIGTERM and SIGHUP end a command: at once, with exit code 130 and a
    sentence (nothing is half-done where they are let through: every write holds them
    back), or, inside ``_interrupts_raised()``, as KeyboardInterrupt for code that
    must say what it did (apply) or clean up (the text UI)."""
    command = ""
    raised = False
    interrupted = False


def _on_interrupt(signum, _frame):
    if _Interrupts.raised:
        if _Interrupts.interrupted:   # the first one is being handled: its code ends the run
            return
        _Interrupts.interrupted = True
        raise KeyboardInterrupt(signal.Signals(signum).name)
    # os.write and os._exit: no Python I/O buffer is touched, whatever the code that
    # was running had half-done with it. Not translated: gettext imports (locale) when
    # called, and the code interrupted may be half-way through importing it.
    command = " " + _Interrupts.command if _Interrupts.command else ""
    os.write(2, ("edns-addon%s: interrupted\n" % command).encode())
    os._exit(EXIT_INTERRUPTED)


@contextlib.contextmanager
def _interrupts_raised():
    """Interrupts raise inside; after it, the run only says what was done (the files
    applied, the kickstart saved) and ends: they are held back from then on, so that a
    signal after the work cannot turn its report into a bare "interrupted"."""
    _Interrupts.raised = True
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        _Interrupts.raised = False


class _OutputError(Exception):
    """Standard output cannot be written (a full disk, /dev/full, an I/O error)."""


class _StandardOutput(io.FileIO):
    """Descriptor 1, whose write errors are told apart from every other OSError."""

    def write(self, data):
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _OutputError(error.strerror or str(error)) from None


def _checked_stdout():
    """sys.stdout as it was (encoding, buffering), over ``_StandardOutput``."""
    stdout = sys.stdout
    stdout.flush()
    return io.TextIOWrapper(io.BufferedWriter(_StandardOutput(stdout.fileno(), "w",
                                                              closefd=False)),
                            encoding=stdout.encoding, errors="backslashreplace",
                            line_buffering=stdout.line_buffering)


def _drop_stdout():
    """Point descriptor 1 at /dev/null, so that the exit's flush does not fail again."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def main(argv=None):
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    if _INHERITED_MASK is not None:
        mask = _INHERITED_MASK
    for signum in _INTERRUPTS:
        if signal.getsignal(signum) != signal.SIG_IGN:   # not when ignored (nohup, `&`)
            signal.signal(signum, _on_interrupt)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for stream in (sys.stdout, sys.stderr):
        # A file name or message the terminal's encoding cannot show is escaped,
        # never a UnicodeEncodeError traceback.
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    _Interrupts.command = args.command
    if sys.stdout is None:
        # Python's stand-in when descriptor 1 is closed: every line printed would be lost.
        return _usage_error(args.command, _("standard output is closed; redirect it to a file "
                            "or to /dev/null instead"))
    for library in dependencies.missing(args.needs):
        print(library.missing("edns-addon " + args.command), file=sys.stderr)
        return EXIT_USAGE
    if args.command != "tui":   # the text UI draws on the terminal its own way
        sys.stdout = _checked_stdout()
    try:
        return _run(args)
    finally:
        # The run is over and its exit code decided: a signal now would only replace that
        # code by a kill, while the interpreter shuts down.
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)


def _run(args):
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print(_("edns-addon %s: interrupted") % args.command, file=sys.stderr)
        return EXIT_INTERRUPTED
    except ImportError as error:
        # Not found by the check above (a lazy import), or found but too old or broken
        # (say, a pykickstart without %certificate).
        if dependencies.library_of(error) is None:
            raise
        print(dependencies.explain(error, "edns-addon " + args.command), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): what was not printed is lost, so this is no
        # success.
        _drop_stdout()
        return EXIT_FAILED
    except _OutputError as error:
        _drop_stdout()
        print(_("edns-addon %s: cannot write to standard output: %s; what it would have "
              "printed is lost") % (args.command, error), file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
