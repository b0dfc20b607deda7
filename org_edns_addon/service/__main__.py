"""What Anaconda runs: ``start-module org_edns_addon.service`` (see data/*.service)."""

from pyanaconda.modules.common import init

init()  # before any other pyanaconda import: logging and locale

from org_edns_addon.service.edns import EdnsService  # noqa: E402 (after init())

EdnsService().run()
