"""Names and default paths of org_edns_addon: every constant lives here, once."""

ADDON_NAME = "org_edns_addon"
SECTION_NAME = "edns"
SECTION_OPEN = "%edns"
ADDON_SECTION_OPEN = "%addon " + ADDON_NAME

# D-Bus identity of the Anaconda module.
DBUS_SERVICE_NAME = "org.fedoraproject.Anaconda.Addons.Edns"
DBUS_OBJECT_PATH = "/org/fedoraproject/Anaconda/Addons/Edns"
DBUS_INTERFACE_NAME = DBUS_SERVICE_NAME

# Ports.
DOT_PORT = 853
PLAIN_DNS_PORT = 53

# Files below a root.
DOT_CA_BUNDLE_PATH = "/etc/pki/dns/extracted/pem/tls-ca-bundle.pem"
# Where a %certificate added in the text UI is placed (its --dir).
DOT_CA_DIR = "/etc/pki/dns/"
CA_TRUST_ANCHORS_DIR = "/etc/pki/ca-trust/source/anchors"
NM_CONF_DIR = "/etc/NetworkManager/conf.d"
# Sorts after NetworkManager's "16-global-dns.conf" (written from rd.net.dns=
# boot options), so the kickstart wins over boot options.
NM_KEYFILE_PATH = NM_CONF_DIR + "/60-edns-global-dns.conf"
UNBOUND_CONF_PATH = "/etc/unbound/conf.d/edns-forward.conf"
UNBOUND_LISTEN_ADDRESS = "127.0.0.55"
RESOLV_CONF_PATH = "/etc/resolv.conf"
DRACUT_CONF_PATH = "/etc/dracut.conf.d/60-edns.conf"
DRACUT_MODULES_DIR = "/usr/lib/dracut/modules.d"

# Units.
DNSCONFD_UNIT = "dnsconfd.service"
UNBOUND_UNIT = "unbound.service"
RESOLVED_UNIT = "systemd-resolved.service"

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

# The text UI: a PEM file larger than this is not a CA certificate.
MAX_PEM_FILE_BYTES = 1024 * 1024
