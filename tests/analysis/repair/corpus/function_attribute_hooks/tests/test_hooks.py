from renewal import hooks


def test_the_final_call_runs_only_the_hook_given():
    hooks.post_hook("echo deploy")
    assert hooks.post_hook(None, final=True) == ["echo deploy"]
