"""The real-stack lab: a Debian 13 (trixie) tree, NetworkManager 1.52 as a keyfile judge,
dracut initramfs images and qemu guests on a private tap network.

Nothing here is part of the addon; tests and ``make vm-proof`` use it.
"""
