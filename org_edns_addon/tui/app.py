"""``edns-addon tui``: the editor's screens in a simpleline App, on a kickstart file."""

from simpleline import App
from simpleline.render.adv_widgets import YesNoDialog

from org_edns_addon.i18n import _
from org_edns_addon.tui.editor import EditError, EdnsEditor
from org_edns_addon.tui.kickstart_file import (KickstartFileError, load_kickstart,
                                               new_kickstart, save_kickstart)
from org_edns_addon.tui.screens import MainScreen


def run_standalone(kickstart, output):
    """Edit KICKSTART's sections (or new ones) and write the result to OUTPUT.

    Returns True when the user saved. Raises KickstartFileError when
    KICKSTART cannot be edited.
    """
    if kickstart is not None:
        source, editor = load_kickstart(kickstart)
    else:
        source, editor = new_kickstart(), EdnsEditor()

    def save():
        try:
            save_kickstart(source, editor, output)
        except KickstartFileError as error:
            raise EditError("\n".join([error.message] + [str(p) for p in error.problems])) \
                from None

    App.initialize()
    App.get_scheduler().quit_screen = YesNoDialog(_("Quit without writing %s?") % output)
    screen = MainScreen(editor, save, "to write %s and quit" % output)
    App.get_scheduler().schedule_screen(screen)
    App.run()
    return screen.saved
