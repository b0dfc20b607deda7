"""The Anaconda D-Bus module of the addon: the only package that imports pyanaconda."""
