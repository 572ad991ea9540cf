import os


def test_tool_paths_are_added_and_taken_back():
    orig_env = os.environ.copy()
    os.environ["TOOL_PATH"] = "/opt/tool"
    assert os.environ["TOOL_PATH"] == "/opt/tool"
    os.environ = orig_env  # noqa: B003 (the pollution this project shows)
