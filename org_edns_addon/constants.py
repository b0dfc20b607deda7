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

"""Names and default paths of org_edns_addon: every constant lives here, once."""

ADDON_NAME = "org_edns_addon"
SECTION_OPEN = "%edns"
ADDON_SECTION_OPEN = "%addon " + ADDON_NAME

# Bounds on reading a kickstart, so that no input makes validation slow or large.
# Larger input (the kickstart and its included files together) is not a kickstart.
MAX_KICKSTART_BYTES = 16 * 1024 * 1024
# Deeper %include nesting is a mistake (or a loop through ever new names); it would
# otherwise end in Python's recursion limit.
MAX_INCLUDE_DEPTH = 50
# %include lines followed in all (a file included from ten places is read ten times):
# a few small files could otherwise make 10^5 reads.
MAX_INCLUDES = 1000
# The longest line that is split into words (a command, a section header, %end, %include,
# an encrypted DNS server): pykickstart's tokenizer takes time growing with the square of
# a word's length (800 KB: 12 s). Script and certificate bodies are not split.
MAX_KICKSTART_LINE = 8192
# Commands checked (pykickstart compares each new user, network, part ... line with every
# earlier one: 10 000 of them take 20 s).
MAX_KICKSTART_COMMANDS = 2000
# Problems kept of each severity (the others are counted); reading stops after as many.
MAX_PROBLEMS = 1000
# The longest file name (one path component) Linux file systems take, in bytes (NAME_MAX),
# and the longest path (PATH_MAX).
MAX_FILE_NAME_BYTES = 255
MAX_PATH_BYTES = 4096

# The gettext domain of every user-visible sentence: the name of the RPM that installs its
# catalogues, as Anaconda's addons name theirs (kdump-anaconda-addon, oscap-anaconda-addon);
# po/edns-anaconda-addon.pot, /usr/share/locale/LANG/LC_MESSAGES/edns-anaconda-addon.mo.
TRANSLATION_DOMAIN = "edns-anaconda-addon"
# Where the catalogues are installed (make install, the RPM, the updates image), and so
# looked up: Python's own default is below its prefix, not there for every Python.
LOCALE_DIR = "/usr/share/locale"

# Phases: where staging writes (the installer's root, or the installed system's).
PHASE_INSTALLER = "installer"
PHASE_TARGET = "target"

# Ports.
DOT_PORT = 853
PLAIN_DNS_PORT = 53

