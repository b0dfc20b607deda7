"""org_edns_addon: system-wide encrypted DNS (DNS over TLS) for Anaconda installations."""

__version__ = "0.1.0"
