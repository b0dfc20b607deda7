#
# Encrypted DNS with the org_edns_addon addon (kickstart-tests format).
#
# The lab provides: a DoT server and a routed one it can reach, their CA as the
# fragment data/edns-dot-ca.pem, the KSTEST_EDNS_* values (README.md beside this
# file), and the addon's updates image (make updates.img) at KSTEST_EDNS_UPDATES
# or through run_kickstart_tests.sh -u.

# Ignore unused variable parsed out by tooling scripts as test tags metadata
# shellcheck disable=SC2034
TESTTYPE=${TESTTYPE:-"network dns edns-addon"}
KICKSTART_NAME=edns-dot-exclusive

. ${KSTESTDIR}/functions.sh

kernel_args() {
    # What `edns-addon boot-args` prints for this kickstart: the servers for all names
    # (the routed domain and the CA reach the initramfs through the kickstart itself,
    # which is injected into the initrd and whose %certificate parse-kickstart imports).
    echo ${DEFAULT_BOOTOPTS} \
        rd.net.dns=dns+tls://${KSTEST_EDNS_DOT_SERVER}#${KSTEST_EDNS_DOT_NAME} \
        rd.net.dns-resolve-mode=exclusive rd.net.dns-backend=dnsconfd \
        ${KSTEST_EDNS_UPDATES:+inst.updates=${KSTEST_EDNS_UPDATES}}
}

additional_runner_args() {
    # Wait for reboot and shutdown of the VM, but exit after the specified timeout.
    echo "--wait $(get_timeout)"
}