# Files below a root.
DOT_CA_BUNDLE_PATH = "/etc/pki/dns/extracted/pem/tls-ca-bundle.pem"
# Where a %certificate added in the text UI or over D-Bus is placed (its --dir).
DOT_CA_DIR = "/etc/pki/dns/"
CA_TRUST_ANCHORS_DIR = "/etc/pki/ca-trust/source/anchors"
NM_CONF_DIR = "/etc/NetworkManager/conf.d"
# Sorts after NetworkManager's "16-global-dns.conf" (written from rd.net.dns=
# boot options), so the kickstart wins over boot options.
NM_KEYFILE_PATH = NM_CONF_DIR + "/60-edns-global-dns.conf"
UNBOUND_CONF_PATH = "/etc/unbound/conf.d/edns-forward.conf"
UNBOUND_LISTEN_ADDRESS = "127.0.0.55"
RESOLV_CONF_PATH = "/etc/resolv.conf"
# What FreeIPA's client writes for `ipa-client-install --dns-over-tls`
# (ipaplatform/base/paths.py UNBOUND_CONF, NETWORK_MANAGER_IPA_CONF): its own
# Unbound forwarder on 127.0.0.55 and NetworkManager dns=none.
FREEIPA_UNBOUND_CONF_PATH = "/etc/unbound/conf.d/zzz-ipa.conf"
FREEIPA_NM_CONF_PATH = NM_CONF_DIR + "/zzz-ipa.conf"
# Where it keeps what it set aside (ipaplatform/base/paths.py IPA_CLIENT_SYSRESTORE) and
# the index of those files (ipalib/sysrestore.py SYSRESTORE_INDEXFILE), which its
# uninstall may fail to read back (staging/freeipa.py).
FREEIPA_SYSRESTORE_DIR = "/var/lib/ipa-client/sysrestore"
FREEIPA_SYSRESTORE_INDEX_PATH = FREEIPA_SYSRESTORE_DIR + "/sysrestore.index"
# Whether its client counts itself installed (ipalib/facts.py is_ipa_client_configured):
# its state file (ipalib/sysrestore.py SYSRESTORE_STATEFILE), else its default.conf
# (ipaplatform/base/paths.py IPA_DEFAULT_CONF).
FREEIPA_SYSRESTORE_STATE_PATH = FREEIPA_SYSRESTORE_DIR + "/sysrestore.state"
FREEIPA_DEFAULT_CONF_PATH = "/etc/ipa/default.conf"
UNBOUND_CONF_DIR = "/etc/unbound/conf.d"
DRACUT_CONF_PATH = "/etc/dracut.conf.d/60-edns.conf"
# What apply owns below a root (staging/record.py): the record of what the last apply
# wrote, and the journal of the temporary names a running apply may leave.
APPLY_STATE_DIR = "/var/lib/edns-addon"
APPLY_RECORD_PATH = APPLY_STATE_DIR + "/applied.json"
APPLY_JOURNAL_PATH = APPLY_STATE_DIR + "/journal.json"
DRACUT_MODULES_DIR = "/usr/lib/dracut/modules.d"
# The system trust store: what the servers are authenticated against without --ca
# (Unbound's tls-cert-bundle, the target initramfs's install_items). p11-kit's
# update-ca-trust extracts the server-authentication anchors there on every line (EL9,
# EL10, Fedora; ca-certificates.spec ghosts it), dnsconfd falls back to it after its
# own bundle (dnsconfd src/configuration_parsing/global_options.c, default
# certification_authority "/etc/pki/dns/extracted/pem/tls-ca-bundle.pem
# /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem") and its dracut module installs it
# (distribution/dracut_module/module-setup.sh), and Anaconda's initramfs appends the
# kickstart's anchors to it (anaconda main and rhel-10, dracut/parse-kickstart
# CA_BUNDLE_PATH, _append_to_ca_bundle). Fedora 43 dropped the older
# /etc/pki/tls/certs/ca-bundle.crt (Fedora Changes/dropingOfCertPemFile; FreeIPA commit
# f6ffcca0 "DNS over TLS: use system trust store": "does not exist any more in fedora 43+").
SYSTEM_CA_BUNDLE_PATH = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"
# Every file of the system trust store on some line: what update-ca-trust extracts
# (p11-kit's formats below /etc/pki/ca-trust/extracted) and the links to them that older
# lines keep in /etc/pki/tls and /etc/pki/java (ca-certificates.spec). Each must stay a
# file: no %certificate lands below one (certificates.landing_problem).
# The links of older lines (lines.py: Line.legacy_ca_bundle says which have them).
SYSTEM_TRUST_LEGACY_FILES = (
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/pki/tls/certs/ca-bundle.trust.crt",
    "/etc/pki/tls/cert.pem",
    "/etc/pki/java/cacerts",
)
SYSTEM_TRUST_STORE_FILES = (
    SYSTEM_CA_BUNDLE_PATH,
    "/etc/pki/ca-trust/extracted/pem/email-ca-bundle.pem",
    "/etc/pki/ca-trust/extracted/pem/objsign-ca-bundle.pem",
    "/etc/pki/ca-trust/extracted/openssl/ca-bundle.trust.crt",
    "/etc/pki/ca-trust/extracted/java/cacerts",
    "/etc/pki/ca-trust/extracted/edk2/cacerts.bin",
) + SYSTEM_TRUST_LEGACY_FILES
# Modes of what staging writes.
FILE_MODE = 0o644
DIR_MODE = 0o755
# Where binaries of a root are looked for (is a command installed there?).
ROOT_BINARY_DIRS = ("/usr/bin", "/usr/sbin", "/bin", "/sbin")
# systemd unit directories below a root, searched in this order.
SYSTEMD_UNIT_DIRS = ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system")
SYSTEMD_ENABLE_DIR = "/etc/systemd/system"
# Exists only while systemd runs as PID 1 (sd_booted()).
SYSTEMD_RUNNING_MARKER = "/run/systemd/system"

