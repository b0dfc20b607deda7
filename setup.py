from setuptools import find_packages, setup

setup(
    name="org_edns_addon",
    version="0.1.0",
    description="Anaconda addon: system-wide encrypted DNS (DNS over TLS) from kickstart",
    license="GPL-2.0-or-later",
    packages=find_packages(include=["org_edns_addon", "org_edns_addon.*"]),
    python_requires=">=3.9",
    install_requires=["pykickstart", "cryptography", "dnspython", "idna"],
    extras_require={"dbus": ["dasbus"], "tui": ["simpleline"]},
    entry_points={"console_scripts": ["edns-addon = org_edns_addon.cli:main"]},
)
