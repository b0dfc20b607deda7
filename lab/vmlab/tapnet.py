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

"""The guest's network: a tap in a private network namespace, and what lives there.

Only documentation addresses: the guest is 192.0.2.10 (or DHCP from
192.0.2.100-199) and 2001:db8::10; everything it talks to is an address of
the namespace's tap. Never qemu's user-mode network. In the namespace:

- DoT upstreams (Unbound, TLS on port 853 only, certificates from lab/certs.py
  through lab/dotlab.py), each answering its own zone and refusing the rest;
- an HTTPS server known only by name (``ks.corp.example``), as for inst.ks=https://;
- a DHCP server (dnsmasq) that offers a plaintext DNS server and a domain, and that
  plaintext server (Unbound on port 53, answering for the DHCP domain only);
- tcpdump on the tap, read back by ``Capture``: every packet the guest sends.
"""

import signal
import struct
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lab import dotlab

from lab.vmlab.site import (CHAIN_DOT, DHCP_DOMAIN, DHCP_RANGE, GATEWAY_IPV4, GATEWAY_IPV6,
                            GUEST_MAC, HOME_DOT, HTTPS_SERVER, IPV6_READY, MAIN_DOT,
                            MAIN_DOT_IPV6, PLAINTEXT_DNS, PORT_DOT, ROUTED_DOT, TAP)

# Every address the lab's servers listen on, on the namespace's side of the tap.
NAMESPACE_ADDRESSES = ("%s/24" % GATEWAY_IPV4, MAIN_DOT + "/24", IPV6_READY + "/24",
                       CHAIN_DOT + "/24", HTTPS_SERVER + "/24", PLAINTEXT_DNS + "/24",
                       PORT_DOT + "/24", "198.51.100.1/24", ROUTED_DOT + "/24",
                       HOME_DOT + "/24",
                       GATEWAY_IPV6 + "/64", MAIN_DOT_IPV6 + "/64")
STARTUP_SECONDS = 15


@dataclass
class Service:
    process: subprocess.Popen
    log_path: Path

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self):
        dotlab.stop_process(self.process)