# Units.
DNSCONFD_UNIT = "dnsconfd.service"
UNBOUND_UNIT = "unbound.service"
RESOLVED_UNIT = "systemd-resolved.service"
# --backend=unbound: the unit that, before Unbound starts, takes our Unbound file out of
# conf.d while FreeIPA's forwarder is there and puts it back from the copy kept outside
# conf.d (which FreeIPA never sets aside) once FreeIPA's is gone (staging/freeipa.py).
FREEIPA_HANDOVER_UNIT = "edns-freeipa-handover.service"
FREEIPA_HANDOVER_UNIT_PATH = SYSTEMD_ENABLE_DIR + "/" + FREEIPA_HANDOVER_UNIT
UNBOUND_CONF_KEPT_PATH = "/etc/unbound/edns-forward.conf.kept"
# --backend=dnsconfd, in an initramfs: Unbound starts only once dnsconfd has written its
# configuration (staging/dnsconfd.py). dnsconfd's tmpfiles create that file empty at boot
# (dnsconfd-unbound-tmpfiles.conf); systemd and dracut mark an initramfs by initrd-release.
UNBOUND_DNSCONFD_DROPIN_PATH = (SYSTEMD_ENABLE_DIR
                                + "/unbound.service.d/60-edns-dnsconfd-first.conf")
DNSCONFD_UNBOUND_CONF_PATH = "/run/dnsconfd/unbound.conf"
INITRD_RELEASE_PATH = "/etc/initrd-release"
# The shell the handover unit runs (usr-merged on every line).
SH = "/usr/bin/sh"

# Packages the installed system needs, per backend.
CA_PACKAGE = "ca-certificates"
DNSCONFD_PACKAGES = ("dnsconfd", "dnsconfd-dracut")
UNBOUND_PACKAGES = ("unbound",)

# Kernel boot options understood by NetworkManager's initrd generator.
BOOT_OPTION_DNS = "rd.net.dns"
BOOT_OPTION_RESOLVE_MODE = "rd.net.dns-resolve-mode"
BOOT_OPTION_BACKEND = "rd.net.dns-backend"

# Certificate types pykickstart knows for %certificate --type.
CERT_TYPE_ANCHOR = "anchor"
# Where %certificate --type=X goes (it wins over --dir), as Anaconda's Security module places it.
CERT_TYPE_DIRS = {CERT_TYPE_ANCHOR: CA_TRUST_ANCHORS_DIR}

# Commands the staging actions run.
UPDATE_CA_TRUST_COMMAND = ("update-ca-trust", "extract")
NM_RELOAD_COMMAND = ("nmcli", "general", "reload")
SYSTEMCTL = "systemctl"
CHROOT = "chroot"

# Dracut modules added to the target initramfs when the target has them.
DRACUT_MODULE_DNSCONFD = "dnsconfd"
DRACUT_MODULE_OPENSSL = "openssl"
# Fedora's unbound-dracut (70unbound): the unbound backend's resolver in the initramfs.
DRACUT_MODULE_UNBOUND = "unbound"
# NetworkManager's initrd generator accepts only these rd.net.dns-backend
# values; dnsconfd is the one that speaks DoT.
INITRD_DNS_BACKEND = "dnsconfd"

# The longest kernel command line, in bytes: Linux's COMMAND_LINE_SIZE (2048 on
# x86_64, aarch64 and ppc64le) less its final NUL, which x86's boot header gives boot
# loaders as cmdline_size (arch/x86/boot/header.S). GRUB fills the command line up to
# it and drops every option after without a word (grub-core/lib/cmdline.c,
# grub_create_loader_cmdline); the kernel cuts what is longer.
KERNEL_COMMAND_LINE_MAX_BYTES = 2047
# Room left for what the boot loader and the installer put there themselves
# (BOOT_IMAGE=, inst.stage2= or inst.repo=, ip=, console=): boot options that leave
# less are warned about.
BOOT_LOADER_OPTIONS_RESERVE_BYTES = 512

# The installer initrd overlay.
OVERLAY_KICKSTART_PATH = "/edns-ks.cfg"
BOOT_OPTION_KICKSTART = "inst.ks"
BOOT_OPTION_NEEDNET = "rd.neednet"
# Fixed timestamp of every overlay entry, so the same kickstart gives the same bytes.
OVERLAY_MTIME = 0

# Where Anaconda looks for addons and their D-Bus files (an updates image and
# `make install` use the same layout).
ANACONDA_ADDONS_DIR = "/usr/share/anaconda/addons"
ANACONDA_DBUS_SERVICES_DIR = "/usr/share/anaconda/dbus/services"
ANACONDA_DBUS_CONFS_DIR = "/usr/share/anaconda/dbus/confs"
# Inside the addon's directory of an updates image: pure-Python libraries an installer
# image may lack (dnspython), found after the image's own (org_edns_addon/__init__.py).
CARRIED_LIBRARIES_DIR = "site-packages"

