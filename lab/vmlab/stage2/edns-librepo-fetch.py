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

"""python3 edns-librepo-fetch.py URL CA: the repository metadata at URL, fetched as
Anaconda's payload fetches it (librepo, the library under dnf and the payload's own
repository checks), trusting CA alone (LRO_SSLCACERT, the kickstart's %certificate).

Prints one proof line: "librepo URL ok REVISION PRIMARY-SHA256" with repomd.xml's
revision and the checksum of the primary metadata librepo verified, or
"librepo URL fail ERROR"."""

import sys
import tempfile


def main(url, ca):
    import librepo

    with tempfile.TemporaryDirectory(prefix="edns-librepo.") as destdir:
        handle = librepo.Handle()
        handle.repotype = librepo.LR_YUMREPO
        handle.urls = [url]
        handle.destdir = destdir
        handle.sslcacert = ca
        handle.sslverifypeer = True
        handle.sslverifyhost = True
        handle.yumdlist = ["primary"]
        handle.connecttimeout = 20
        result = librepo.Result()
        try:
            handle.perform(result)
        except librepo.LibrepoException as error:
            print("EDNS-PROOF librepo %s fail %s" % (url, " ".join(str(error).split())))
            return 1
        repomd = result.getinfo(librepo.LRR_YUM_REPOMD)
        print("EDNS-PROOF librepo %s ok %s %s" % (url, repomd["revision"],
                                                  repomd["primary"]["checksum"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
