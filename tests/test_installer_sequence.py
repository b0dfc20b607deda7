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

"""Our steps composed with Anaconda's own, in the installer's order, on each line's code.

The installed system as the installer leaves it is not what ``edns-addon apply`` alone
makes: before our task, the network module copies nm-initrd-generator's
``/run/NetworkManager/conf.d/16-*.conf`` (made of our own ``rd.net.dns*`` boot options)
into the target and, because of ``rd.net.dns-backend=dnsconfd``, enables dnsconfd; the
Security module has written the ``%certificate`` files. lab/installer_sequence.py runs
that sequence with the checkout's own code (ANACONDA_SRC, see docs/testing.md); this
judges the target it leaves:

- NetworkManager 1.52 reads the whole merged conf.d without a warning, with the ``dns=``
  the kickstart asked; with ``dns=dnsconfd`` its global DNS is exactly our keyfile's;
- the tree's unbound-checkconf (1.26) accepts the merged Unbound configuration, with
  dnsconfd's conf.d include in place, and its ``tls-cert-bundle`` is the DoT trust's;
- exactly one resolver stack is enabled, and resolv.conf points at it (unbound backend);
- every CA file is where the trust expects it.

Every example in data/examples (a ``%edns`` one as ``edns-addon convert`` rewrites it)
and every kickstart the suite validated clean, with both backends: those of the same run
(it runs last), and those a fast run recorded (``EDNS_KICKSTART_CORPUS_OUT=DIR`` there,
``EDNS_KICKSTART_CORPUS=DIR`` here; docs/testing.md), read again with the line's
pykickstart.
"""

import os
from pathlib import Path

import pytest

from lab import installer_sequence
from lab.vmlab import networkmanager
from org_edns_addon import constants as c
from org_edns_addon import initrd
from org_edns_addon.ks.convert import converted_bytes
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.model import Backend
from org_edns_addon.trust import dot_trust
from tests.anaconda_fixtures import anaconda_line, skip_module_without
from tests.conftest import KICKSTART_CORPUS_ENV, REPO
from tests.ks_fixtures import VALIDATED_KICKSTARTS
from tests.staging_fixtures import require_namespaces, require_tools

pytestmark = pytest.mark.anaconda

skip_module_without("pyanaconda.modules.network.installation",
                    "pyanaconda.modules.security.certificates.installation")

EXAMPLES = sorted((REPO / "data" / "examples").glob("*.ks"))
STACKS = {Backend.DNSCONFD: c.DNSCONFD_UNIT, Backend.UNBOUND: c.UNBOUND_UNIT}


def _with_backend(parsed, backend, directory, number):
    """(path, ParsedKickstart) of PARSED with BACKEND, the section spelled %addon, written in
    DIRECTORY; PARSED itself where it has an %include (which names files relative to it)
    and already has BACKEND; None when validation refuses it with BACKEND."""
    places = parsed.edns_places
    if parsed.includes:
        if parsed.config.backend != backend or any(p.spelling == c.SECTION_OPEN
                                                   for p in places):
            return None
        return parsed.filename, parsed
    text = converted_bytes(parsed.text, [p.lineno for p in places
                                         if p.spelling == c.SECTION_OPEN]).decode("utf-8")
    lines = text.splitlines(keepends=True)
    header = lines[places[0].lineno - 1]
    words = [w for w in header.rstrip("\n").split(" ") if not w.startswith("--backend=")]
    lines[places[0].lineno - 1] = " ".join(words) + " --backend=%s\n" % backend.value
    path = directory / ("%d-%s-%s" % (number, backend.value, Path(parsed.filename).name))
    path.write_text("".join(lines))
    variant = parse_kickstart(str(path))
    if variant.errors or variant.config is None:
        return None
    return str(path), variant


def _paths_of_trust(parsed):
    trust = dot_trust(parsed.config, parsed.certificates)
    return [cert.path for cert in parsed.certificates] + [trust.path]


def _job(path, parsed, trixie, base, anaconda_src, scratch):
    try:
        options, _warning = initrd.boot_args(parsed.config)
        boot_args = [str(option) for option in options]
    except initrd.BootOptionsError:
        boot_args = []     # this kickstart cannot be booted with them (validate says why)
    generated = networkmanager.initrd_generator(trixie, boot_args + ["ip=dhcp"]) \
        if boot_args else {}
    return installer_sequence.job(path, boot_args + ["ip=dhcp"], generated, trixie, [base],
                                  anaconda_src, scratch, _paths_of_trust(parsed))


def _run_sequence(jobs, tmp_path):
    result, results = installer_sequence.run(jobs, tmp_path)
    assert result.returncode == 0 and results is not None, result.stderr[-4000:]
    return results


