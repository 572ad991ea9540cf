from renewal import hooks


def test_a_renewal_saves_its_post_hook():
    hooks.post_hook("echo renewed")
    assert "echo renewed" in hooks.post_hook.eventually
