#!/bin/bash
# The proof runner of `make vm-proof`: its clients and a unit that runs
# /etc/edns-proof/run.sh (appended per run) once the network is up.

check() {
    return 255
}

depends() {
    echo systemd dbus
    return 0
}

install() {
    inst_multiple getent curl sha256sum cat timeout busctl systemctl ip sleep date \
        tr head tail grep sed wc ls cut
    inst_multiple -o nm-online nmcli journalctl poweroff
    inst_simple "$moddir/edns-proof.sh" /usr/lib/edns-proof/edns-proof.sh
    inst_simple "$moddir/edns-proof.service" "$systemdsystemunitdir/edns-proof.service"
    $SYSTEMCTL -q --root "$initdir" enable edns-proof.service
}