def _judge(parsed, result, trixie):
    """Every way the composed target differs from what the kickstart asked, as sentences."""
    if "error" in result:
        return ["the sequence failed: %s" % result["error"][-1500:]]
    wrong = []
    config = parsed.config
    pk = result["parse_kickstart"]
    if pk["returncode"] != 0 or "rror" in pk["log"]:
        wrong.append("parse-kickstart: exit %d: %s" % (pk["returncode"], pk["log"][-500:]))
    for cert in parsed.certificates:
        if cert.path not in pk["written"]:
            wrong.append("parse-kickstart did not place %s" % cert.path)
    target = result["target"]
    merged = {name: text.encode() for name, text in target["nm_conf_d"].items()}
    ours = {os.path.basename(c.NM_KEYFILE_PATH): merged.get(os.path.basename(c.NM_KEYFILE_PATH))}
    reading = networkmanager.read_config(trixie, merged)
    if reading.config_warnings:
        wrong.append("NetworkManager 1.52 warns on the merged conf.d %s: %s"
                     % (sorted(merged), reading.config_warnings))
    asked = "none" if config.backend == Backend.UNBOUND else "dnsconfd"
    if reading.dns_mode != asked:
        wrong.append("NetworkManager runs dns=%s, not %s" % (reading.dns_mode, asked))
    if config.backend == Backend.DNSCONFD:
        alone = networkmanager.read_config(trixie, ours)
        if reading.global_dns != alone.global_dns:
            wrong.append("NetworkManager's global DNS %r is not our keyfile's %r"
                         % (reading.global_dns, alone.global_dns))
    status, text = target["checkconf"]
    if status != 0:
        wrong.append("unbound-checkconf refuses the merged configuration: %s" % text.strip())
    trust = dot_trust(config, parsed.certificates)
    if config.backend == Backend.UNBOUND and target["tls_cert_bundle"] != [trust.path]:
        wrong.append("Unbound's tls-cert-bundle is %s, not the DoT trust's %s"
                     % (target["tls_cert_bundle"], trust.path))
    enabled = sorted(unit for unit, links in target["enabled"].items() if links)
    if enabled != [STACKS[config.backend]]:
        wrong.append("resolver units enabled: %s (after the network module: %s), not %s alone"
                     % (enabled, sorted(u for u, links in result["after_network"].items()
                                        if links), STACKS[config.backend]))
    if config.backend == Backend.UNBOUND and "nameserver %s\n" % c.UNBOUND_LISTEN_ADDRESS \
            not in (target["resolv_conf"] or ""):
        wrong.append("resolv.conf does not point at Unbound: %r" % target["resolv_conf"])
    for path in _paths_of_trust(parsed):
        if not target["exists"].get(path) and path != c.SYSTEM_CA_BUNDLE_PATH:
            wrong.append("%s is missing from the target" % path)
    return wrong


def _compositions(trixie, base, tmp_path):
    """[(label, ParsedKickstart, job)] for every example and validated kickstart, both backends."""
    corpus = os.environ.get(KICKSTART_CORPUS_ENV)
    recorded = sorted(Path(corpus).glob("*.ks")) if corpus else []
    # Read again with this line's pykickstart: what it does not validate clean is left out.
    sources = [parse_kickstart(str(path)) for path in EXAMPLES + recorded]
    seen, compositions = set(), []
    for parsed in sources + list(VALIDATED_KICKSTARTS):
        if parsed.text is None or parsed.text in seen or parsed.config is None:
            continue
        seen.add(parsed.text)
        for backend in Backend:
            made = _with_backend(parsed, backend, tmp_path, len(compositions))
            if made is None:
                continue
            path, variant = made
            scratch = tmp_path / ("scratch-%d" % len(compositions))
            scratch.mkdir()
            compositions.append(("%s (--backend=%s)" % (parsed.filename, backend.value),
                                 variant, _job(path, variant, trixie, base,
                                               os.environ["ANACONDA_SRC"], scratch)))
    return compositions


def test_every_kickstart_composed_with_the_installers_own_steps_gives_the_target_it_asked(
        trixie, target_base, tmp_path):
    require_namespaces("--mount")
    require_tools("unshare", "mount", "chroot", "systemctl")
    if os.geteuid() != 0 or "ANACONDA_SRC" not in os.environ:
        pytest.skip("needs root and ANACONDA_SRC (the anaconda checkout whose code runs)")
    compositions = _compositions(trixie, target_base, tmp_path)
    results = _run_sequence([job for _label, _parsed, job in compositions], tmp_path)
    failures = []
    not_extracted = 0
    for (label, parsed, _), result in zip(compositions, results):
        for sentence in _judge(parsed, result, trixie):
            failures.append("%s: %s" % (label, sentence))
        if result.get("security", "ok") != "ok":
            # Fedora's update-ca-trust is not in the trixie target: the anchors are placed,
            # the extracted system bundle is not made.
            assert "update-ca-trust" in result["security"], result["security"]
            not_extracted += 1
    print("\ncomposed %d (kickstart, backend) pairs of %d kickstarts on %s (%s); %d without "
          "update-ca-trust's extraction (not in the trixie target)"
          % (len(compositions), len({label.rsplit(" (", 1)[0] for label, _p, _j in compositions}),
             anaconda_line() or "?", os.environ["ANACONDA_SRC"], not_extracted))
    assert compositions, "nothing was composed"
    assert failures == [], "\n".join(failures[:30])