class TapNetwork(dotlab.PrivateNetwork):
    """A private network namespace with a tap for the guest (qemu runs inside it too); its
    documentation addresses are those of the tap (NAMESPACE_ADDRESSES), not the lab's
    hosts of a PrivateNetwork."""

    @classmethod
    def create(cls):
        network = super().create(lab_hosts=False)
        script = ["ip tuntap add dev %s mode tap" % TAP, "ip link set %s up" % TAP]
        for address in NAMESPACE_ADDRESSES:
            # No duplicate address detection: the IPv6 addresses are usable at once.
            script.append("ip addr add %s dev %s%s" % (address, TAP,
                                                       " nodad" if ":" in address else ""))
        result = subprocess.run(network.command(["sh", "-ec", "; ".join(script)]),
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            network.stop()
            raise RuntimeError("cannot set up the tap: %s" % result.stderr.strip())
        return network

    def start_dot(self, workdir, name, listen, cert, key, zone, records, ready_address,
                  port=853):
        """Unbound as a DoT-only server on LISTEN (addresses, at PORT only) for ZONE only
        (a zone, or a list of them)."""
        zones = [zone] if isinstance(zone, str) else list(zone)
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        lines = ["server:"] + ["  interface: %s@%d" % (address, port) for address in listen] + [
            "  tls-port: %d" % port,
            '  tls-service-key: "%s"' % key,
            '  tls-service-pem: "%s"' % cert,
            "  do-udp: no",
            "  do-ip6: yes",
            "  do-daemonize: no",
            '  username: ""', '  chroot: ""', '  pidfile: ""',
            '  directory: "%s"' % workdir,
            "  use-syslog: no",
            '  logfile: "%s"' % (workdir / "unbound.log"),
            "  log-queries: yes",
            "  verbosity: 1",
            "  access-control: 0.0.0.0/0 allow",
            "  access-control: ::/0 allow",
            # Its own zone only; everything else is refused, never looked up.
            '  local-zone: "." refuse',
        ] + ['  local-zone: "%s" static' % each for each in zones] + [
            '  local-data: "%s"' % record for record in records]
        upstream = dotlab.start_unbound(workdir, "\n".join(lines) + "\n", ready_address, port,
                                        network=self, process_class=dotlab.DotUpstream,
                                        tls_name=name)
        return upstream

    def start_https(self, workdir, cert, key, files):
        """An HTTPS server on HTTPS_SERVER:443 serving FILES {path: bytes}; logs requests."""
        workdir = Path(workdir)
        root = workdir / "www"
        root.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            (root / name.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
            (root / name.lstrip("/")).write_bytes(content)
        log_path = workdir / "https.log"
        server = (
            "import http.server, ssl, sys, functools\n"
            "class H(http.server.SimpleHTTPRequestHandler):\n"
            "    def log_message(self, f, *a):\n"
            "        sys.stderr.write('%s %s\\n' % (self.client_address[0], f % a)); "
            "sys.stderr.flush()\n"
            "h = functools.partial(H, directory=sys.argv[1])\n"
            "s = http.server.HTTPServer((sys.argv[2], 443), h)\n"
            "c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(sys.argv[3], "
            "sys.argv[4])\n"
            "s.socket = c.wrap_socket(s.socket, server_side=True)\n"
            "print('up', flush=True)\n"
            "s.serve_forever()\n")
        log = open(log_path, "wb")
        process = subprocess.Popen(
            self.command([sys.executable, "-c", server, str(root), HTTPS_SERVER, str(cert),
                          str(key)]),
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
            preexec_fn=dotlab._die_with_parent)
        log.close()
        if process.stdout.readline() != b"up\n":
            dotlab.stop_process(process)
            raise RuntimeError("the HTTPS server did not start: %s" % log_path.read_text())
        return Service(process, log_path)

    def start_plaintext_dns(self, workdir, zones, records):
        """Unbound as the plaintext server DHCP offers: UDP and TCP port 53 of
        PLAINTEXT_DNS, answering for ZONES only (everything else refused), logging each
        query, so its log says what it was asked."""
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        lines = ["server:", "  interface: %s@53" % PLAINTEXT_DNS,
                 "  do-udp: yes", "  do-tcp: yes", "  do-ip6: no",
                 "  do-daemonize: no",
                 '  username: ""', '  chroot: ""', '  pidfile: ""',
                 '  directory: "%s"' % workdir,
                 "  use-syslog: no",
                 '  logfile: "%s"' % (workdir / "unbound.log"),
                 "  log-queries: yes",
                 "  verbosity: 1",
                 "  access-control: 0.0.0.0/0 allow",
                 '  local-zone: "." refuse',
                 ] + ['  local-zone: "%s" static' % zone for zone in zones] + [
                 '  local-data: "%s"' % record for record in records]
        return dotlab.start_unbound(workdir, "\n".join(lines) + "\n", PLAINTEXT_DNS, 53,
                                    network=self)

    def start_dhcp(self, workdir, dns_server=PLAINTEXT_DNS, domain=DHCP_DOMAIN):
        """dnsmasq as a DHCP server only (no DNS), offering DNS_SERVER and DOMAIN (option
        15, the connection's domain) to the guest."""
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        log_path = workdir / "dnsmasq.log"
        argv = ["dnsmasq", "--keep-in-foreground", "--port=0", "--no-resolv", "--no-hosts",
                "--interface=%s" % TAP, "--bind-interfaces", "--dhcp-authoritative",
                "--dhcp-range=%s,%s,255.255.255.0,1h" % DHCP_RANGE,
                "--dhcp-option=option:router,%s" % GATEWAY_IPV4,
                "--dhcp-option=option:dns-server,%s" % dns_server,
                "--dhcp-option=option:domain-name,%s" % domain,
                "--dhcp-leasefile=%s" % (workdir / "leases"), "--pid-file=",
                "--log-dhcp", "--log-facility=%s" % log_path, "--user=root"]
        process = subprocess.Popen(self.command(argv), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   preexec_fn=dotlab._die_with_parent)
        deadline = time.monotonic() + STARTUP_SECONDS
        while "DHCP, IP range" not in (log_path.read_text() if log_path.exists() else ""):
            if process.poll() is not None or time.monotonic() > deadline:
                dotlab.stop_process(process)
                raise RuntimeError("dnsmasq did not start: %s" % process.stderr.read().decode())
            time.sleep(0.05)
        return Service(process, log_path)

    def start_capture(self, path):
        """tcpdump on the tap, writing every packet to PATH; returns once it listens."""
        process = subprocess.Popen(
            self.command(["tcpdump", "-i", TAP, "-n", "-U", "--immediate-mode", "-s", "256",
                          "-w", str(path)]),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=dotlab._die_with_parent)
        line = process.stderr.readline().decode(errors="replace")
        if "listening on" not in line:
            dotlab.stop_process(process)
            raise RuntimeError("tcpdump did not start: %s" % line)
        return process

    def stop_capture(self, process):
        process.send_signal(signal.SIGINT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Frame:
    """One frame the guest sent: its protocol, addresses, destination port, and what
    it says (a TCP SYN, an ICMPv6 type) where the proof asks."""
    kind: str          # "tcp", "udp", "icmpv6", "icmp", "arp", ...
    destination: str
    port: int          # destination port (0 without one)
    source: str = ""
    syn: bool = False          # a TCP SYN without ACK: the guest opening a connection
    icmp_type: int = -1        # ICMPv6's type (135 neighbour solicitation, 133 router ...)


# ICMPv6 types of neighbour discovery (RFC 4861): router and neighbour solicitation and
# advertisement.
ND_TYPES = (133, 134, 135, 136)


def _mac(raw):
    return ":".join("%02x" % b for b in raw)


def read_capture(path, source_mac=GUEST_MAC):
    """Every frame from SOURCE_MAC in the pcap file at PATH."""
    import ipaddress

    data = Path(path).read_bytes()
    if len(data) < 24:
        return []
    endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    offset, frames = 24, []
    while offset + 16 <= len(data):
        _, _, captured, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        frame = data[offset + 16:offset + 16 + captured]
        offset += 16 + captured
        if _mac(frame[6:12]) != source_mac:
            continue
        ethertype = struct.unpack("!H", frame[12:14])[0]
        payload = frame[14:]
        if ethertype == 0x0806:
            frames.append(Frame("arp", "", 0))
            continue
        if ethertype == 0x0800:
            header = (payload[0] & 0x0F) * 4
            protocol = payload[9]
            source = str(ipaddress.IPv4Address(payload[12:16]))
            destination = str(ipaddress.IPv4Address(payload[16:20]))
            transport = payload[header:]
        elif ethertype == 0x86DD:
            protocol = payload[6]
            source = str(ipaddress.IPv6Address(payload[8:24]))
            destination = str(ipaddress.IPv6Address(payload[24:40]))
            transport = payload[40:]
        else:
            frames.append(Frame("ethertype-%04x" % ethertype, "", 0))
            continue
        kind = {6: "tcp", 17: "udp", 1: "icmp", 58: "icmpv6",
                0: "ipv6-hop-by-hop"}.get(protocol, str(protocol))
        port = struct.unpack("!H", transport[2:4])[0] if kind in ("tcp", "udp") else 0
        # TCP flags are byte 13 of its header: SYN 0x02, ACK 0x10.
        syn = kind == "tcp" and len(transport) > 13 and transport[13] & 0x12 == 0x02
        icmp_type = transport[0] if kind == "icmpv6" and transport else -1
        frames.append(Frame(kind, destination, port, source, syn, icmp_type))
    return frames


def by_port(frames):
    """{"tcp/853": count, "udp/67": count, "icmpv6": count, ...} of FRAMES."""
    return Counter("%s/%d" % (f.kind, f.port) if f.kind in ("tcp", "udp") else f.kind
                   for f in frames)