# Pre-flight check of the DNS servers (`edns-addon check`).
CHECK_TIMEOUT_SECONDS = 5.0
# The longest --timeout `edns-addon check` takes: longer is a typo, not a slow server.
CHECK_TIMEOUT_MAX_SECONDS = 300.0
# The longest CheckServers may take: it answers within timeout + about 1 s, which
# must stay below the 25 s a D-Bus client (GLib) waits for a reply by default.
DBUS_CHECK_TIMEOUT_MAX_SECONDS = 20.0
CHECK_QUERY_TYPE = "A"
# What the check asks a server whose TLS name is an address (or that has none), unless
# the user names a name: every caching server answers it itself (RFC 6761 6.3), with or
# without the Internet (probe.query_name).
CHECK_SELF_ANSWERED_NAME = "localhost"
# At most this many servers are checked at once, each with its own socket (in one thread):
# more could run out of file descriptors (1 024 by default); the rest wait for a free one.
CHECK_MAX_PARALLEL = 256
# At most this many TLS handshakes share the CPU at once (a silent server leaves its
# place after a few milliseconds, probe/loop.py _SLOT_SECONDS): so that each handshake's time
# is the server's and the network's, not that of waiting for the other handshakes.
CHECK_HANDSHAKES_AT_ONCE = 4
# Text a server controls (certificate names, error details) is shown escaped and cut to
# this many characters, and at most this many of a certificate's names are listed.
CHECK_SHOWN_TEXT_CHARS = 100
CHECK_SHOWN_NAMES = 10

# Where a PEM file is looked for first in the graphical spoke: the installation media as
# Anaconda's initramfs mounts it (pyanaconda.core.constants.DRACUT_REPO_DIR).
INSTALLER_MEDIA_DIR = "/run/install/repo"

# PEM text larger than this (a %certificate body, a file in the text UI, AddCertificate
# over D-Bus) is not a CA certificate or bundle (the whole system trust store is ~250 KiB).
MAX_PEM_BYTES = 1024 * 1024

# What the D-Bus module and the text UI take from a client: more DNS servers than this is
# a mistake (or an attack), not a network, and below it every write, Validate() and the
# pre-flight check answer within a fraction of a second.
MAX_SERVERS = 256
# The most names in one list: the routed domains (of every server together), the search
# domains, the --ca names.
MAX_NAMES_PER_LIST = 1024
# The longest text a client may give for a name over D-Bus, refused before any rule reads
# (and echoes) it: well above every valid name (a DNS name has at most 253 characters, a
# file name at most 255 bytes, 4 per character), so the rules themselves explain near misses.
MAX_DBUS_NAME_CHARS = 1024
# A D-Bus call whose values are larger than this is refused before they are read (dasbus
# reads 100 000 servers for longer than a client waits); the largest legitimate call,
# AddCertificate with a PEM text of MAX_PEM_BYTES, fits.
MAX_DBUS_CALL_BYTES = 2 * MAX_PEM_BYTES
# A user's value echoed in an error or a log line is cut here (and says how long it was):
# a refusal of a 10 MB value stays one short line.
ECHO_MAX_CHARS = 80
# A D-Bus error message longer than this is cut (a client calls Validate() for every problem).
MAX_DBUS_ERROR_CHARS = 4096

# Every file this addon writes, or moves one to, below a root: each ``*_PATH`` above
# (staging's plans, the copy the FreeIPA handover unit puts back, the overlay's
# kickstart, apply's record and journal), derived here so that a new one is covered the
# day it is named, but those that are other programs' files, which the addon only reads
# or looks for. No %certificate may land on one, below one, or where one needs a
# directory (certificates.landing_problem); the DoT CA bundle is the one a certificate
# may itself be.
_OTHER_PROGRAMS_PATHS = ("SYSTEM_CA_BUNDLE_PATH", "FREEIPA_UNBOUND_CONF_PATH",
                         "FREEIPA_NM_CONF_PATH", "FREEIPA_SYSRESTORE_INDEX_PATH",
                         "FREEIPA_SYSRESTORE_STATE_PATH", "FREEIPA_DEFAULT_CONF_PATH",
                         "DNSCONFD_UNBOUND_CONF_PATH", "INITRD_RELEASE_PATH")
ADDON_WRITTEN_PATHS = tuple(sorted(value for name, value in list(globals().items())
                                   if name.endswith("_PATH")
                                   and name not in _OTHER_PROGRAMS_PATHS))
