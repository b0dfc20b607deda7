"""What Anaconda runs: ``start-module org_edns_addon.service`` (see data/*.service)."""

from pyanaconda.modules.common import init

init()  # before any other pyanaconda import: logging and locale

# pylint: disable=wrong-import-position
from org_edns_addon.service.edns import EdnsService

EdnsService().run()
