"""The baseline of the Anaconda start-up figure: an Anaconda module with nothing in it.

Started as Anaconda starts a module (``python3 -m``, ``DBUS_STARTER_ADDRESS``):
pyanaconda's own start-up, one empty ``KickstartModuleInterface`` and a name
on the bus. Needs pyanaconda importable.
"""

from pyanaconda.modules.common import init

init()

# pylint: disable=wrong-import-position
from dasbus.server.interface import dbus_interface  # noqa: E402
from pyanaconda.core.dbus import DBus  # noqa: E402
from pyanaconda.modules.common.base import KickstartModuleInterface, KickstartService  # noqa: E402

BASELINE_MODULE_NAME = "org.fedoraproject.Anaconda.Addons.EdnsBaselineModule"


@dbus_interface(BASELINE_MODULE_NAME)
class EmptyModuleInterface(KickstartModuleInterface):
    """Anaconda's kickstart members and nothing else."""


class EmptyModule(KickstartService):
    def publish(self):
        DBus.publish_object("/" + BASELINE_MODULE_NAME.replace(".", "/"),
                            EmptyModuleInterface(self))
        DBus.register_service(BASELINE_MODULE_NAME)


if __name__ == "__main__":
    EmptyModule().run()
