"""Anaconda text UI spokes of the encrypted DNS addon (Anaconda imports every module here)."""
