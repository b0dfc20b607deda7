"""The lab: what the tests, the benchmarks, the demo's proof and ``make vm-proof`` build
and run around the addon (kickstart text, certificates, DoT servers, networks, booted
images). Not part of the addon, not tests; nothing here needs pytest."""
