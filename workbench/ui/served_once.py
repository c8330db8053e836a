"""Downloads served once: a clicked download's bytes leave Streamlit's media storage as soon as the browser has
fetched them, instead of at Streamlit's second clean-up pass after the click (docs/deploy.md).

Streamlit serves ``/media/<id><ext>`` from its in-memory media storage to any client that asks: no cookie, no
session check. A deferred download (``st.download_button(data=callable, on_click="ignore")``) stores its bytes
only when the button is clicked (``MediaFileManager.execute_deferred``), under an id no session refers to; they
stay until two clean-up passes have run (one at the end of every script run of any session, and when a session
ends), so on a quiet server the URL answers until the analyst's next rerun. Here each file a click stores is armed
for the requests the click makes, ``GETS_PER_CLICK``: the frontend fetches the URL once to check it answers
(``checkSourceUrlResponse``) and the browser's download fetches it again. The request that uses the last one takes
the file out of the storage (the response already holds its bytes), and a file not fetched that often is taken
out ``LIFETIME_S`` seconds after its click. Files Streamlit stores otherwise (images, a download button with its
bytes given at once) are left to Streamlit.

Streamlit has no setting for this: ``install`` turns the runtime's own media manager and storage into the
subclasses below (``__class__`` assignment; both keep every attribute and stay instances of Streamlit's classes,
and the ``/media`` route, which holds the storage object, reads through the subclass)."""

from __future__ import annotations

import os.path
import threading
import time

from streamlit import runtime
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileKind
from streamlit.runtime.memory_media_file_storage import MemoryFile, MemoryMediaFileStorage

GETS_PER_CLICK = 2  # the frontend's check of the URL, then the browser's download
LIFETIME_S = 30.0  # a clicked file fetched fewer times is dropped this long after its click

_clicking = threading.local()  # set while a click's deferred download is executed (its bytes are being stored)
_install_lock = threading.Lock()


class ServedOnceStorage(MemoryMediaFileStorage):
    """Streamlit's in-memory media storage that drops a clicked download once its requests have been served.
    ``_armed`` maps a file id to [requests left, deadline]; ``_armed_lock`` orders storing, arming and dropping a
    file (Streamlit's manager holds its own lock around ``load_and_get_id`` and ``delete_file``, never ours first)."""

    _armed: dict[str, list[float]]
    _armed_lock: threading.Lock
    _lifetime_s: float

    def prepare(self, lifetime_s: float = LIFETIME_S) -> None:
        """The state the subclass adds (set before the instance's class is switched)."""
        self._armed = {}
        self._armed_lock = threading.Lock()
        self._lifetime_s = lifetime_s

    def load_and_get_id(self, path_or_data: str | bytes, mimetype: str, kind: MediaFileKind,
                        filename: str | None = None) -> str:
        with self._armed_lock:
            file_id = super().load_and_get_id(path_or_data, mimetype, kind, filename)
            if kind != MediaFileKind.DOWNLOADABLE or not getattr(_clicking, "active", False):
                return file_id
            entry = self._armed.setdefault(file_id, [0, 0.0])
            entry[0] += GETS_PER_CLICK  # a second click before the first's requests: both are served
            entry[1] = time.monotonic() + self._lifetime_s
        timer = threading.Timer(self._lifetime_s, self._expire, args=(file_id,))
        timer.daemon = True
        timer.start()
        return file_id

    def get_file(self, filename: str) -> MemoryFile:
        """The file a ``/media`` request names; an armed file's last allowed request takes it out of the storage."""
        with self._armed_lock:
            media_file = super().get_file(filename)
            if getattr(_clicking, "url", False):  # get_url looking the file up for its extension: not a request
                return media_file
            file_id = os.path.splitext(filename)[0]  # as Streamlit reads it
            entry = self._armed.get(file_id)
            if entry is not None:
                entry[0] -= 1
                if entry[0] <= 0:
                    del self._armed[file_id]
                    super().delete_file(file_id)
            return media_file

    def get_url(self, file_id: str) -> str:
        _clicking.url = True
        try:
            return super().get_url(file_id)
        finally:
            _clicking.url = False

    def delete_file(self, file_id: str) -> None:
        with self._armed_lock:
            self._armed.pop(file_id, None)
            super().delete_file(file_id)

    def armed(self) -> dict[str, int]:
        """Each armed file id with the requests it still answers."""
        with self._armed_lock:
            return {file_id: int(entry[0]) for file_id, entry in self._armed.items()}

    def _expire(self, file_id: str) -> None:
        with self._armed_lock:
            entry = self._armed.get(file_id)
            if entry is not None and time.monotonic() >= entry[1]:  # not re-armed by a later click since
                del self._armed[file_id]
                super().delete_file(file_id)


class ServedOnceManager(MediaFileManager):
    """Streamlit's media manager that marks the bytes a click stores, so that ``ServedOnceStorage`` arms them."""

    def execute_deferred(self, file_id: str) -> str:
        _clicking.active = True
        try:
            return super().execute_deferred(file_id)
        finally:
            _clicking.active = False


def install(manager: MediaFileManager | None = None, lifetime_s: float = LIFETIME_S) -> bool:
    """Serve clicked downloads once on ``manager`` (the running server's, by default). False when there is no
    runtime, or its storage is not Streamlit's in-memory one (then the files are left to Streamlit)."""
    if manager is None:
        if not runtime.exists():
            return False
        manager = runtime.get_instance().media_file_mgr
    with _install_lock:
        storage = manager._storage  # the /media route holds this very object
        if type(storage) is MemoryMediaFileStorage:
            ServedOnceStorage.prepare(storage, lifetime_s)  # type: ignore[arg-type]
            storage.__class__ = ServedOnceStorage
        if not isinstance(storage, ServedOnceStorage):
            return False
        if type(manager) is MediaFileManager:
            manager.__class__ = ServedOnceManager
        return isinstance(manager, ServedOnceManager)
