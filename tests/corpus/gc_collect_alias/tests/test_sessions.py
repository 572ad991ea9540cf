import weakref
from gc import collect

import sessions


def test_default_session_alive():
    assert sessions.DEFAULT_REF() is not None


def test_drop_default_session():
    sessions.DEFAULT = None
    collect()
    assert sessions.DEFAULT_REF() is None
    assert sessions.RELEASED == ["default"]


def test_new_session_is_collected():
    session = sessions.Session()
    ref = weakref.ref(session)
    del session
    collect()
    assert ref() is None
